package service

import "github.com/citeq/citeq/capability"

// joinKeysDoc is a capability's join-key declaration as the catalog and the schema state it:
// each field that holds a shared key with its key, and each field that is a name only with
// what it names and the key to join on instead.
func joinKeysDoc(c *capability.Capability) Obj {
	keys, names := Obj{}, Obj{}
	for _, f := range c.JoinFields() {
		d, _ := capability.JoinKeyOf(f.Key)
		if !d.NameOnly {
			keys = append(keys, KV{f.Name, string(f.Key)})
			continue
		}
		o := Obj{{"names", string(f.Key)}}
		if d.Instead != "" {
			o = append(o, KV{"join_on", string(d.Instead)})
		}
		names = append(names, KV{f.Name, o})
	}
	return Obj{{"keys", keys}, {"names_only", names}}
}

// joinKeyVocabulary describes every join key once, for the catalog.
func joinKeyVocabulary() Obj {
	out := make(Obj, 0, len(capability.JoinKeys))
	for _, d := range capability.JoinKeys {
		o := Obj{{"description", d.Description}}
		if d.NameOnly {
			o = append(o, KV{"name_only", true})
		}
		out = append(out, KV{string(d.Key), o})
	}
	return out
}

package oacheck

import "testing"

// TestValidator keeps the payload checks above from passing vacuously.
func TestValidator(t *testing.T) {
	doc := Decode(t, []byte(`{"components":{"schemas":{
		"A":{"type":"object","required":["n"],"properties":{"n":{"type":"integer","minimum":1},"s":{"type":["string","null"],"pattern":"^x"},"l":{"type":"array","items":{"$ref":"#/components/schemas/B"}}}},
		"B":{"oneOf":[{"type":"string","enum":["a"]},{"type":"integer"}]}}}}`))
	v := &Validator{Doc: doc, Closed: true}
	a := map[string]any{"$ref": "#/components/schemas/A"}
	for payload, bad := range map[string]bool{
		`{"n":1,"s":null,"l":["a",2]}`: false,
		`{"n":1,"s":"xy"}`:             false,
		`{"n":0}`:                      true,
		`{"n":1.5}`:                    true,
		`{"s":"x"}`:                    true,
		`{"n":1,"s":"y"}`:              true,
		`{"n":1,"l":["b"]}`:            true,
		`{"n":1,"extra":true}`:         true,
	} {
		if errs := v.Validate(a, Decode(t, []byte(payload)), "$", 0); (len(errs) > 0) != bad {
			t.Errorf("%s: errors %v, want errors: %v", payload, errs, bad)
		}
	}
}

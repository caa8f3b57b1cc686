package capability

import "fmt"

// RegisterTemporary adds a capability that is not compiled in: the common fields are added
// and the definition is validated exactly as a compiled-in one is, and the returned function
// removes it from the registry. It serves tests a data set whose shape no real capability has
// (captest.RegisterForTest wraps it for a test). It must not be called while others read the
// registry, nor with the identifier or path of a registered capability (an error says which).
func RegisterTemporary(c *Capability) (remove func(), err error) {
	addCommon(c)
	if err := c.Validate(); err != nil {
		return nil, fmt.Errorf("capability %s: %w", c.ID, err)
	}
	for _, o := range registry {
		if o.ID == c.ID || o.Path == c.Path {
			return nil, fmt.Errorf("capability %s (%s) repeats registered %s (%s)", c.ID, c.Path, o.ID, o.Path)
		}
	}
	registry[c.ID] = c
	return func() { delete(registry, c.ID) }, nil
}

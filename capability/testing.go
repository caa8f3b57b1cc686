package capability

import (
	"fmt"
	"testing"
)

// RegisterForTest adds a capability that exists only for the test tb: the common fields are
// added and the definition is validated exactly as a compiled-in one is (an invalid one fails
// the test), and it is removed from the registry when the test ends. It lets a test serve a
// data set whose shape no real capability has (an integer measure that also groups, say)
// through the whole stack. It must not be called from tests that run in parallel with others
// reading the registry, nor with the identifier or path of a registered capability.
func RegisterForTest(tb testing.TB, c *Capability) *Capability {
	tb.Helper()
	addCommon(c)
	if err := c.Validate(); err != nil {
		tb.Fatalf("test capability: %v", err)
	}
	for _, o := range registry {
		if o.ID == c.ID || o.Path == c.Path {
			tb.Fatal(fmt.Errorf("test capability %s (%s) repeats registered %s (%s)", c.ID, c.Path, o.ID, o.Path))
		}
	}
	registry[c.ID] = c
	tb.Cleanup(func() { delete(registry, c.ID) })
	return c
}

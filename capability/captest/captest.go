// Package captest registers capabilities that exist only for a test. It is its own package so
// that package testing is not linked into the binary.
package captest

import (
	"testing"

	"github.com/citeq/citeq/capability"
)

// RegisterForTest adds a capability that exists only for the test tb: the common fields are
// added and the definition is validated exactly as a compiled-in one is (an invalid one fails
// the test), and it is removed from the registry when the test ends. It lets a test serve a
// data set whose shape no real capability has (an integer measure that also groups, say)
// through the whole stack. It must not be called from tests that run in parallel with others
// reading the registry, nor with the identifier or path of a registered capability.
func RegisterForTest(tb testing.TB, c *capability.Capability) *capability.Capability {
	tb.Helper()
	remove, err := capability.RegisterTemporary(c)
	if err != nil {
		tb.Fatalf("test capability: %v", err)
	}
	tb.Cleanup(remove)
	return c
}

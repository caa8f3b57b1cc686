package derive

import (
	"testing"

	"github.com/citeq/citeq/capability"
)

// TestEveryDerivedCapabilityHasAJoin: a capability with inputs is answerable only through
// its join, and a join belongs to a capability with inputs.
func TestEveryDerivedCapabilityHasAJoin(t *testing.T) {
	derived := map[string]bool{}
	for _, c := range capability.All() {
		if len(c.Inputs) == 0 {
			continue
		}
		derived[c.ID] = true
		if For(c.ID) == nil {
			t.Errorf("%s has inputs %v but no join registered", c.ID, c.Inputs)
		}
	}
	for id := range builds {
		if !derived[id] {
			t.Errorf("a join is registered for %s, which has no inputs", id)
		}
	}
	if len(derived) == 0 {
		t.Fatal("no derived capability")
	}
}

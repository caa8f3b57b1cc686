package procstat

import (
	"os"
	"testing"
)

// TestState: this process is running (R) or sleeping (S) while it reads its own state, and a
// process that does not exist is an error.
func TestState(t *testing.T) {
	s, err := State(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if s != 'R' && s != 'S' {
		t.Errorf("own state %c, want R or S", s)
	}
	if _, err := State(1 << 30); err == nil {
		t.Error("a process that does not exist has a state")
	}
}

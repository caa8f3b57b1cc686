// Package procstat reads a process's scheduling state from /proc, for tests that stop
// processes at a step (SIGSTOP) and wait for them to be stopped.
package procstat

import (
	"bytes"
	"fmt"
	"os"
	"testing"
)

// State is the state letter of process pid (R, S, T, Z, …), from /proc/<pid>/stat.
func State(pid int) (byte, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, fmt.Errorf("state of process %d: %w", pid, err)
	}
	// pid (comm) state …: comm may hold spaces and parentheses; the state follows the last ')'.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+2 >= len(b) {
		return 0, fmt.Errorf("state of process %d: unexpected /proc/%d/stat %q", pid, pid, b)
	}
	return b[i+2], nil
}

// Of is State for a test: the state letter of process pid, failing tb when it cannot be read.
func Of(tb testing.TB, pid int) byte {
	tb.Helper()
	s, err := State(pid)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

package snapshots

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"syscall"
	"testing"
)

func TestExplainFull(t *testing.T) {
	full := &fs.PathError{Op: "write", Path: "/data/.tmp-1", Err: syscall.ENOSPC}
	other := &fs.PathError{Op: "write", Path: "/data/.tmp-1", Err: syscall.EIO}
	for _, tc := range []struct {
		name string
		err  error
		hint bool
	}{
		{"nil", nil, false},
		{"a full disk", full, true},
		{"a full disk, wrapped", fmt.Errorf("raw store: copy x.xls: %w", full), true},
		{"another write error", other, false},
		{"not a file error", errors.New("no rows"), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := explainFull(tc.err)
			if tc.err == nil {
				if got != nil {
					t.Fatalf("explainFull(nil) = %v", got)
				}
				return
			}
			if !errors.Is(got, tc.err) {
				t.Errorf("%v no longer wraps %v", got, tc.err)
			}
			if hint := strings.Contains(fmt.Sprint(got), "free space on it and run citeq ingest again"); hint != tc.hint {
				t.Errorf("%q: hint %v, want %v", got, hint, tc.hint)
			}
		})
	}
}

// TestFailpointUnset: with $CITEQ_FAILPOINT unset or naming another step or action, a
// failpoint does nothing; one that fired would kill or stop this test process. (The stop and
// kill actions are exercised by the fault tests of cmd/citeq, as real processes.)
func TestFailpointUnset(t *testing.T) {
	for _, v := range []string{"", StepRecorded, StepRecorded + ":stop", "raw:copy:kill"} {
		t.Setenv(FailpointEnv, v)
		Failpoint(StepCatalogWritten)
		Failpoint(StepRawCopy)
	}
}

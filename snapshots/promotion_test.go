package snapshots

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/citeq/citeq/internal/procstat"
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

// TestFailpointStopsOnce: a "<step>:stop" failpoint stops the process the first time the
// step is reached; woken without its resume file it waits at the step and says so; once the
// file exists it goes on, and the same step reached again (another snapshot's Parquet write)
// goes by: the process runs to its end. The child
// is this test binary, re-run to reach the step twice.
func TestFailpointStopsOnce(t *testing.T) {
	if os.Getenv("CITEQ_TEST_FAILPOINT_CHILD") == "1" {
		Failpoint(StepFactsWrite)
		Failpoint(StepFactsWrite)
		return
	}
	resume := filepath.Join(t.TempDir(), "resume")
	cmd := exec.Command(os.Args[0], "-test.run=^TestFailpointStopsOnce$")
	cmd.Env = append(os.Environ(), "CITEQ_TEST_FAILPOINT_CHILD=1", FailpointEnv+"="+StepFactsWrite+":stop", FailpointResumeEnv+"="+resume)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	t.Cleanup(func() { cmd.Process.Kill() })
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(5 * time.Millisecond) {
		if got, err := os.ReadFile(resume + ".stopped"); err == nil && string(got) == StepFactsWrite && procstat.Of(t, cmd.Process.Pid) == 'T' {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the child did not stop at its step")
		}
	}
	// A SIGCONT it was not meant to take: it waits at its step for the resume file, and says so.
	go func() { done <- cmd.Wait() }()
	if err := cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(5 * time.Millisecond) {
		if got, err := os.ReadFile(resume + ".waiting"); err == nil && string(got) == StepFactsWrite {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the child woken without its resume file does not say it waits")
		}
	}
	select {
	case err := <-done:
		t.Fatalf("the child went past its step without its resume file (%v)", err)
	case <-time.After(200 * time.Millisecond):
	}
	// The resume file alone lets it go on: no second SIGCONT is needed, so none can be lost.
	if err := os.WriteFile(resume, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("the child ended with %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("the child did not end once continued (state %c): it stopped again at the step's second arrival", procstat.Of(t, cmd.Process.Pid))
	}
}

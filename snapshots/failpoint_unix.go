//go:build unix

package snapshots

import (
	"os"
	"sync/atomic"
	"syscall"
	"time"
)

// failpointStopped is set once a "<step>:stop" failpoint has stopped the process: it stops
// at the first time the step is reached, not again when the step comes round for another
// snapshot after the test let it go on (nobody would continue it a second time).
var failpointStopped atomic.Bool

// Failpoint kills the process with SIGKILL when $CITEQ_FAILPOINT names step, and stops it
// with SIGSTOP, the first time only, when it names step+":stop".
func Failpoint(step string) {
	switch os.Getenv(FailpointEnv) {
	case "":
	case step:
		_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {} // the signal is on its way
	case step + ":stop":
		if !failpointStopped.CompareAndSwap(false, true) {
			return
		}
		resume := os.Getenv(FailpointResumeEnv)
		if resume != "" {
			_ = os.WriteFile(resume+".stopped", []byte(step), 0o644)
		}
		_ = syscall.Kill(os.Getpid(), syscall.SIGSTOP)
		if resume == "" {
			return
		}
		if _, err := os.Stat(resume); err == nil {
			return
		}
		_ = os.WriteFile(resume+".waiting", []byte(step), 0o644)
		for {
			if _, err := os.Stat(resume); err == nil {
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
}

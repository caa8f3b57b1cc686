//go:build unix

package main

import (
	"os"
	"syscall"
)

// childPeakRSS is the peak resident set of an ended process, in bytes, where the system reports it.
func childPeakRSS(ps *os.ProcessState) (int64, bool) {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0, false
	}
	return ru.Maxrss << 10, true // KiB on Linux
}

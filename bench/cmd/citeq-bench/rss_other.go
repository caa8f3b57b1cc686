//go:build !unix

package main

import "os"

// childPeakRSS reports no peak resident set outside Unix.
func childPeakRSS(*os.ProcessState) (int64, bool) { return 0, false }

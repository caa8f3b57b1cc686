//go:build !unix

package snapshots

// Failpoint does nothing outside Unix: the failpoints kill and stop the process with Unix
// signals, and the fault tests that set them run on Unix only.
func Failpoint(string) {}

package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestBuildsOutsideUnix: every package of the module builds for Windows (and so for any
// system without Unix signals): the failpoints that kill and stop ingest with signals are
// in Unix builds only, the file locks have a Windows form, and cmd/citeq ships a non-Unix
// terminal file. Before, GOOS=windows go build ./... failed on syscall.Kill and
// syscall.Flock.
func TestBuildsOutsideUnix(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the whole module for another system")
	}
	for _, goos := range []string{"windows"} {
		cmd := exec.Command("go", "build", "./...")
		cmd.Dir = "../.."
		cmd.Env = append(os.Environ(), "GOOS="+goos, "GOARCH=amd64", "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("GOOS=%s go build ./...: %v\n%s", goos, err, strings.TrimSpace(string(out)))
		}
	}
}

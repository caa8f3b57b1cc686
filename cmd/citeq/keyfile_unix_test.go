//go:build unix

package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/citeq/citeq/access"
)

// TestAPIKeyFileModes: the file --api-key-file names is refused when others than its owner
// could write it (a key planted there would be sent to the agency's API in the operator's
// name), used with a warning when others could read it, and used as it is when it is its
// owner's alone. Before, each was used silently.
func TestAPIKeyFileModes(t *testing.T) {
	for _, tc := range []struct {
		perm    os.FileMode
		refused bool
		notice  string
	}{
		{0o600, false, ""},
		{0o644, false, "can be read by others (mode 0644)"},
		{0o666, true, ""},
		{0o660, true, ""},
	} {
		t.Run(tc.perm.String(), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "eia.key")
			if err := os.WriteFile(path, []byte("k3y\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(path, tc.perm); err != nil {
				t.Fatal(err)
			}
			key, notice, err := keyFileFlag{"CITEQ_EIA_API_KEY": path}.key("CITEQ_EIA_API_KEY")
			if tc.refused {
				if !errors.Is(err, access.ErrUnsafeKeyFile) || key != "" {
					t.Fatalf("%q, %v: want a refusal and no key", key, err)
				}
				return
			}
			if err != nil || key != "k3y" {
				t.Fatalf("%q, %v", key, err)
			}
			if tc.notice == "" && notice != "" || !strings.Contains(notice, tc.notice) {
				t.Errorf("notice %q, want %q", notice, tc.notice)
			}
			if fi, _ := os.Stat(path); fi.Mode().Perm() != tc.perm {
				t.Errorf("the operator's own file was changed to %v", fi.Mode().Perm())
			}
		})
	}
}

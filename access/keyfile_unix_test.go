//go:build unix

package access

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/citeq/citeq/state"
)

// keyFileAt writes secret into a file of mode perm (the umask aside) and returns its path.
func keyFileAt(t *testing.T, dir string, perm os.FileMode, secret string) string {
	t.Helper()
	path := filepath.Join(dir, "key")
	if err := os.WriteFile(path, []byte(secret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, perm); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestReadKeyFileModes: a key file that others than its owner may write is refused, whatever
// it holds; one others may read is tightened to 0600 or warned of; one only its owner reads
// is read as it is. Before, every one of them was read silently.
func TestReadKeyFileModes(t *testing.T) {
	cases := []struct {
		perm     os.FileMode
		tighten  bool
		refused  bool
		notice   string
		permThen os.FileMode
	}{
		{0o600, true, false, "", 0o600},
		{0o400, false, false, "", 0o400},
		{0o644, true, false, "its mode is now 0600", 0o600},
		{0o640, true, false, "its mode is now 0600", 0o600},
		{0o604, false, false, "warning: ", 0o604},
		{0o644, false, false, "chmod 600", 0o644},
		{0o666, true, true, "", 0o666},
		{0o620, true, true, "", 0o620},
		{0o602, false, true, "", 0o602},
		{0o777, true, true, "", 0o777},
	}
	for _, tc := range cases {
		t.Run(tc.perm.String(), func(t *testing.T) {
			path := keyFileAt(t, t.TempDir(), tc.perm, "cq_abc_secret")
			kf, err := ReadKeyFile(path, tc.tighten)
			if tc.refused {
				if !errors.Is(err, ErrUnsafeKeyFile) || !strings.Contains(err.Error(), "chmod 600") || kf.Secret != "" {
					t.Fatalf("%v, %q: want a refusal saying chmod 600, and no key", err, kf.Secret)
				}
			} else if err != nil || kf.Secret != "cq_abc_secret" {
				t.Fatalf("%q, %v", kf.Secret, err)
			}
			if tc.notice == "" && kf.Notice != "" || !strings.Contains(kf.Notice, tc.notice) {
				t.Errorf("notice %q, want one saying %q", kf.Notice, tc.notice)
			}
			if fi, _ := os.Stat(path); fi.Mode().Perm() != tc.permThen {
				t.Errorf("mode %v after, want %v", fi.Mode().Perm(), tc.permThen)
			}
		})
	}

	t.Run("not a regular file", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "fifo")
		if err := syscall.Mkfifo(path, 0o600); err != nil {
			t.Skip(err)
		}
		if _, err := ReadKeyFile(path, true); !errors.Is(err, ErrUnsafeKeyFile) {
			t.Fatalf("%v, want a refusal", err)
		}
	})

	t.Run("another user's file", func(t *testing.T) {
		fi, err := os.Stat(keyFileAt(t, t.TempDir(), 0o600, "cq_abc_secret"))
		if err != nil {
			t.Fatal(err)
		}
		st := *fi.Sys().(*syscall.Stat_t)
		for uid, refused := range map[uint32]bool{uint32(os.Getuid()): false, 0: false, uint32(os.Getuid()) + 1000: true} {
			st.Uid = uid
			err := checkKeyFileOwner("key", ownedBy{fi, &st})
			if refused != errors.Is(err, ErrUnsafeKeyFile) {
				t.Errorf("owner uid %d (this process %d): %v, want refused %v", uid, os.Getuid(), err, refused)
			}
		}
	})
}

// TestOperatorKeyFileMustBeTheOwners: a live key kept in a file others could write is not
// adopted as the operator key (the server does not start on it), and one others could read
// is adopted and made its owner's alone.
func TestOperatorKeyFileMustBeTheOwners(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	store, err := state.Open(ctx, "", dir)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	planted, key, err := store.CreateKey(ctx, state.PlanFree, "someone else")
	if err != nil {
		t.Fatal(err)
	}
	file := keyFileAt(t, dir, 0o666, planted)
	if op, err := LoadOperatorKey(ctx, store, file); !errors.Is(err, ErrUnsafeKeyFile) || op.Key.ID != "" {
		t.Fatalf("a world-writable key file gave %+v, %v; want a refusal", op.Key, err)
	}
	if err := os.Chmod(file, 0o644); err != nil {
		t.Fatal(err)
	}
	op, err := LoadOperatorKey(ctx, store, file)
	if err != nil || op.Key.ID != key.ID || op.Created || !strings.Contains(op.Notice, "0600") {
		t.Fatalf("a world-readable key file: %+v, %v", op, err)
	}
	if fi, _ := os.Stat(file); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v after, want 0600", fi.Mode().Perm())
	}
}

// ownedBy is a file's information with another owner.
type ownedBy struct {
	os.FileInfo
	st *syscall.Stat_t
}

func (o ownedBy) Sys() any { return o.st }

package snapshots

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// RawStore is the content-addressed store of raw source files: DATA/raw/<sha256>/<file name>.
// A file enters once, by hash, and is never rewritten.
type RawStore struct{ Dir string }

// HashFile returns the hex sha256 and size of the file at path.
func HashFile(path string) (string, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", 0, fmt.Errorf("hash %s: %w", path, err)
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return "", 0, fmt.Errorf("hash %s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), n, nil
}

// Put copies the file at path into the store under its hash and returns the stored path.
// A file already present is left untouched.
func (s RawStore) Put(path, sha string) (_ string, err error) {
	defer func() { err = explainFull(err) }()
	name := filepath.Base(path)
	dst := filepath.Join(s.Dir, sha, name)
	if _, err := os.Stat(dst); err == nil {
		return dst, nil
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return "", fmt.Errorf("raw store: %w", err)
	}
	src, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("raw store: %w", err)
	}
	defer src.Close()
	tmp, err := os.CreateTemp(filepath.Dir(dst), ".put-*")
	if err != nil {
		return "", fmt.Errorf("raw store: %w", err)
	}
	defer os.Remove(tmp.Name())
	Failpoint(StepRawCopy)
	h := sha256.New()
	if _, err := io.Copy(io.MultiWriter(tmp, h), src); err != nil {
		tmp.Close()
		return "", fmt.Errorf("raw store: copy %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return "", fmt.Errorf("raw store: %w", err)
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != sha {
		return "", fmt.Errorf("raw store: %s changed while being copied (sha256 %s, expected %s)", path, got, sha)
	}
	if err := os.Chmod(tmp.Name(), 0o444); err != nil {
		return "", fmt.Errorf("raw store: %w", err)
	}
	if err := os.Rename(tmp.Name(), dst); err != nil {
		return "", fmt.Errorf("raw store: %w", err)
	}
	return dst, nil
}

// Find returns the stored path of the file with the given hash, or "" when absent.
func (s RawStore) Find(sha string) string {
	if !isHex64(sha) {
		return ""
	}
	entries, err := os.ReadDir(filepath.Join(s.Dir, sha))
	if err != nil {
		return ""
	}
	for _, e := range entries {
		if e.Type().IsRegular() && e.Name()[0] != '.' {
			return filepath.Join(s.Dir, sha, e.Name())
		}
	}
	return ""
}

func isHex64(s string) bool {
	if len(s) != 64 {
		return false
	}
	for _, c := range s {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

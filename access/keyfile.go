package access

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// ErrUnsafeKeyFile is matched (with errors.Is) by the error of ReadKeyFile for a file that
// someone other than its owner could have written: its key is not used.
var ErrUnsafeKeyFile = errors.New("unsafe key file")

// KeyFile is a key read from a file by ReadKeyFile.
type KeyFile struct {
	// Secret is the key, the file's text without surrounding space.
	Secret string
	// Notice, when not empty, says that the file was readable by others and what was done:
	// its mode tightened, or a warning saying what to do.
	Notice string
}

// ReadKeyFile reads the key kept in the regular file path. Where the system has Unix file
// modes, it refuses (ErrUnsafeKeyFile) a file that group or others may write, or that belongs
// to a user other than this process's (root excepted): anyone who can write it can plant a
// key. A file that group or others may read is tightened to its owner alone (mode 0600) with
// tighten, else left as it is with a warning; either way Notice says so. An error for a
// missing file matches fs.ErrNotExist.
func ReadKeyFile(path string, tighten bool) (KeyFile, error) {
	var kf KeyFile
	fi, err := os.Stat(path)
	if err != nil {
		return kf, err
	}
	if !fi.Mode().IsRegular() {
		return kf, fmt.Errorf("%w: %s is not a regular file (%v); keep the key in a file of its own", ErrUnsafeKeyFile, path, fi.Mode().Type())
	}
	f, err := os.Open(path)
	if err != nil {
		return kf, err
	}
	defer f.Close()
	if fi, err = f.Stat(); err != nil {
		return kf, err
	}
	if err := checkKeyFileOwner(path, fi); err != nil {
		return kf, err
	}
	if perm := fi.Mode().Perm(); modesApply && perm&0o022 != 0 {
		return kf, fmt.Errorf("%w: %s can be written by others than its owner (mode %04o), so anyone who can write it could plant a key; make it its owner's alone (chmod 600 %s) and run again", ErrUnsafeKeyFile, path, perm, path)
	}
	if perm := fi.Mode().Perm(); modesApply && perm&0o044 != 0 {
		if tighten {
			if err := f.Chmod(perm &^ 0o077); err != nil {
				return kf, fmt.Errorf("%s can be read by others (mode %04o) and cannot be made its owner's alone: %w", path, perm, err)
			}
			kf.Notice = fmt.Sprintf("%s could be read by others (mode %04o); its mode is now %04o, its owner's alone", path, perm, perm&^0o077)
		} else {
			kf.Notice = fmt.Sprintf("warning: %s can be read by others (mode %04o), who can use the key it holds; make it its owner's alone (chmod 600 %s)", path, perm, path)
		}
	}
	b, err := io.ReadAll(io.LimitReader(f, 64<<10))
	if err != nil {
		return kf, err
	}
	kf.Secret = strings.TrimSpace(string(b))
	return kf, nil
}

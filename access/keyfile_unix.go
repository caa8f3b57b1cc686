//go:build unix

package access

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// modesApply says that file modes say who may read and write a file.
const modesApply = true

// checkKeyFileOwner refuses a key file that belongs to another user than this process's
// (root excepted): its owner can write it whatever its mode.
func checkKeyFileOwner(path string, fi fs.FileInfo) error {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	if uid := os.Getuid(); int(st.Uid) != uid && st.Uid != 0 {
		return fmt.Errorf("%w: %s belongs to uid %d, not to this process's uid %d, and its owner could plant a key; keep the key in a file of your own (mode 0600)", ErrUnsafeKeyFile, path, st.Uid, uid)
	}
	return nil
}

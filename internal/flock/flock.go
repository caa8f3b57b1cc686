// Package flock takes advisory locks on whole files, shared by the processes of one machine
// and released by the system when the process holding one ends, however it ends: flock(2)
// on Unix, LockFileEx on Windows.
package flock

import (
	"errors"
	"os"
)

// ErrUnsupported is returned where the system offers no file lock.
var ErrUnsupported = errors.New("file locks are not supported on this system")

// Lock waits until f is locked exclusively by this open file.
func Lock(f *os.File) error { return lock(f, true) }

// TryLock locks f exclusively if no other open file holds it, and reports whether it did.
func TryLock(f *os.File) (bool, error) {
	err := lock(f, false)
	if errors.Is(err, errHeld) {
		return false, nil
	}
	return err == nil, err
}

// Unlock releases the lock f holds (closing f releases it too).
func Unlock(f *os.File) error { return unlock(f) }

// errHeld is the error of a lock that another open file holds.
var errHeld = errors.New("held by another open file")

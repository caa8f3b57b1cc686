//go:build !(darwin || dragonfly || freebsd || linux || netbsd || openbsd || windows)

package flock

import "os"

func lock(*os.File, bool) error { return ErrUnsupported }

func unlock(*os.File) error { return ErrUnsupported }

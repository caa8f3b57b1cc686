package snapshots

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/citeq/citeq/internal/flock"
)

// LockFile is the file, in the data directory, that the process writing it (an ingest, a
// promotion) holds locked; it names that process.
const LockFile = "write.lock"

// ErrLocked is matched (with errors.Is) by the error of Lock when another process holds the
// data directory.
var ErrLocked = errors.New("the data directory is locked by another process")

// LockedError says which process holds the data directory.
type LockedError struct {
	Dir    string
	Holder string // as the holder wrote it: pid, command line, since when; "" when not yet written
}

// Error implements error.
func (e *LockedError) Error() string {
	who := "another process (it has not yet written which)"
	if e.Holder != "" {
		who = e.Holder
	}
	return fmt.Sprintf("the data directory %s is being written by %s; wait for it to end (or stop it) and run again: one ingest at a time writes a data directory", e.Dir, who)
}

// Is makes errors.Is(err, ErrLocked) true.
func (e *LockedError) Is(target error) bool { return target == ErrLocked }

// Lock takes the data directory's exclusive write lock for this process (an advisory file
// lock on DATA/write.lock, released by the system when the process ends, however it ends),
// and writes into the file which process holds it. It does not wait: when another process
// holds it, the error (a *LockedError) names that process. Within one Store, Lock nests:
// each Lock is paired with an Unlock, and the lock is released by the last.
func (s *Store) Lock() error {
	s.lockMu.Lock()
	defer s.lockMu.Unlock()
	if s.holds > 0 {
		s.holds++
		return nil
	}
	if err := os.MkdirAll(s.Dir, 0o755); err != nil {
		return fmt.Errorf("lock the data directory: %w", err)
	}
	path := filepath.Join(s.Dir, LockFile)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("lock the data directory: %w", err)
	}
	ok, err := flock.TryLock(f)
	if err != nil {
		f.Close()
		return fmt.Errorf("lock the data directory: %s: %w", path, err)
	}
	if !ok {
		b, _ := io.ReadAll(io.LimitReader(f, 4096))
		f.Close()
		return &LockedError{Dir: s.Dir, Holder: strings.TrimSpace(string(b))}
	}
	holder := fmt.Sprintf("pid %d (%s), since %s", os.Getpid(), strings.Join(os.Args, " "), time.Now().UTC().Format(time.RFC3339))
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte(holder+"\n"), 0)
	}
	s.lock, s.holds = f, 1
	return nil
}

// Unlock releases one Lock; the last releases the data directory.
func (s *Store) Unlock() error {
	s.lockMu.Lock()
	defer s.lockMu.Unlock()
	if s.holds == 0 {
		return errors.New("unlock the data directory: not locked")
	}
	if s.holds--; s.holds > 0 {
		return nil
	}
	f := s.lock
	s.lock = nil
	_ = f.Truncate(0)
	err := flock.Unlock(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("unlock the data directory: %w", err)
	}
	return nil
}

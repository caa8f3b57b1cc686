package freshness

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/citeq/citeq/ingest/fetch"
	"github.com/citeq/citeq/internal/flock"
	"github.com/citeq/citeq/snapshots"
)

// StateFile is the file, in the data directory, that holds what the sync loop knows of every
// source; it is replaced whole (write temporary, rename) after every check.
const StateFile = "sync-state.json"

// State is what the sync loop knows of every source, by source id: enough for a restarted
// loop to resume where it was (when each is next due, the validators of every file held, a
// download not yet ingested, the failures in a row), and for a server to judge freshness.
type State struct {
	// Written is when the state was last written.
	Written time.Time               `json:"written"`
	Sources map[string]*SourceState `json:"sources"`
}

// SourceState is what the loop knows of one source.
type SourceState struct {
	LastChecked   time.Time `json:"last_checked,omitzero"`
	LastSucceeded time.Time `json:"last_succeeded,omitzero"`
	NextCheck     time.Time `json:"next_check,omitzero"`
	// Checks counts every check made.
	Checks int `json:"checks"`
	// Failures counts the checks failed in a row; LastError is the last one's error.
	Failures  int    `json:"consecutive_failures"`
	LastError string `json:"last_error,omitempty"`
	// FailuresByReason counts every failed check by its reason (metrics).
	FailuresByReason map[string]int `json:"failures_by_reason,omitempty"`
	// Files are the files held, by destination in the raw directory.
	Files map[string]*FileState `json:"files,omitempty"`
	// Pending says that files were downloaded and are not yet ingested: the next check
	// ingests them before anything else, so a download is never left unserved by a restart.
	Pending bool `json:"pending_ingest,omitempty"`
	// Refused, when set, is why the newest version held was not promoted (its gates
	// refused it, or its ingest failed).
	Refused string `json:"refused,omitempty"`
}

// FileState is one file held.
type FileState struct {
	Validators fetch.Validators `json:"validators,omitzero"`
	SHA256     string           `json:"sha256"`
	// Changed is when the publisher released the version held: its Last-Modified date or the
	// listing's date, else when a check first downloaded it.
	Changed time.Time `json:"changed,omitzero"`
}

// LastChanged is the newest release among the files held.
func (s *SourceState) LastChanged() time.Time {
	var t time.Time
	for _, f := range s.Files {
		if f.Changed.After(t) {
			t = f.Changed
		}
	}
	return t
}

// ReadState reads the state file of data directory dir (an empty state when there is none).
func ReadState(dir string) (*State, error) {
	st := &State{Sources: map[string]*SourceState{}}
	b, err := os.ReadFile(filepath.Join(dir, StateFile))
	if errors.Is(err, os.ErrNotExist) {
		return st, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the sync state: %w", err)
	}
	if err := json.Unmarshal(b, st); err != nil {
		return nil, fmt.Errorf("read the sync state %s: %w (remove it to start the checks afresh)", filepath.Join(dir, StateFile), err)
	}
	if st.Sources == nil {
		st.Sources = map[string]*SourceState{}
	}
	return st, nil
}

// write replaces the state file of data directory dir.
func (st *State) write(dir string) error {
	if err := snapshots.WriteJSONAtomic(filepath.Join(dir, StateFile), st); err != nil {
		return fmt.Errorf("write the sync state: %w", err)
	}
	return nil
}

// source is the state of source id, made when absent.
func (st *State) source(id string) *SourceState {
	s := st.Sources[id]
	if s == nil {
		s = &SourceState{}
		st.Sources[id] = s
	}
	if s.Files == nil {
		s.Files = map[string]*FileState{}
	}
	return s
}

// clone is a deep copy of s, for a reader outside the loop's lock.
func (s *SourceState) clone() SourceState {
	c := *s
	c.FailuresByReason = map[string]int{}
	for k, v := range s.FailuresByReason {
		c.FailuresByReason[k] = v
	}
	c.Files = map[string]*FileState{}
	for k, v := range s.Files {
		f := *v
		c.Files[k] = &f
	}
	return c
}

// LoopLockFile is the file, in the data directory, that the process running a sync loop on it
// holds locked for as long as the loop runs: one loop per data directory.
const LoopLockFile = "sync.lock"

// Claim makes this process the one sync loop of data directory dir: it locks dir/sync.lock
// (released by the system when the process ends, however it ends) and writes in it which
// process holds it. A directory another process's loop holds is refused, naming it.
func Claim(dir string) (release func(), err error) {
	path := filepath.Join(dir, LoopLockFile)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("claim the sync loop: %w", err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("claim the sync loop: %w", err)
	}
	ok, err := flock.TryLock(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("claim the sync loop: %s: %w", path, err)
	}
	if !ok {
		b, _ := io.ReadAll(io.LimitReader(f, 4096))
		f.Close()
		who := strings.TrimSpace(string(b))
		if who == "" {
			who = "another process"
		}
		return nil, fmt.Errorf("a sync loop already checks the sources of %s (%s): one citeq serve --sync per data directory; start this server without --sync, it shows that loop's freshness", dir, who)
	}
	holder := fmt.Sprintf("pid %d (%s), since %s", os.Getpid(), strings.Join(os.Args, " "), time.Now().UTC().Format(time.RFC3339))
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte(holder+"\n"), 0)
	}
	return func() {
		_ = f.Truncate(0)
		_ = flock.Unlock(f)
		f.Close()
	}, nil
}

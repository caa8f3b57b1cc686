package snapshots

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"syscall"
	"time"
)

// Promotion is one promoted snapshot whose snapshot.promoted event must reach the webhook
// outbox. Promote records it durably before it changes the catalog, and it is dropped only
// once the event is queued, so no promoted snapshot is ever left without its event, whatever
// step a crash or a full disk interrupts.
type Promotion struct {
	Capability   string    `json:"capability"`
	AsOf         string    `json:"as_of"`
	Fingerprint  string    `json:"fingerprint"`
	Rows         int       `json:"rows"`
	PreviousAsOf string    `json:"previous_as_of,omitempty"`
	PreviousRows int       `json:"previous_rows,omitempty"`
	PromotedAt   time.Time `json:"promoted_at"`
	// Promoted reports whether the catalog promotes the snapshot (not stored): a record
	// whose catalog write never happened is not an event.
	Promoted bool `json:"-"`
	path     string
}

// PendingDir holds the promotions whose events are not yet queued.
func (s *Store) PendingDir() string { return filepath.Join(s.Dir, "pending-events") }

func (s *Store) pendingPath(capID, asOf, fp string) string {
	return filepath.Join(s.PendingDir(), capID+"@"+asOf+"@"+fp+".json")
}

// Promote marks the snapshot of m as the one served for its capability and as_of: it first
// records the promotion (with the capability's previous latest as_of and rows) for its
// event, then replaces the catalog. Promoting what the catalog already promotes does nothing.
// It holds the data directory's write lock (Lock) while it reads and writes the catalog, so
// that no other process's promotion comes in between; another process holding it is an
// error naming that process.
func (s *Store) Promote(m *Manifest) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.Lock(); err != nil {
		return fmt.Errorf("promote %s %s: %w", m.Capability, m.AsOf, err)
	}
	defer s.Unlock()
	Failpoint(StepPromoteStart)
	c, err := s.ReadCatalog()
	if err != nil {
		return err
	}
	if c.Promoted[m.Capability][m.AsOf] == m.Fingerprint {
		return nil
	}
	p := Promotion{Capability: m.Capability, AsOf: m.AsOf, Fingerprint: m.Fingerprint, Rows: m.Rows, PromotedAt: time.Now().UTC()}
	for asOf := range c.Promoted[m.Capability] {
		if asOf > p.PreviousAsOf {
			p.PreviousAsOf = asOf
		}
	}
	if p.PreviousAsOf != "" {
		prev, err := ReadManifest(s.SnapshotDir(m.Capability, p.PreviousAsOf, c.Promoted[m.Capability][p.PreviousAsOf]))
		if err != nil {
			return fmt.Errorf("promote %s %s: %w", m.Capability, m.AsOf, err)
		}
		p.PreviousRows = prev.Rows
	}
	if err := WriteJSONAtomic(s.pendingPath(p.Capability, p.AsOf, p.Fingerprint), p); err != nil {
		return fmt.Errorf("promote %s %s: record the promotion for its event: %w", m.Capability, m.AsOf, err)
	}
	Failpoint(StepRecorded)
	if c.Promoted[m.Capability] == nil {
		c.Promoted[m.Capability] = map[string]string{}
	}
	c.Promoted[m.Capability][m.AsOf] = m.Fingerprint
	if err := WriteJSONAtomic(s.CatalogPath(), c); err != nil {
		return fmt.Errorf("promote %s %s: %w", m.Capability, m.AsOf, err)
	}
	Failpoint(StepCatalogWritten)
	return nil
}

// PendingPromotions lists the promotions whose events are not yet queued, oldest first,
// each saying whether the catalog promotes it.
func (s *Store) PendingPromotions() ([]Promotion, error) {
	paths, err := filepath.Glob(filepath.Join(s.PendingDir(), "*.json"))
	if err != nil {
		return nil, fmt.Errorf("pending promotions: %w", err)
	}
	if len(paths) == 0 {
		return nil, nil
	}
	c, err := s.ReadCatalog()
	if err != nil {
		return nil, err
	}
	var out []Promotion
	for _, path := range paths {
		b, err := os.ReadFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue // queued meanwhile by another process
		}
		if err != nil {
			return nil, fmt.Errorf("pending promotions: %w", err)
		}
		var p Promotion
		if err := json.Unmarshal(b, &p); err != nil {
			return nil, fmt.Errorf("pending promotion %s: %w", path, err)
		}
		p.path = path
		p.Promoted = c.Promoted[p.Capability][p.AsOf] == p.Fingerprint
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].PromotedAt.Before(out[j].PromotedAt) })
	return out, nil
}

// Queued drops the record of a promotion whose event is in the outbox.
func (s *Store) Queued(p Promotion) error {
	if err := os.Remove(p.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("pending promotion: %w", err)
	}
	return nil
}

// FailpointEnv names the step at which a process is interrupted, so that fault tests can
// interrupt ingest at each of its steps with a real kill -9 or a real full disk. Unset in
// service. "<step>" kills the process with SIGKILL at step; "<step>:stop" stops it there with
// SIGSTOP, for the test to query the server, fill the disk or kill it, and the process goes
// on from step when it is continued (SIGCONT).
const FailpointEnv = "CITEQ_FAILPOINT"

// FailpointResumeEnv, set with a "<step>:stop" failpoint, names a file: the process writes
// "<file>.stopped" (holding the step) before it stops, and goes on only once the file exists.
// Woken without it (a SIGCONT it was not meant to take: the kernel sends one to a stopped
// process whose process group is orphaned), it writes "<file>.waiting" and waits for the file
// at its step rather than stopping again, so the test's SIGCONT cannot be lost in between:
// the file is the signal. A test acts on the process once it is stopped or waiting.
const FailpointResumeEnv = "CITEQ_FAILPOINT_RESUME"

// The steps of ingest a failpoint can name, in the order an ingest reaches them.
const (
	StepRawCopy        = "raw:copy"                // a source file is being copied into the raw store
	StepFactsWrite     = "facts:write"             // a snapshot's Parquet file is being written
	StepPromoteStart   = "promote:start"           // the snapshot is written, promotion begins
	StepRecorded       = "promote:recorded"        // the promotion is recorded, the catalog not yet written
	StepCatalogWritten = "promote:catalog-written" // the catalog promotes the snapshot, its event is not queued
	StepEventQueued    = "emit:queued"             // the event is queued, its record not yet removed
)

// explainFull adds to an error caused by a full disk what to do about it.
func explainFull(err error) error {
	if errors.Is(err, syscall.ENOSPC) {
		return fmt.Errorf("%w (the disk holding the data directory is full: free space on it and run citeq ingest again; the snapshots already served are unchanged)", err)
	}
	return err
}

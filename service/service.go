// Package service is the one layer behind every front end: it validates parameters against
// the capability definitions, runs queries on the columnar engine, builds citations from the
// lineage columns, verifies evidence, and renders the JSON payloads. REST and MCP call the
// same methods and so return byte-identical documents.
package service

import (
	"os"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/citeq/citeq/apierror"
	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/columnar"
	"github.com/citeq/citeq/grid"
	"github.com/citeq/citeq/snapshots"
)

// Snapshot is one promoted snapshot loaded for serving.
type Snapshot struct {
	Cap       *capability.Capability
	Manifest  *snapshots.Manifest
	Table     *columnar.Table
	Codebooks []snapshots.Codebook
	sources   map[string]snapshots.Source // by file name
	// unpublished lists the fields that are null on every row.
	unpublished map[string]bool
	// id tells this snapshot from every other one loaded by the process.
	id uint64
	// derived is set on the snapshot of a derived capability (derived.go).
	derived *derivedInfo
	// lintext holds the lineage values rendered as JSON (lineage).
	lintext lineageText
	// pads maps each text column filtered so far to its values with surrounding white space,
	// by their trimmed text (padded).
	padMu sync.Mutex
	pads  map[string]map[string][]string
}

// sourceBySHA is the manifest's entry of the raw file with hash sha.
func (snap *Snapshot) sourceBySHA(sha string) (snapshots.Source, bool) {
	for _, src := range snap.Manifest.Sources {
		if src.SHA256 == sha {
			return src, true
		}
	}
	return snapshots.Source{}, false
}

// snapshotIDs numbers the snapshots loaded.
var snapshotIDs atomic.Uint64

// Service answers the four verbs over the promoted snapshots of a data directory.
type Service struct {
	store *snapshots.Store

	mu       sync.RWMutex
	byCap    map[string]map[string]*Snapshot // capability → as_of → snapshot
	loaded   map[string]*Snapshot            // snapshot dir → snapshot
	index    *rawIndex                       // the raw files the snapshots of byCap cite
	catStamp time.Time

	evidence *onceCache[*grid.Workbook] // a few parsed raw files, by the hash they were verified against
	cache    *responseCache
	cites    *citeCache
	// derived keeps the derived capabilities' snapshots built, by capability, as_of and the
	// inputs' fingerprints; a reload that changes the catalog empties it.
	derived onceCache[*Snapshot]

	// aggregate bounds the aggregate evidence's verifications in flight.
	aggregate *aggregateGate
	fresh     freshnessFunc
}

// New loads every promoted snapshot of the data directory.
func New(dataDir string) (*Service, error) {
	s := &Service{store: &snapshots.Store{Dir: dataDir}, loaded: map[string]*Snapshot{}, evidence: &onceCache[*grid.Workbook]{max: 4},
		cache: newResponseCache(DefaultCacheBytes), cites: newCiteCache(DefaultCiteCacheBytes),
		aggregate: newAggregateGate(DefaultAggregateInFlight)}
	if _, err := s.Reload(); err != nil {
		return nil, err
	}
	return s, nil
}

// Store is the data directory the service reads.
func (s *Service) Store() *snapshots.Store { return s.store }

// Reload re-reads the catalog and loads newly promoted snapshots; it reports whether
// anything changed. Snapshots are immutable, so one already loaded is kept as is.
func (s *Service) Reload() (bool, error) {
	st, err := os.Stat(s.store.CatalogPath())
	stamp := time.Time{}
	if err == nil {
		stamp = st.ModTime()
	}
	s.mu.RLock()
	same := s.byCap != nil && stamp.Equal(s.catStamp)
	s.mu.RUnlock()
	if same {
		return false, nil
	}
	ms, err := s.store.PromotedManifests()
	if err != nil {
		return false, err
	}
	byCap := map[string]map[string]*Snapshot{}
	loaded := map[string]*Snapshot{}
	index := &rawIndex{headers: map[string]map[string]int{}, citedBy: map[string][]Obj{}}
	for _, m := range ms {
		c := capability.ByID(m.Capability)
		if c == nil {
			continue
		}
		s.mu.RLock()
		snap := s.loaded[m.Dir]
		s.mu.RUnlock()
		if snap == nil {
			snap, err = load(c, m)
			if err != nil {
				return false, err
			}
		}
		loaded[m.Dir] = snap
		if byCap[c.ID] == nil {
			byCap[c.ID] = map[string]*Snapshot{}
		}
		byCap[c.ID][m.AsOf] = snap
		for _, src := range m.Sources {
			if index.headers[src.SHA256] == nil {
				index.headers[src.SHA256] = map[string]int{}
			}
			for sheet, row := range src.HeaderRows {
				index.headers[src.SHA256][sheet] = row
			}
			index.citedBy[src.SHA256] = append(index.citedBy[src.SHA256], Obj{{"capability", m.Capability}, {"as_of", m.AsOf}, {"role", src.Role}})
		}
	}
	s.mu.Lock()
	s.byCap, s.loaded, s.index, s.catStamp = byCap, loaded, index, stamp
	s.mu.Unlock()
	s.derived.reset()
	return true, nil
}

// rawIndex is what one catalog says of the raw files its snapshots cite. Reload replaces it
// whole, with the snapshots, so an answer that takes it once (rawIndexNow) speaks of one
// catalog throughout: every cited_by of one answer lists the same snapshots.
type rawIndex struct {
	headers map[string]map[string]int // raw sha256 → sheet → header row
	citedBy map[string][]Obj          // raw sha256 → snapshots citing it
}

// rawIndexNow is the raw-file index of the catalog served now.
func (s *Service) rawIndexNow() *rawIndex {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.index
}

// served returns the capability's snapshots by as_of, and the as_of dates sorted. A derived
// capability has no snapshots of its own: its map is nil and its dates are derivedDates.
func (s *Service) served(capID string) (map[string]*Snapshot, []string) {
	if c := capability.ByID(capID); c != nil && len(c.Inputs) > 0 {
		return nil, s.derivedDates(c)
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	m := s.byCap[capID]
	dates := make([]string, 0, len(m))
	for d := range m {
		dates = append(dates, d)
	}
	sort.Strings(dates)
	return m, dates
}

// Served lists the capabilities that have at least one promoted snapshot.
func (s *Service) Served() []*capability.Capability {
	var out []*capability.Capability
	for _, c := range capability.All() {
		if _, dates := s.served(c.ID); len(dates) > 0 {
			out = append(out, c)
		}
	}
	return out
}

// SnapshotsServed lists every served (capability, as_of) with its row count: the promoted
// snapshots (a derived capability has none of its own).
func (s *Service) SnapshotsServed() []*Snapshot {
	var out []*Snapshot
	for _, c := range s.Served() {
		m, dates := s.served(c.ID)
		if m == nil {
			continue
		}
		for _, d := range dates {
			out = append(out, m[d])
		}
	}
	return out
}

// resolve finds the capability served under path p.
func (s *Service) resolve(p string) (*capability.Capability, *apierror.Error) {
	c := capability.ByPath(p)
	if c == nil {
		return nil, apierror.New(404, apierror.CodeNotFound, "no capability at /v1/%s; %sGET /v1/capabilities lists the served capabilities and their paths", p, DidYouMean(p, ""))
	}
	if _, dates := s.served(c.ID); len(dates) == 0 {
		return nil, apierror.New(404, apierror.CodeNotServed, "capability %s is defined but no snapshot of it is served yet: its schema (GET /v1/%s/schema) says why; GET /v1/capabilities lists what is served", c.ID, c.Path).Becausef(
			"%s has no promoted snapshot: run citeq ingest with its source files (the schema's reason names them)", c.ID)
	}
	return c, nil
}

// snapshot resolves as_of ("" or "latest" → newest) for capability c.
func (s *Service) snapshot(c *capability.Capability, asOf string) (*Snapshot, *apierror.Error) {
	m, dates := s.served(c.ID)
	if asOf == "" || asOf == "latest" {
		if m == nil {
			return s.derivedSnapshot(c, dates[len(dates)-1])
		}
		return m[dates[len(dates)-1]], nil
	}
	if m == nil && slices.Contains(dates, asOf) {
		return s.derivedSnapshot(c, asOf)
	}
	if snap, ok := m[asOf]; ok {
		return snap, nil
	}
	return nil, apierror.New(400, apierror.CodeInvalidParameter, "as_of %q is not a served snapshot of %s; use latest or one of: %s", asOf, c.ID, join(dates))
}

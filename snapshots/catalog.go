package snapshots

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"sync"
)

// Catalog records which snapshot is promoted for each capability and as_of. It lives at
// DATA/catalog.json and is replaced atomically on every promotion.
type Catalog struct {
	// Promoted maps capability → as_of → fingerprint of the promoted snapshot.
	Promoted map[string]map[string]string `json:"promoted"`
}

// Store is the data directory: raw store, snapshots and catalog.
type Store struct {
	Dir string
	mu  sync.Mutex
	// lockMu guards the data directory's write lock (lock.go): the file holding it, and how
	// many Locks hold it.
	lockMu sync.Mutex
	lock   *os.File
	holds  int
}

// Raw is the store's raw-file store.
func (s *Store) Raw() RawStore { return RawStore{Dir: filepath.Join(s.Dir, "raw")} }

// SnapshotDir is the directory of one snapshot.
func (s *Store) SnapshotDir(capID, asOf, fingerprint string) string {
	return filepath.Join(s.Dir, "snapshots", capID, asOf, fingerprint)
}

// CatalogPath is the catalog file.
func (s *Store) CatalogPath() string { return filepath.Join(s.Dir, "catalog.json") }

// ReadCatalog reads the catalog; a missing catalog is empty.
func (s *Store) ReadCatalog() (*Catalog, error) {
	c := &Catalog{Promoted: map[string]map[string]string{}}
	b, err := os.ReadFile(s.CatalogPath())
	if errors.Is(err, fs.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return nil, fmt.Errorf("catalog: %w", err)
	}
	if err := json.Unmarshal(b, c); err != nil {
		return nil, fmt.Errorf("catalog %s: %w", s.CatalogPath(), err)
	}
	if c.Promoted == nil {
		c.Promoted = map[string]map[string]string{}
	}
	return c, nil
}

// PromotedManifests returns the manifests of every promoted snapshot.
func (s *Store) PromotedManifests() ([]*Manifest, error) {
	c, err := s.ReadCatalog()
	if err != nil {
		return nil, err
	}
	var out []*Manifest
	for capID, byDate := range c.Promoted {
		for asOf, fp := range byDate {
			m, err := ReadManifest(s.SnapshotDir(capID, asOf, fp))
			if err != nil {
				return nil, err
			}
			out = append(out, m)
		}
	}
	sortManifests(out)
	return out, nil
}

// AllManifests returns every snapshot on disk, promoted or rejected.
func (s *Store) AllManifests() ([]*Manifest, error) {
	paths, err := filepath.Glob(filepath.Join(s.Dir, "snapshots", "*", "*", "*", ManifestFile))
	if err != nil {
		return nil, fmt.Errorf("snapshots: %w", err)
	}
	var out []*Manifest
	for _, p := range paths {
		m, err := ReadManifest(filepath.Dir(p))
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	sortManifests(out)
	return out, nil
}

func sortManifests(ms []*Manifest) {
	sort.Slice(ms, func(i, j int) bool {
		a, b := ms[i], ms[j]
		if a.Capability != b.Capability {
			return a.Capability < b.Capability
		}
		if a.AsOf != b.AsOf {
			return a.AsOf < b.AsOf
		}
		return a.Fingerprint < b.Fingerprint
	})
}

// CleanStale removes what a killed ingest leaves behind: snapshot build directories
// (snapshots/<capability>/<as_of>/.build-*), temporary files of atomic writes (.tmp-*),
// raw-store copies never renamed into place (raw/<sha256>/.put-*) and records of promotions
// the catalog never took. It takes the data directory's write lock (Lock) for the time it
// cleans, and an ingest holds it from before this call to its end: at its start none of them
// belongs to a live writer. It returns the paths removed.
func (s *Store) CleanStale() ([]string, error) {
	if err := s.Lock(); err != nil {
		return nil, err
	}
	defer s.Unlock()
	patterns := []string{
		filepath.Join(s.Dir, "snapshots", "*", "*", ".build-*"),
		filepath.Join(s.Dir, "snapshots", "*", "*", ".tmp-*"),
		filepath.Join(s.Dir, "snapshots", "*", "*", "*", ".tmp-*"),
		filepath.Join(s.Dir, ".tmp-*"),
		filepath.Join(s.Dir, "raw", "*", ".put-*"),
		filepath.Join(s.PendingDir(), ".tmp-*"),
	}
	var removed []string
	// A promotion recorded but never written to the catalog is no promotion; the snapshot
	// is promoted again, with a new record, when ingest next finds it.
	pending, err := s.PendingPromotions()
	if err != nil {
		return nil, err
	}
	for _, p := range pending {
		if !p.Promoted {
			if err := s.Queued(p); err != nil {
				return removed, err
			}
			removed = append(removed, p.path)
		}
	}
	for _, p := range patterns {
		paths, err := filepath.Glob(p)
		if err != nil {
			return removed, fmt.Errorf("clean stale builds: %w", err)
		}
		for _, path := range paths {
			if err := os.RemoveAll(path); err != nil {
				return removed, fmt.Errorf("clean stale builds: %w", err)
			}
			removed = append(removed, path)
		}
	}
	return removed, nil
}

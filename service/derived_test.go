package service

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/citeq/citeq/apierror"
)

// TestDerivedCacheBuildsEachKeyOnce: queries of one key at the same time wait for one
// build; a query of another key does not wait for it; a failed or panicking build is not
// kept, and the next query builds again.
func TestDerivedCacheBuildsEachKeyOnce(t *testing.T) {
	var d derivedCache
	release := make(chan struct{})
	var builds atomic.Int32
	slow := func() (*Snapshot, *apierror.Error) {
		builds.Add(1)
		<-release
		return &Snapshot{}, nil
	}
	var wg sync.WaitGroup
	got := make([]*Snapshot, 8)
	for i := range got {
		wg.Go(func() { got[i], _ = d.get("a", slow) })
	}
	for builds.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	other := make(chan *Snapshot)
	go func() {
		s, _ := d.get("b", func() (*Snapshot, *apierror.Error) { return &Snapshot{}, nil })
		other <- s
	}()
	select {
	case s := <-other:
		if s == nil {
			t.Fatal("key b: no snapshot")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a query of key b waited for the build of key a")
	}
	close(release)
	wg.Wait()
	if n := builds.Load(); n != 1 {
		t.Errorf("key a built %d times, want once", n)
	}
	for i, s := range got {
		if s == nil || s != got[0] {
			t.Errorf("query %d of key a got %p, want the one snapshot %p", i, s, got[0])
		}
	}
	if s, _ := d.get("a", slow); s != got[0] {
		t.Error("key a built again instead of kept")
	}

	for _, tc := range []struct {
		name  string
		build func() (*Snapshot, *apierror.Error)
	}{
		{"fails", func() (*Snapshot, *apierror.Error) { return nil, apierror.New(500, apierror.CodeInternal, "no") }},
		{"panics", func() (*Snapshot, *apierror.Error) { panic("build") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			func() {
				defer func() { _ = recover() }()
				if s, e := d.get(tc.name, tc.build); s != nil || e == nil {
					t.Errorf("got %v, %v; want an error", s, e)
				}
			}()
			d.mu.Lock()
			_, kept := d.snaps[tc.name]
			d.mu.Unlock()
			if kept {
				t.Error("the failed build is kept")
			}
			if s, e := d.get(tc.name, func() (*Snapshot, *apierror.Error) { return &Snapshot{}, nil }); s == nil || e != nil {
				t.Errorf("the next query got %v, %v; want it built", s, e)
			}
		})
	}
	d.reset()
	if s, _ := d.get("a", func() (*Snapshot, *apierror.Error) { return nil, nil }); s != nil {
		t.Error("key a kept after reset")
	}
}

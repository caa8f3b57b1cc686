package service

import (
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestOnceCacheBuildsEachKeyOnce: callers of one key at the same time wait for one build; a
// caller of another key does not wait for it; a failed or panicking build is not kept (those
// waiting on a panicking one get lost), and the next caller builds again; reset forgets.
func TestOnceCacheBuildsEachKeyOnce(t *testing.T) {
	lost := errors.New("lost")
	var c onceCache[*int]
	release := make(chan struct{})
	var builds atomic.Int32
	slow := func() (*int, error) {
		builds.Add(1)
		<-release
		return new(int), nil
	}
	var wg sync.WaitGroup
	got := make([]*int, 8)
	for i := range got {
		wg.Go(func() { got[i], _ = c.get("a", slow, lost) })
	}
	for builds.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	other := make(chan *int)
	go func() {
		v, _ := c.get("b", func() (*int, error) { return new(int), nil }, lost)
		other <- v
	}()
	select {
	case v := <-other:
		if v == nil {
			t.Fatal("key b: no value")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a caller of key b waited for the build of key a")
	}
	close(release)
	wg.Wait()
	if n := builds.Load(); n != 1 {
		t.Errorf("key a built %d times, want once", n)
	}
	for i, v := range got {
		if v == nil || v != got[0] {
			t.Errorf("caller %d of key a got %p, want the one value %p", i, v, got[0])
		}
	}
	if v, _ := c.get("a", slow, lost); v != got[0] {
		t.Error("key a built again instead of kept")
	}

	failed := errors.New("no")
	for _, tc := range []struct {
		name    string
		build   func() (*int, error)
		waiters error // what those waiting on the build get
	}{
		{"fails", func() (*int, error) { return nil, failed }, failed},
		{"panics", func() (*int, error) { panic("build") }, lost},
	} {
		t.Run(tc.name, func(t *testing.T) {
			started, release := make(chan struct{}), make(chan struct{})
			go func() {
				defer func() { _ = recover() }()
				c.get(tc.name, func() (*int, error) { close(started); <-release; return tc.build() }, lost)
			}()
			<-started
			waiter := make(chan error)
			go func() {
				v, err := c.get(tc.name, func() (*int, error) { return new(int), nil }, lost)
				if v != nil {
					err = errors.New("a value")
				}
				waiter <- err
			}()
			time.Sleep(20 * time.Millisecond) // the waiter finds the build under way
			close(release)
			if err := <-waiter; err != tc.waiters {
				t.Errorf("the caller waiting on the build got %v, want %v", err, tc.waiters)
			}
			c.mu.Lock()
			_, kept := c.entries[tc.name]
			c.mu.Unlock()
			if kept {
				t.Error("the failed build is kept")
			}
			if v, err := c.get(tc.name, func() (*int, error) { return new(int), nil }, lost); v == nil || err != nil {
				t.Errorf("the next caller got %v, %v; want it built", v, err)
			}
		})
	}
	c.reset()
	if v, _ := c.get("a", func() (*int, error) { return nil, nil }, lost); v != nil {
		t.Error("key a kept after reset")
	}
}

// TestOnceCacheKeepsTheLastMax: with max 2, a third value built forgets the oldest, and a
// failed build takes no place.
func TestOnceCacheKeepsTheLastMax(t *testing.T) {
	c := onceCache[int]{max: 2}
	builds := map[string]int{}
	get := func(key string, fail bool) {
		c.get(key, func() (int, error) {
			builds[key]++
			if fail {
				return 0, errors.New("no")
			}
			return 1, nil
		}, nil)
	}
	for _, step := range []struct {
		key  string
		fail bool
	}{{"a", false}, {"b", false}, {"x", true}, {"a", false}, {"c", false}, {"b", false}, {"a", false}} {
		get(step.key, step.fail)
	}
	// a, b built; x failed (no place); a kept; c forgets a; b kept; a built again.
	if want := map[string]int{"a": 2, "b": 1, "c": 1, "x": 1}; !equalCounts(builds, want) {
		t.Errorf("builds %v, want %v", builds, want)
	}
	if len(c.entries) != 2 || len(c.order) != 2 {
		t.Errorf("keeps %d entries, %v; want 2", len(c.entries), c.order)
	}
}

func equalCounts(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

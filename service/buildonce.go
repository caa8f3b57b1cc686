package service

import (
	"slices"
	"sync"
)

// onceCache keeps values built by key. A value is built once however many callers ask for
// it at the same time: the others wait for that build, and callers of other keys wait for
// nothing. A build that fails or panics is not kept, so the next caller builds again; those
// waiting on it get its error, or lost when it panicked (the builder's own caller gets the
// panic). With max > 0 it keeps the max values built last, forgetting the oldest (a build
// under way takes no place, and one that fails none either).
type onceCache[V any] struct {
	mu      sync.Mutex
	max     int
	order   []string // the keys of the values built and kept, oldest first (with max > 0)
	entries map[string]*onceEntry[V]
}

// onceEntry is one value, built or being built (done is closed when the build ends).
type onceEntry[V any] struct {
	done chan struct{}
	v    V
	err  error
}

// get returns the value of key: the one kept or being built, else the one build makes now.
func (c *onceCache[V]) get(key string, build func() (V, error), lost error) (V, error) {
	c.mu.Lock()
	if e, ok := c.entries[key]; ok {
		c.mu.Unlock()
		<-e.done
		return e.v, e.err
	}
	e := &onceEntry[V]{done: make(chan struct{}), err: lost}
	if c.entries == nil {
		c.entries = map[string]*onceEntry[V]{}
	}
	c.entries[key] = e
	c.mu.Unlock()
	defer func() {
		close(e.done)
		c.settle(key, e)
	}()
	e.v, e.err = build()
	return e.v, e.err
}

// settle keeps e, the value of key just built, among the max kept, or drops it when its
// build failed; a reset since leaves it out either way.
func (c *onceCache[V]) settle(key string, e *onceEntry[V]) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries[key] != e {
		return
	}
	if e.err != nil {
		delete(c.entries, key)
		return
	}
	if c.max > 0 {
		if c.order = append(c.order, key); len(c.order) > c.max {
			delete(c.entries, c.order[0])
			c.order = slices.Delete(c.order, 0, 1)
		}
	}
}

// reset forgets every value (a build under way still ends for those waiting).
func (c *onceCache[V]) reset() {
	c.mu.Lock()
	c.entries, c.order = nil, nil
	c.mu.Unlock()
}

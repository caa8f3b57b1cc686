package service

import (
	"container/list"
	"sync"
)

// DefaultCacheBytes bounds the rendered responses kept in memory.
const DefaultCacheBytes = 64 << 20

// responseCache keeps rendered query responses, least recently used first out, within a
// byte budget. A response is a pure function of its key (capability, resolved as_of and the
// canonical params), and a served as_of never changes, so an entry never goes stale.
type responseCache struct {
	mu    sync.Mutex
	max   int
	size  int
	order *list.List // front: most recent
	items map[string]*list.Element
}

type cacheEntry struct {
	key  string
	body []byte
}

func newResponseCache(maxBytes int) *responseCache {
	return &responseCache{max: maxBytes, order: list.New(), items: map[string]*list.Element{}}
}

// SetCacheBytes sets the budget of the response cache; 0 turns it off (the benchmark
// harness times the work of each answer, not the cache).
func (s *Service) SetCacheBytes(n int) { s.cache = newResponseCache(n) }

func (c *responseCache) get(key string) ([]byte, bool) {
	if c.max <= 0 {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.items[key]; ok {
		c.order.MoveToFront(e)
		return e.Value.(*cacheEntry).body, true
	}
	return nil, false
}

func (c *responseCache) put(key string, body []byte) {
	n := len(key) + len(body)
	if n > c.max/8 {
		return // one answer may not crowd out the rest
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.items[key]; ok {
		return
	}
	c.items[key] = c.order.PushFront(&cacheEntry{key: key, body: body})
	c.size += n
	for c.size > c.max {
		last := c.order.Back()
		e := last.Value.(*cacheEntry)
		c.order.Remove(last)
		delete(c.items, e.key)
		c.size -= len(e.key) + len(e.body)
	}
}

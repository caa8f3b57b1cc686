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

// SetCacheBytes sets the budget of the response cache, and of the citation cache (each of
// its two generations an eighth of it); 0 turns both off (the benchmark harness times the
// work of each answer, not the caches).
func (s *Service) SetCacheBytes(n int) {
	s.cache = newResponseCache(n)
	s.cites = newCiteCache(n / 8)
}

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

// DefaultCiteCacheBytes bounds each of the two generations of rendered citations kept.
const DefaultCiteCacheBytes = 8 << 20

// citeCache keeps rendered aggregate citations by everything their rendering depends on
// (the snapshot, the query's filters and date ranges, the group's values, the source's
// file, row count, sample rows and sheets), so a citation that many answers share — the
// same group under the same filters, whatever the ranking or top_n — is rendered and hashed
// once. Two generations approximate least-recently-used: an entry found in the older one
// moves to the current one, and when the current one is full the older one is dropped.
type citeCache struct {
	mu       sync.Mutex
	max      int // bytes per generation; 0 turns the cache off
	size     int
	cur, old map[string]cachedCite
}

// cachedCite is one rendered citation: its id, its rendering, its verify row.
type cachedCite struct {
	id        citeID
	json      []byte
	verifyRow int
}

func newCiteCache(maxBytes int) *citeCache {
	return &citeCache{max: maxBytes, cur: map[string]cachedCite{}, old: map[string]cachedCite{}}
}

func (c *citeCache) get(key []byte) (cachedCite, bool) {
	if c == nil || c.max <= 0 {
		return cachedCite{}, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if v, ok := c.cur[string(key)]; ok {
		return v, true
	}
	if v, ok := c.old[string(key)]; ok {
		c.add(string(key), v)
		return v, true
	}
	return cachedCite{}, false
}

func (c *citeCache) put(key []byte, v cachedCite) {
	if c == nil || c.max <= 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.cur[string(key)]; !ok {
		c.add(string(key), v)
	}
}

func (c *citeCache) add(key string, v cachedCite) {
	n := len(key) + len(v.json) + 64
	if n > c.max {
		return
	}
	if c.size+n > c.max {
		c.old, c.cur, c.size = c.cur, map[string]cachedCite{}, 0
	}
	c.cur[key] = v
	c.size += n
}

package service

import (
	"strings"
	"testing"
)

func TestResponseCache(t *testing.T) {
	c := newResponseCache(100)
	put := func(k string, n int) { c.put(k, []byte(strings.Repeat("x", n))) }
	put("a", 9) // 10 bytes with its key
	put("b", 9)
	put("c", 9)
	if _, ok := c.get("a"); !ok { // a is now the most recent
		t.Fatal("a missing")
	}
	for i := 0; i < 7; i++ {
		put(string(rune('d'+i)), 9) // fills to 100 bytes
	}
	put("z", 9) // over budget: the least recent (b) goes
	if _, ok := c.get("b"); ok {
		t.Error("b should have been evicted")
	}
	for _, k := range []string{"a", "c", "z"} {
		if _, ok := c.get(k); !ok {
			t.Errorf("%s evicted", k)
		}
	}
	if c.size > c.max {
		t.Errorf("size %d over %d", c.size, c.max)
	}
	put("big", 50) // larger than an eighth of the budget: not kept
	if _, ok := c.get("big"); ok {
		t.Error("an oversized answer was cached")
	}
}

package service

import (
	"testing"

	"github.com/citeq/citeq/columnar"
)

// TestPlanMemory: the tables get half of a budget, the pages and answers a sixteenth each
// up to their defaults, the heap's limit what an eighth and the program's pages leave; no
// budget keeps the defaults and sets no limit.
func TestPlanMemory(t *testing.T) {
	const MiB = 1 << 20
	for _, c := range []struct {
		total int64
		want  MemoryPlan
	}{
		{0, MemoryPlan{Pages: columnar.DefaultPageCacheBytes, Responses: DefaultCacheBytes}},
		{256 * MiB, MemoryPlan{Total: 256 * MiB, Tables: 128 * MiB, Pages: 16 * MiB, Responses: 16 * MiB, GoLimit: 176 * MiB}},
		{DefaultMemoryBudget, MemoryPlan{Total: 1024 * MiB, Tables: 512 * MiB, Pages: 64 * MiB, Responses: 64 * MiB, GoLimit: 848 * MiB}},
		{4096 * MiB, MemoryPlan{Total: 4096 * MiB, Tables: 2048 * MiB, Pages: 64 * MiB, Responses: 64 * MiB, GoLimit: 3536 * MiB}},
		{64 * MiB, MemoryPlan{Total: 64 * MiB, Tables: 32 * MiB, Pages: 4 * MiB, Responses: 4 * MiB, GoLimit: 40 * MiB}},
	} {
		if got := PlanMemory(c.total); got != c.want {
			t.Errorf("PlanMemory(%d MiB) = %+v, want %+v", c.total/MiB, got, c.want)
		}
	}
}

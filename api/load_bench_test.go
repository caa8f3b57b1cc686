package api_test

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/citeq/citeq/access"
	"github.com/citeq/citeq/api"
	"github.com/citeq/citeq/internal/testenv"
	"github.com/citeq/citeq/service"
	"github.com/citeq/citeq/state"
)

// distinctBody is request n of the mix of bench/load/distinct.lua, drawn from r: lifecycle,
// dimension, metric, an optional state filter and top_n vary independently, so the response
// cache seldom answers it.
func distinctBody(n int, r *rand.Rand) string {
	dims := []string{"state", "technology", "energy_source_code", "prime_mover_code", "fuel_group", "status_code", "operating_year", "lifecycle"}
	lifecycles := []string{"operating", "planned", "retired", "canceled_or_postponed"}
	metrics := []string{"nameplate_mw", "net_summer_mw", "generator_count", "distinct_plant_count"}
	states := strings.Fields("AK AL AR AZ CA CO CT DC DE FL GA HI IA ID IL IN KS KY LA MA MD ME MI MN MO MS MT NC ND NE NH NJ NM NV NY OH OK OR PA RI SC SD TN TX UT VA VT WA WI WV WY")
	x := 1 + r.IntN(1000000)
	dim := dims[x%len(dims)]
	filters := fmt.Sprintf(`"lifecycle":%q`, lifecycles[(x/8)%len(lifecycles)])
	if dim != "state" && (x/32)%2 == 0 {
		filters += fmt.Sprintf(`,"state":%q`, states[(x/64)%len(states)])
	}
	return fmt.Sprintf(`{"as_of":"2016-05-31","filters":{%s},"group_by":[%q],"order_by":%q,"top_n":%d}`,
		filters, dim, metrics[(x/4096)%len(metrics)], 1+(n*7919+x)%100000)
}

// postDistinct posts request n of the mix through h and reports a status other than 200.
func postDistinct(b *testing.B, h http.Handler, secret string, n int, r *rand.Rand) bool {
	req := httptest.NewRequest(http.MethodPost, "/v1/power/capacity/query", strings.NewReader(distinctBody(n, r)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+secret)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	if w.Code != http.StatusOK {
		b.Errorf("status %d: %s", w.Code, w.Body)
		return false
	}
	return true
}

// loadHandler is the handler as citeq serve builds it: SQLite state store, a gate, and a
// logger that formats every request line (written nowhere).
func loadHandler(b *testing.B) (http.Handler, string) {
	b.Helper()
	svc, err := service.New(testenv.Data(b))
	if err != nil {
		b.Fatal(err)
	}
	store, err := state.Open(context.Background(), "", b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { store.Close() })
	secret, _, err := store.CreateKey(context.Background(), state.PlanAnnual, "load-test")
	if err != nil {
		b.Fatal(err)
	}
	log := zerolog.New(io.Discard).With().Timestamp().Logger()
	h, err := api.NewWith(svc, api.Config{Log: log, Gate: &access.Gate{Store: store}})
	if err != nil {
		b.Fatal(err)
	}
	return h, secret
}

// BenchmarkDistinctQueries replays the distinct.lua mix (POST /v1/power/capacity/query on
// an annual key) through the whole HTTP handler, in process.
func BenchmarkDistinctQueries(b *testing.B) {
	h, secret := loadHandler(b)
	r := rand.New(rand.NewPCG(1, 2))
	var n int
	b.ReportAllocs()
	b.ResetTimer()
	cpu := processCPU()
	defer func() { reportCPU(b, cpu) }()
	for b.Loop() {
		n++
		if !postDistinct(b, h, secret, n, r) {
			b.FailNow()
		}
	}
}

// BenchmarkDistinctQueriesParallel is BenchmarkDistinctQueries from GOMAXPROCS goroutines,
// which also shows contention (the state store, the response cache, metrics).
func BenchmarkDistinctQueriesParallel(b *testing.B) {
	h, secret := loadHandler(b)
	var seq atomic.Int64
	b.ReportAllocs()
	b.ResetTimer()
	cpu := processCPU()
	defer func() { reportCPU(b, cpu) }()
	b.RunParallel(func(pb *testing.PB) {
		r := rand.New(rand.NewPCG(uint64(seq.Add(1)), 2))
		for pb.Next() {
			if !postDistinct(b, h, secret, int(seq.Add(1)), r) {
				return
			}
		}
	})
}

// processCPU is the CPU time the process has used, user and system: unlike wall time it
// hardly depends on what else the machine runs.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU reports the process CPU time per operation since start as cpu-ns/op.
func reportCPU(b *testing.B, start time.Duration) {
	if b.N > 0 {
		b.ReportMetric(float64(processCPU()-start)/float64(b.N), "cpu-ns/op")
	}
}

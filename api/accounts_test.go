package api_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/rs/zerolog"

	"github.com/citeq/citeq/access"
	"github.com/citeq/citeq/api"
	"github.com/citeq/citeq/internal/testenv"
	"github.com/citeq/citeq/service"
	"github.com/citeq/citeq/state"
	"github.com/citeq/citeq/webhooks"
)

// gated serves the ingested data with accounts on the state store dsn ("" = SQLite in dir).
func gated(t *testing.T, dsn, dir string, insecure bool) (*httptest.Server, state.Store) {
	t.Helper()
	return gatedBy(t, dsn, dir, webhooks.Guard{AllowInsecure: insecure}, func(s state.Store) *access.Gate { return &access.Gate{Store: s} })
}

// gatedBy is gated with the gate gate makes on the store.
func gatedBy(t *testing.T, dsn, dir string, guard webhooks.Guard, gate func(state.Store) *access.Gate) (*httptest.Server, state.Store) {
	t.Helper()
	svc, err := service.New(testenv.Data(t))
	if err != nil {
		t.Fatal(err)
	}
	store, err := state.Open(context.Background(), dsn, dir)
	if err != nil {
		t.Fatal(err)
	}
	h, err := api.NewWith(svc, api.Config{Log: zerolog.Nop(), Gate: gate(store), Guard: guard})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(func() { srv.Close(); store.Close() })
	return srv, store
}

func request(t *testing.T, method, url, key, body string) (*http.Response, []byte) {
	t.Helper()
	return testenv.Do(t, method, url, key, body)
}

const q = "/v1/power/capacity/query"

// burst sends n concurrent queries with key and returns how many got 200 and 402, and the
// remaining-queries headers of the successes.
func burst(t *testing.T, urls []string, key string, n int) (ok, paid int, remaining []int) {
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			resp, body := request(t, "POST", urls[i%len(urls)]+q, key, `{"filters":{"state":"RI"}}`)
			mu.Lock()
			defer mu.Unlock()
			switch resp.StatusCode {
			case 200:
				ok++
				r, _ := strconv.Atoi(resp.Header.Get(access.RemainingHeader))
				remaining = append(remaining, r)
			case 402:
				paid++
				var e errorBody
				json.Unmarshal(body, &e)
				if e.Error.Code != "payment_required" || !strings.Contains(e.Error.Message, "49 USD") || !strings.Contains(e.Error.Message, "490 USD") {
					t.Errorf("402 body %s", body)
				}
			default:
				t.Errorf("status %d: %s", resp.StatusCode, body)
			}
		}(i)
	}
	wg.Wait()
	return
}

func TestFreeQuota(t *testing.T) {
	for name, dsn := range testenv.StateDSNs(t) {
		t.Run(name, func(t *testing.T) {
			d := dsn(t)
			dir := t.TempDir()
			srv, store := gated(t, d, dir, false)
			ctx := context.Background()
			free, _, err := store.CreateKey(ctx, state.PlanFree, "test")
			if err != nil {
				t.Fatal(err)
			}
			t.Run("100 concurrent queries with a fresh key: exactly 25 succeed", func(t *testing.T) {
				ok, paid, rem := burst(t, []string{srv.URL}, free, 100)
				if ok != 25 || paid != 75 {
					t.Fatalf("%d succeeded, %d payment_required", ok, paid)
				}
				seen := map[int]bool{}
				for _, r := range rem {
					seen[r] = true
				}
				if len(seen) != 25 || !seen[0] || !seen[24] {
					t.Errorf("remaining headers %v", rem)
				}
			})
			t.Run("without a key: counted per client address on the same terms", func(t *testing.T) {
				ok, paid, _ := burst(t, []string{srv.URL}, "", 100)
				if ok != 25 || paid != 75 {
					t.Fatalf("%d succeeded, %d payment_required", ok, paid)
				}
			})
			t.Run("discover, describe and verify stay free", func(t *testing.T) {
				for _, p := range []string{"/v1/capabilities", "/v1/power/capacity/schema", "/v1/health"} {
					if resp, _ := request(t, "GET", srv.URL+p, free, ""); resp.StatusCode != 200 {
						t.Errorf("%s: %d", p, resp.StatusCode)
					}
				}
				_, body := request(t, "POST", srv.URL+q, "", `{}`) // over quota: 402
				var e errorBody
				json.Unmarshal(body, &e)
				if e.Error.Code != "payment_required" {
					t.Fatalf("%s", body)
				}
			})
			t.Run("invalid queries are not counted", func(t *testing.T) {
				k, _, _ := store.CreateKey(ctx, state.PlanFree, "")
				for i := 0; i < 5; i++ {
					request(t, "POST", srv.URL+q, k, `{"filters":{"state":"ZZ"}}`)
				}
				resp, _ := request(t, "POST", srv.URL+q, k, `{}`)
				if resp.Header.Get(access.RemainingHeader) != "24" {
					t.Errorf("remaining %q after 5 invalid and 1 valid", resp.Header.Get(access.RemainingHeader))
				}
			})
			t.Run("paid keys are not limited", func(t *testing.T) {
				for _, plan := range []string{state.PlanMonthly, state.PlanAnnual} {
					k, _, _ := store.CreateKey(ctx, plan, "")
					ok, paid, _ := burst(t, []string{srv.URL}, k, 40)
					if ok != 40 || paid != 0 {
						t.Errorf("%s: %d ok %d refused", plan, ok, paid)
					}
				}
				// Upgrading an exhausted free key lifts the limit.
				keys, _ := store.ListKeys(ctx)
				if err := store.SetPlan(ctx, keys[0].ID, state.PlanMonthly); err != nil {
					t.Fatal(err)
				}
				resp, _ := request(t, "POST", srv.URL+q, free, `{}`)
				if resp.StatusCode != 200 || resp.Header.Get(access.RemainingHeader) != "unlimited" {
					t.Errorf("upgraded key: %d %q", resp.StatusCode, resp.Header.Get(access.RemainingHeader))
				}
			})
			t.Run("bad keys", func(t *testing.T) {
				revoked, rk, _ := store.CreateKey(ctx, state.PlanFree, "")
				store.RevokeKey(ctx, rk.ID)
				for key, code := range map[string]string{"cq_nope_nope": "invalid_api_key", "garbage": "invalid_api_key", revoked: "api_key_revoked"} {
					resp, body := request(t, "POST", srv.URL+q, key, `{}`)
					var e errorBody
					json.Unmarshal(body, &e)
					if resp.StatusCode != 401 || e.Error.Code != code {
						t.Errorf("key %q: %d %s", key, resp.StatusCode, body)
					}
				}
			})
			t.Run("counts survive a restart", func(t *testing.T) {
				k, _, _ := store.CreateKey(ctx, state.PlanFree, "")
				for i := 0; i < 10; i++ {
					request(t, "POST", srv.URL+q, k, `{}`)
				}
				srv2, _ := gated(t, d, dir, false) // a second server on the same store, as after a restart
				resp, _ := request(t, "POST", srv2.URL+q, k, `{}`)
				if got := resp.Header.Get(access.RemainingHeader); got != "14" {
					t.Errorf("remaining after restart %q, want 14", got)
				}
			})
		})
	}
}

// TestQuotaAcrossReplicas: two servers sharing one PostgreSQL grant exactly 25 free queries
// between them.
func TestQuotaAcrossReplicas(t *testing.T) {
	dsn := testenv.FreshPostgres(t)
	a, store := gated(t, dsn, t.TempDir(), false)
	b, _ := gated(t, dsn, t.TempDir(), false)
	key, _, err := store.CreateKey(context.Background(), state.PlanFree, "")
	if err != nil {
		t.Fatal(err)
	}
	ok, paid, _ := burst(t, []string{a.URL, b.URL}, key, 100)
	if ok != 25 || paid != 75 {
		t.Fatalf("%d succeeded, %d payment_required", ok, paid)
	}
}

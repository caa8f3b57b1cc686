package api_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/citeq/citeq/api"
	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/internal/testenv"
	"github.com/citeq/citeq/state"
)

func TestWebhookEndpoints(t *testing.T) {
	const subs = "/v1/webhooks/subscriptions"
	for name, dsn := range testenv.StateDSNs(t) {
		t.Run(name, func(t *testing.T) {
			srv, store := gated(t, dsn(t), t.TempDir(), false)
			ctx := context.Background()
			alice, _, _ := store.CreateKey(ctx, state.PlanMonthly, "alice")
			bob, _, _ := store.CreateKey(ctx, state.PlanFree, "bob")
			revoked, rk, _ := store.CreateKey(ctx, state.PlanFree, "")
			store.RevokeKey(ctx, rk.ID)
			good := `{"data_point":"power.capacity","callback_url":"https://93.184.216.34/hooks/citeq"}`

			type call struct {
				name, method, path, key, body string
				status                        int
				code                          string
			}
			calls := []call{
				{"create without key", "POST", subs, "", good, 401, "api_key_required"},
				{"list without key", "GET", subs, "", "", 401, "api_key_required"},
				{"delete without key", "DELETE", subs + "/sub_x", "", "", 401, "api_key_required"},
				{"bad key", "POST", subs, "cq_0123456789ab_" + strings.Repeat("0", 32), good, 401, "invalid_api_key"},
				{"revoked key", "GET", subs, revoked, "", 401, "api_key_revoked"},
				{"malformed JSON", "POST", subs, alice, `{"data_point":`, 400, "invalid_request"},
				{"unknown member", "POST", subs, alice, `{"data_point":"power.capacity","callback_url":"https://93.184.216.34/","colour":1}`, 400, "invalid_request"},
				{"no data point", "POST", subs, alice, `{"callback_url":"https://93.184.216.34/"}`, 400, "invalid_request"},
				{"unknown data point", "POST", subs, alice, `{"data_point":"power.nothing","callback_url":"https://93.184.216.34/"}`, 400, "invalid_request"},
				{"defined but unserved data point", "POST", subs, alice, `{"data_point":"space.satellite_filings","callback_url":"https://93.184.216.34/"}`, 400, "invalid_request"},
				{"derived data point", "POST", subs, alice, `{"data_point":"power.capacity_factor","callback_url":"https://93.184.216.34/"}`, 400, "invalid_request"},
				{"http callback", "POST", subs, alice, `{"data_point":"power.capacity","callback_url":"http://93.184.216.34/"}`, 400, "invalid_request"},
				{"relative callback", "POST", subs, alice, `{"data_point":"power.capacity","callback_url":"/hooks"}`, 400, "invalid_request"},
				{"loopback", "POST", subs, alice, `{"data_point":"power.capacity","callback_url":"https://127.0.0.1/h"}`, 400, "invalid_request"},
				{"private", "POST", subs, alice, `{"data_point":"power.capacity","callback_url":"https://10.0.0.1/h"}`, 400, "invalid_request"},
				{"link-local metadata", "POST", subs, alice, `{"data_point":"power.capacity","callback_url":"https://169.254.169.254/latest/meta-data"}`, 400, "invalid_request"},
				{"IPv6 loopback", "POST", subs, alice, `{"data_point":"power.capacity","callback_url":"https://[::1]:8443/h"}`, 400, "invalid_request"},
				{"IPv6 unique-local", "POST", subs, alice, `{"data_point":"power.capacity","callback_url":"https://[fd00::1]/h"}`, 400, "invalid_request"},
				{"multicast", "POST", subs, alice, `{"data_point":"power.capacity","callback_url":"https://224.0.0.1/h"}`, 400, "invalid_request"},
				{"unspecified", "POST", subs, alice, `{"data_point":"power.capacity","callback_url":"https://0.0.0.0/h"}`, 400, "invalid_request"},
				{"name resolving to loopback", "POST", subs, alice, `{"data_point":"power.capacity","callback_url":"https://localhost/h"}`, 400, "invalid_request"},
				{"IPv4-mapped loopback", "POST", subs, alice, `{"data_point":"power.capacity","callback_url":"https://[::ffff:127.0.0.1]/h"}`, 400, "invalid_request"},
				{"NAT64 loopback", "POST", subs, alice, `{"data_point":"power.capacity","callback_url":"https://[64:ff9b::7f00:1]/h"}`, 400, "invalid_request"},
				{"6to4 private", "POST", subs, alice, `{"data_point":"power.capacity","callback_url":"https://[2002:a00:1::1]/h"}`, 400, "invalid_request"},
				{"IPv4-compatible loopback", "POST", subs, alice, `{"data_point":"power.capacity","callback_url":"https://[::127.0.0.1]/h"}`, 400, "invalid_request"},
				{"callback URL too long", "POST", subs, alice, `{"data_point":"power.capacity","callback_url":"https://93.184.216.34/` + strings.Repeat("a", 3000) + `"}`, 400, "invalid_request"},
				{"trailing JSON", "POST", subs, alice, good + `{"data_point":"natural_gas.prices"}`, 400, "invalid_request"},
				{"trailing garbage", "POST", subs, alice, good + ` xyz`, 400, "invalid_request"},
			}
			for _, c := range calls {
				resp, body := request(t, c.method, srv.URL+c.path, c.key, c.body)
				var e errorBody
				json.Unmarshal(body, &e)
				if resp.StatusCode != c.status || e.Error.Code != c.code || e.Error.Message == "" {
					t.Errorf("%s: %d %s, want %d %s", c.name, resp.StatusCode, body, c.status, c.code)
				}
			}

			// Create, list (own only), delete (own only).
			type created struct {
				ID, Secret string
			}
			create := func(key, body string) created {
				resp, b := request(t, "POST", srv.URL+subs, key, body)
				var r struct {
					ID     string `json:"id"`
					Secret string `json:"signing_secret"`
				}
				json.Unmarshal(b, &r)
				if resp.StatusCode != 200 || !strings.HasPrefix(r.ID, "sub_") || r.Secret == "" {
					t.Fatalf("create: %d %s", resp.StatusCode, b)
				}
				return created{r.ID, r.Secret}
			}
			a1 := create(alice, good)
			a2 := create(alice, `{"data_point":"natural_gas.prices","callback_url":"https://93.184.216.34/other?team=grid&env=prod"}`)
			b1 := create(bob, good)
			list := func(key string) []string {
				_, b := request(t, "GET", srv.URL+subs, key, "")
				if strings.Contains(string(b), "whsec_") {
					t.Error("a listing reveals a signing secret")
				}
				var r struct {
					Subscriptions []struct {
						ID string `json:"id"`
					} `json:"subscriptions"`
				}
				json.Unmarshal(b, &r)
				var ids []string
				for _, s := range r.Subscriptions {
					ids = append(ids, s.ID)
				}
				return ids
			}
			if got := list(alice); len(got) != 2 || got[0] != a1.ID || got[1] != a2.ID {
				t.Errorf("alice lists %v", got)
			}
			// The listing is written as every answer is: the callback's query string keeps its
			// & as sent, not escaped as \u0026.
			if _, b := request(t, "GET", srv.URL+subs, alice, ""); !strings.Contains(string(b), `"https://93.184.216.34/other?team=grid&env=prod"`) {
				t.Errorf("the listing does not give the callback URL as sent: %s", b)
			}
			if got := list(bob); len(got) != 1 || got[0] != b1.ID {
				t.Errorf("bob lists %v", got)
			}
			for _, c := range []call{
				{"delete another key's", "DELETE", subs + "/" + b1.ID, alice, "", 404, "subscription_not_found"},
				{"delete unknown", "DELETE", subs + "/sub_0000", alice, "", 404, "subscription_not_found"},
			} {
				resp, body := request(t, c.method, srv.URL+c.path, c.key, c.body)
				var e errorBody
				json.Unmarshal(body, &e)
				if resp.StatusCode != c.status || e.Error.Code != c.code {
					t.Errorf("%s: %d %s", c.name, resp.StatusCode, body)
				}
			}
			resp, body := request(t, "DELETE", srv.URL+subs+"/"+a1.ID, alice, "")
			var del struct {
				ID      string `json:"id"`
				Deleted bool   `json:"deleted"`
			}
			json.Unmarshal(body, &del)
			if resp.StatusCode != 200 || del.ID != a1.ID || !del.Deleted {
				t.Errorf("delete: %d %s", resp.StatusCode, body)
			}
			if resp, _ := request(t, "DELETE", srv.URL+subs+"/"+a1.ID, alice, ""); resp.StatusCode != 404 {
				t.Errorf("second delete: %d", resp.StatusCode)
			}
			if got := list(alice); len(got) != 1 || got[0] != a2.ID {
				t.Errorf("alice lists %v after delete", got)
			}
		})
	}
}

func TestSubDailyNotEligible(t *testing.T) {
	for cadence, sub := range map[capability.Cadence]bool{capability.Hourly: true, capability.SubHourly: true, capability.Daily: false,
		capability.Weekly: false, capability.Monthly: false, capability.Quarterly: false, capability.Annual: false, capability.Irregular: false} {
		if got := api.SubDaily(&capability.Capability{ID: "x", Cadence: cadence}); got != sub {
			t.Errorf("cadence %s: sub-daily %v", cadence, got)
		}
	}
	for _, c := range capability.All() {
		if !c.Cadence.Valid() {
			t.Errorf("%s declares no valid cadence", c.ID)
		}
	}
}

// TestSubscriptionCapAndPages: one key holds at most state.MaxSubscriptionsPerKey
// subscriptions, even when it creates them all at once; its listing comes in pages.
func TestSubscriptionCapAndPages(t *testing.T) {
	const subs = "/v1/webhooks/subscriptions"
	for name, dsn := range testenv.StateDSNs(t) {
		t.Run(name, func(t *testing.T) {
			srv, store := gated(t, dsn(t), t.TempDir(), false)
			key, _, _ := store.CreateKey(context.Background(), state.PlanMonthly, "carol")
			const tries = state.MaxSubscriptionsPerKey + 20
			var wg sync.WaitGroup
			var mu sync.Mutex
			status := map[int]int{}
			for i := 0; i < tries; i++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					resp, b := request(t, "POST", srv.URL+subs, key, fmt.Sprintf(`{"data_point":"power.capacity","callback_url":"https://93.184.216.34/h/%d"}`, i))
					mu.Lock()
					defer mu.Unlock()
					status[resp.StatusCode]++
					if resp.StatusCode == 409 && !strings.Contains(string(b), `"subscription_limit_reached"`) {
						t.Errorf("409 without its code: %s", b)
					}
				}()
			}
			wg.Wait()
			if status[200] != state.MaxSubscriptionsPerKey || status[409] != tries-state.MaxSubscriptionsPerKey {
				t.Fatalf("statuses %v, want %d created and %d refused", status, state.MaxSubscriptionsPerKey, tries-state.MaxSubscriptionsPerKey)
			}
			seen := map[string]bool{}
			after, pages := "", 0
			for {
				path := subs + "?limit=30"
				if after != "" {
					path += "&after=" + after
				}
				resp, b := request(t, "GET", srv.URL+path, key, "")
				var page struct {
					Subscriptions []struct {
						ID string `json:"id"`
					} `json:"subscriptions"`
					NextAfter string `json:"next_after"`
				}
				if err := json.Unmarshal(b, &page); err != nil || resp.StatusCode != 200 {
					t.Fatalf("page %d: %d %s", pages, resp.StatusCode, b)
				}
				pages++
				if len(page.Subscriptions) > 30 {
					t.Fatalf("page of %d", len(page.Subscriptions))
				}
				for _, s := range page.Subscriptions {
					if seen[s.ID] {
						t.Fatalf("%s listed twice", s.ID)
					}
					seen[s.ID] = true
				}
				if page.NextAfter == "" {
					break
				}
				after = page.NextAfter
			}
			if len(seen) != state.MaxSubscriptionsPerKey || pages != 4 {
				t.Errorf("%d subscriptions in %d pages", len(seen), pages)
			}
			for _, bad := range []string{"?limit=0", "?limit=1000", "?limit=x", "?after=sub_nope", "?limit=%ZZ"} {
				if resp, b := request(t, "GET", srv.URL+subs+bad, key, ""); resp.StatusCode != 400 || !strings.Contains(string(b), "invalid_parameter") {
					t.Errorf("%s: %d %s", bad, resp.StatusCode, b)
				}
			}
		})
	}
}

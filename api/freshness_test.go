package api

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/internal/oacheck"
	"github.com/citeq/citeq/service"
)

// TestFreshness: with a FreshnessFunc set, /v1/capabilities and the schema say how fresh each
// capability is (conforming to the OpenAPI document), a capability with a stale source is
// stale with the reason, an answer over its latest snapshot carries a stale note (and loses it
// once the source is fresh again, the cache notwithstanding), an answer pinned to a date does
// not, and a served source no loop checks says why instead of being judged.
func TestFreshness(t *testing.T) {
	s := openAPIService(t)
	checked := time.Date(2026, 11, 20, 16, 0, 0, 0, time.UTC)
	var stale atomic.Bool
	stale.Store(true)
	s.SetFreshness(func(c *capability.Capability) (service.Freshness, bool) {
		fr := service.Freshness{Running: true, Unchecked: func(id string) string {
			if id == "eia930" {
				return "the CSV came from a retired query browser: no address to check"
			}
			return ""
		}}
		if c.ID != capability.PowerCapacity.ID {
			return fr, true
		}
		src := service.SourceFreshness{SourceID: "eia860m", Publisher: "U.S. Energy Information Administration", Cadence: capability.Monthly,
			Check: "daily at 16:00 UTC", Addresses: []string{"https://www.eia.gov/electricity/data/eia860m/xls/november_generator2026.xlsx"},
			LastChecked: checked, LastSucceeded: checked.Add(-72 * time.Hour), LastChanged: time.Date(2016, 6, 24, 0, 0, 0, 0, time.UTC),
			NextCheck: checked.Add(time.Minute)}
		if stale.Load() {
			src.Failures, src.LastError, src.Stale = 3, "the server answered 503", "3 checks in a row failed"
		}
		fr.Sources = []service.SourceFreshness{src}
		return fr, true
	})
	doc := oacheck.Decode(t, OpenAPI(s))
	check := oacheck.Checker(t, doc)
	check("capabilities", "Capabilities", s.Capabilities())

	var caps struct {
		Capabilities []struct {
			ID        string          `json:"capability"`
			Freshness json.RawMessage `json:"freshness"`
		} `json:"capabilities"`
	}
	json.Unmarshal(s.Capabilities(), &caps)
	got := map[string]string{}
	for _, c := range caps.Capabilities {
		got[c.ID] = string(c.Freshness)
	}
	if f := got["power.capacity"]; !strings.Contains(f, `"stale":true,"stale_reasons":["eia860m: 3 checks in a row failed"]`) ||
		!strings.Contains(f, `"last_checked":"2026-11-20T16:00:00Z","last_changed":"2016-06-24T00:00:00Z","next_check":"2026-11-20T16:01:00Z"`) {
		t.Errorf("power.capacity freshness: %s", f)
	}
	if f := got["power.demand"]; !strings.Contains(f, `"stale":false`) || !strings.Contains(f, `"source_id":"eia930"`) ||
		!strings.Contains(f, `"checked":false,"reason":"the CSV came from a retired query browser: no address to check; it is not checked`) {
		t.Errorf("power.demand freshness: %s", f)
	}
	if f := got["power.asset_ownership"]; !strings.Contains(f, `"checked":false,"reason":"no official address to check: its files are placed in the raw directory by hand`) {
		t.Errorf("power.asset_ownership freshness (no source declared here): %s", f)
	}
	b, e := s.Schema("power/capacity")
	if e != nil {
		t.Fatal(e)
	}
	check("power.capacity schema", "CapabilitySchema", b)
	if !strings.Contains(string(b), `"freshness":{"sync":"running`) {
		t.Errorf("the schema has no freshness member")
	}

	latest, e := s.QueryJSON(context.Background(), "power/capacity", []byte(`{"group_by":["lifecycle"]}`))
	if e != nil {
		t.Fatal(e)
	}
	check("latest answer", oaSchemaPrefix(capability.PowerCapacity)+"QueryResponse", latest)
	if !strings.Contains(string(latest), `{"code":"stale","sources":["eia860m"],"message":"power.capacity may be out of date: eia860m: 3 checks in a row failed. This answer is from as_of 2016-05-31`) {
		t.Errorf("the latest answer of a stale capability has no stale note: %.600s", latest)
	}
	pinned, e := s.QueryJSON(context.Background(), "power/capacity", []byte(`{"group_by":["lifecycle"],"as_of":"2016-05-31"}`))
	if e != nil {
		t.Fatal(e)
	}
	if strings.Contains(string(pinned), `"code":"stale"`) {
		t.Errorf("an answer pinned to a date has a stale note")
	}
	if strings.Replace(string(latest), `,{"code":"stale"`, "", 1) == string(latest) {
		t.Fatal("no note to take out")
	}
	stale.Store(false)
	fresh, _ := s.QueryJSON(context.Background(), "power/capacity", []byte(`{"group_by":["lifecycle"]}`))
	if strings.Contains(string(fresh), `"code":"stale"`) {
		t.Errorf("the stale note outlived the staleness (cached answer)")
	}
	if !strings.Contains(string(fresh), `"as_of":"2016-05-31"`) {
		t.Errorf("fresh answer: %.300s", fresh)
	}

	// Without a FreshnessFunc nothing is said of freshness.
	s.SetFreshness(nil)
	if strings.Contains(string(s.Capabilities()), `"freshness"`) {
		t.Errorf("freshness without a FreshnessFunc")
	}
}

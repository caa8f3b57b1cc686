package api_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/citeq/citeq/internal/testenv"
)

// TestServerCard: /.well-known/mcp names the endpoint, the protocol revisions the endpoint's
// own server/discover answers with, bearer keys and the free quota; /v1/capabilities links it.
func TestServerCard(t *testing.T) {
	srv := newServer(t, testenv.Data(t))
	status, body := get(t, srv, "/.well-known/mcp")
	var card struct {
		Endpoint  string                  `json:"endpoint"`
		Versions  []string                `json:"protocol_versions"`
		Auth      struct{ Scheme string } `json:"authentication"`
		FreeQuota struct {
			Queries int `json:"queries"`
		} `json:"free_quota"`
	}
	if err := json.Unmarshal(body, &card); status != 200 || err != nil {
		t.Fatalf("%d %s", status, body)
	}
	if card.Endpoint != "/mcp" || card.Auth.Scheme != "bearer" || card.FreeQuota.Queries != 25 || len(card.Versions) < 2 || card.Versions[0] != "2026-07-28" {
		t.Errorf("server card: %s", body)
	}
	status, text := testenv.Discover(t, srv.URL+card.Endpoint)
	var disc struct {
		Result struct {
			Versions []string `json:"supportedVersions"`
		} `json:"result"`
	}
	json.Unmarshal(text, &disc)
	if status != 200 || strings.Join(disc.Result.Versions, ",") != strings.Join(card.Versions, ",") {
		t.Errorf("server/discover at the card's endpoint: %d %s", status, text)
	}
	_, caps := get(t, srv, "/v1/capabilities")
	if !strings.Contains(string(caps), `"server_card":"/.well-known/mcp"`) {
		t.Error("/v1/capabilities does not link the server card")
	}
}

// TestJoinKeys: /v1/capabilities and each schema state the join keys the definitions
// declare: power.capacity's state, county FIPS, balancing authority and plant id as keys and
// its county as a name only; the trade capabilities' HS code.
func TestJoinKeys(t *testing.T) {
	srv := newServer(t, testenv.Data(t))
	_, body := get(t, srv, "/v1/capabilities")
	var cat struct {
		Capabilities []struct {
			ID       string `json:"capability"`
			JoinKeys struct {
				Keys      map[string]string `json:"keys"`
				NamesOnly map[string]struct {
					Names  string `json:"names"`
					JoinOn string `json:"join_on"`
				} `json:"names_only"`
			} `json:"join_keys"`
		} `json:"capabilities"`
		Vocabulary map[string]struct {
			Description string `json:"description"`
		} `json:"join_key_vocabulary"`
	}
	if err := json.Unmarshal(body, &cat); err != nil {
		t.Fatal(err)
	}
	by := map[string]map[string]string{}
	for _, c := range cat.Capabilities {
		by[c.ID] = c.JoinKeys.Keys
		for field, k := range c.JoinKeys.Keys {
			if cat.Vocabulary[k].Description == "" {
				t.Errorf("%s.%s: key %s not in the vocabulary", c.ID, field, k)
			}
		}
		if c.ID == "power.capacity" && c.JoinKeys.NamesOnly["county"].JoinOn != "county_fips" {
			t.Errorf("power.capacity county: %+v", c.JoinKeys.NamesOnly)
		}
	}
	for capID, want := range map[string]map[string]string{
		"power.capacity":             {"state": "state", "county_fips": "county_fips", "balancing_authority_code": "balancing_authority", "eia_plant_id": "eia_plant_id"},
		"power.generation":           {"state": "state", "eia_plant_id": "eia_plant_id"},
		"ai_infrastructure.trade":    {"commodity": "hs_code"},
		"power.capacity_market_miso": {"iso": "iso"},
	} {
		for f, k := range want {
			if by[capID][f] != k {
				t.Errorf("%s.%s: join key %q, want %q", capID, f, by[capID][f], k)
			}
		}
	}
	_, schema := get(t, srv, "/v1/power/capacity/schema")
	if !strings.Contains(string(schema), `"join_keys":{"keys":{"eia_plant_id":"eia_plant_id"`) || !strings.Contains(string(schema), `"name":"county_fips","type":"string"`) {
		t.Errorf("schema lacks the join keys")
	}
}

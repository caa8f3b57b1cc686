package api_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/citeq/citeq/api"
)

// FuzzSubscriptionBody: no webhook body crashes the parser; one it accepts is exactly one
// JSON object with no member but data_point and callback_url.
func FuzzSubscriptionBody(f *testing.F) {
	for _, seed := range []string{
		`{"data_point":"power.capacity","callback_url":"https://93.184.216.34/h"}`,
		`{"data_point":"power.capacity","callback_url":"https://93.184.216.34/h"}{"x":1}`,
		`{"data_point":"power.capacity","callback_url":"https://93.184.216.34/h"} xyz`,
		`{"data_point":1}`, `{"colour":"red"}`, `[]`, `null`, ``, `{}`, "{\"data_point\":\"\xff\"}",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		req, e := api.ParseSubscription(body)
		if e != nil {
			if e.Status != 400 || e.Code == "" || e.Message == "" {
				t.Fatalf("error %+v", e)
			}
			return
		}
		dec := json.NewDecoder(bytes.NewReader(body))
		var v map[string]json.RawMessage
		if err := dec.Decode(&v); err != nil && string(bytes.TrimSpace(body)) != "null" {
			t.Fatalf("accepted %q, which is not a JSON object (%v): %+v", body, err, req)
		}
		for k := range v {
			if k != "data_point" && k != "callback_url" {
				t.Fatalf("accepted member %q", k)
			}
		}
		if dec.More() {
			t.Fatalf("accepted trailing data: %q", body)
		}
	})
}

package webhooks_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/citeq/citeq/internal/testenv"
	"github.com/citeq/citeq/state"
	"github.com/citeq/citeq/webhooks"
)

// receiver is an independent webhook receiver: it checks each signature with its own HMAC
// code and de-duplicates by event id.
type receiver struct {
	t      *testing.T
	secret string
	mu     sync.Mutex
	fail   int // answer 500 to this many requests first
	got    []map[string]any
	seen   map[string]int
	bad    int
}

func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if rc.fail > 0 {
		rc.fail--
		w.WriteHeader(500)
		return
	}
	sig := r.Header.Get("X-Service-Signature")
	parts := map[string]string{}
	for _, p := range strings.Split(sig, ",") {
		k, v, _ := strings.Cut(p, "=")
		parts[k] = v
	}
	mac := hmac.New(sha256.New, []byte(rc.secret))
	mac.Write([]byte(parts["t"] + "." + string(body)))
	if !hmac.Equal([]byte(hex.EncodeToString(mac.Sum(nil))), []byte(parts["v1"])) {
		rc.bad++
		w.WriteHeader(400)
		return
	}
	ts, _ := strconv.ParseInt(parts["t"], 10, 64)
	if time.Since(time.Unix(ts, 0)).Abs() > 5*time.Minute {
		rc.bad++
	}
	id := r.Header.Get("X-Service-Event-Id")
	if rc.seen == nil {
		rc.seen = map[string]int{}
	}
	rc.seen[id]++
	if rc.seen[id] == 1 {
		var m map[string]any
		json.Unmarshal(body, &m)
		if m["id"] != id {
			rc.bad++
		}
		rc.got = append(rc.got, m)
	}
	w.WriteHeader(204)
}

func open(t *testing.T, dsn string) state.Store {
	t.Helper()
	st, err := state.Open(context.Background(), dsn, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// drain runs the worker until no delivery is pending or the deadline passes.
func drain(t *testing.T, w *webhooks.Worker, st state.Store, key string, deadline time.Duration) []state.Delivery {
	t.Helper()
	ctx := context.Background()
	end := time.Now().Add(deadline)
	for time.Now().Before(end) {
		w.RunOnce(ctx)
		ds, _ := st.ListDeliveries(ctx, key, 100)
		pending := false
		for _, d := range ds {
			pending = pending || d.Status == state.DeliveryPending
		}
		if !pending {
			return ds
		}
		time.Sleep(10 * time.Millisecond)
	}
	ds, _ := st.ListDeliveries(ctx, key, 100)
	return ds
}

func TestDeliveries(t *testing.T) {
	for name, dsn := range testenv.StateDSNs(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			st := open(t, dsn(t))
			rc := &receiver{t: t, fail: 3}
			srv := httptest.NewServer(rc)
			defer srv.Close()
			_, key, _ := st.CreateKey(ctx, state.PlanMonthly, "")
			sub, err := st.CreateSubscription(ctx, key.ID, "power.capacity", srv.URL+"/hook")
			if err != nil {
				t.Fatal(err)
			}
			rc.secret = sub.Secret
			_, other, _ := st.CreateKey(ctx, state.PlanMonthly, "")
			st.CreateSubscription(ctx, other.ID, "natural_gas.prices", srv.URL+"/other")

			n, err := webhooks.Emit(ctx, st, []webhooks.Promotion{{DataPoint: "power.capacity", AsOf: "2016-06-30", PreviousAsOf: "2016-05-31", Rows: 25400, PreviousRows: 25320, Snapshot: "abc"}}, time.Now())
			if err != nil || n != 1 {
				t.Fatalf("queued %d: %v", n, err)
			}
			// The same promotion again queues nothing: the event id is derived from it.
			if n, _ := webhooks.Emit(ctx, st, []webhooks.Promotion{{DataPoint: "power.capacity", AsOf: "2016-06-30", Snapshot: "abc"}}, time.Now()); n != 0 {
				t.Errorf("re-emitted: %d", n)
			}
			w := &webhooks.Worker{Store: st, Guard: webhooks.Guard{AllowInsecure: true}, BaseDelay: 20 * time.Millisecond, MaxAttempts: 6}
			ds := drain(t, w, st, key.ID, 10*time.Second)
			if len(ds) != 1 || ds[0].Status != state.DeliveryDelivered || ds[0].Attempts != 4 { // three failures, then success
				t.Fatalf("deliveries %+v", ds)
			}
			if len(rc.got) != 1 || rc.bad != 0 {
				t.Fatalf("received %v, %d bad signatures", rc.got, rc.bad)
			}
			ev := rc.got[0]
			for k, want := range map[string]any{"type": "snapshot.promoted", "data_point": "power.capacity", "as_of": "2016-06-30",
				"previous_as_of": "2016-05-31", "rows": 25400.0, "previous_rows": 25320.0} {
				if ev[k] != want {
					t.Errorf("payload %s = %v, want %v", k, ev[k], want)
				}
			}
			// The other key's subscription (another data point) got nothing, and its deliveries
			// are not visible to this key.
			if ds, _ := st.ListDeliveries(ctx, other.ID, 10); len(ds) != 0 {
				t.Errorf("other key has deliveries %+v", ds)
			}
		})
	}
}

func TestDeadLetterAndRefusals(t *testing.T) {
	ctx := context.Background()
	st := open(t, "")
	rc := &receiver{fail: 1 << 30}
	srv := httptest.NewServer(rc)
	defer srv.Close()
	redirect := httptest.NewServer(http.RedirectHandler(srv.URL, http.StatusFound))
	defer redirect.Close()
	_, key, _ := st.CreateKey(ctx, state.PlanMonthly, "")
	st.CreateSubscription(ctx, key.ID, "power.capacity", srv.URL+"/always-500")
	st.CreateSubscription(ctx, key.ID, "power.capacity", redirect.URL+"/moved")
	webhooks.Emit(ctx, st, []webhooks.Promotion{{DataPoint: "power.capacity", AsOf: "2016-06-30", Snapshot: "x"}}, time.Now())
	w := &webhooks.Worker{Store: st, Guard: webhooks.Guard{AllowInsecure: true}, BaseDelay: 5 * time.Millisecond, MaxAttempts: 4}
	ds := drain(t, w, st, key.ID, 10*time.Second)
	if len(ds) != 2 {
		t.Fatalf("%d deliveries", len(ds))
	}
	for _, d := range ds {
		if d.Status != state.DeliveryDead || d.Attempts != 4 || d.LastError == "" {
			t.Errorf("delivery %+v, want dead after 4 attempts", d)
		}
	}

	// A callback that now resolves to loopback (DNS changed since subscription) is refused at
	// delivery by a guard that does not allow it.
	st2 := open(t, "")
	ok := &receiver{}
	okSrv := httptest.NewTLSServer(ok)
	defer okSrv.Close()
	_, key2, _ := st2.CreateKey(ctx, state.PlanMonthly, "")
	sub, _ := st2.CreateSubscription(ctx, key2.ID, "power.capacity", okSrv.URL+"/h")
	ok.secret = sub.Secret
	webhooks.Emit(ctx, st2, []webhooks.Promotion{{DataPoint: "power.capacity", AsOf: "2016-06-30", Snapshot: "y"}}, time.Now())
	secure := &webhooks.Worker{Store: st2, Guard: webhooks.Guard{}, BaseDelay: 5 * time.Millisecond, MaxAttempts: 2}
	ds = drain(t, secure, st2, key2.ID, 5*time.Second)
	if len(ds) != 1 || ds[0].Status != state.DeliveryDead || !strings.Contains(ds[0].LastError, "loopback") || len(ok.got) != 0 {
		t.Errorf("loopback delivery: %+v, received %d", ds, len(ok.got))
	}
}

func TestBackoff(t *testing.T) {
	w := &webhooks.Worker{BaseDelay: time.Second, MaxDelay: time.Minute}
	for n, want := range map[int]time.Duration{1: time.Second, 2: 2 * time.Second, 3: 4 * time.Second, 7: time.Minute, 20: time.Minute} {
		for i := 0; i < 50; i++ {
			d := w.Backoff(n)
			if d < want/2 || d > want {
				t.Fatalf("attempt %d: %v outside [%v, %v]", n, d, want/2, want)
			}
		}
	}
}

func TestGuard(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		url      string
		insecure bool
		ok       bool
	}{
		{"https://93.184.216.34/h", false, true},
		{"https://[2606:2800:220:1:248:1893:25c8:1946]/h", false, true},
		{"http://93.184.216.34/h", false, false},
		{"http://93.184.216.34/h", true, true},
		{"https://127.0.0.1/h", false, false},
		{"https://127.0.0.1/h", true, true},
		{"https://10.1.2.3/h", true, false},
		{"https://172.16.0.1/h", false, false},
		{"https://192.168.1.1/h", false, false},
		{"https://169.254.169.254/h", true, false},
		{"https://[::1]/h", false, false},
		{"https://[fe80::1]/h", false, false},
		{"https://[fc00::1]/h", false, false},
		{"https://0.0.0.0/h", false, false},
		{"https://[::]/h", false, false},
		{"https://100.64.0.1/h", false, false},
		{"https://localhost/h", false, false},
		{"https://user:pw@93.184.216.34/h", false, false},
		{"ftp://93.184.216.34/h", false, false},
		{"not a url", false, false},
		// IPv6 addresses that embed a forbidden IPv4 one.
		{"https://[64:ff9b::7f00:1]/h", false, false},             // NAT64 of 127.0.0.1
		{"https://[64:ff9b::a00:1]/h", false, false},              // NAT64 of 10.0.0.1
		{"https://[64:ff9b::a9fe:a9fe]/h", true, false},           // NAT64 of 169.254.169.254
		{"https://[64:ff9b::5db8:d822]/h", false, true},           // NAT64 of 93.184.216.34
		{"https://[64:ff9b:1::a00:1]/h", false, false},            // local-use NAT64
		{"https://[2002:7f00:1::1]/h", false, false},              // 6to4 of 127.0.0.1
		{"https://[2002:c0a8:101::1]/h", false, false},            // 6to4 of 192.168.1.1
		{"https://[2002:5db8:d822::1]/h", false, true},            // 6to4 of 93.184.216.34
		{"https://[::127.0.0.1]/h", false, false},                 // IPv4-compatible loopback
		{"https://[::10.0.0.1]/h", false, false},                  // IPv4-compatible private
		{"https://[::169.254.169.254]/h", true, false},            // IPv4-compatible link-local
		{"https://[2001:0:5db8:d822::f5ff:fffe]/h", false, false}, // Teredo, client 10.0.0.1
		{"https://93.184.216.34/" + strings.Repeat("a", webhooks.MaxCallbackURL), false, false},
	}
	for _, c := range cases {
		err := webhooks.Guard{AllowInsecure: c.insecure}.CheckURL(ctx, c.url)
		if (err == nil) != c.ok {
			t.Errorf("%s (insecure %v): err %v", c.url, c.insecure, err)
		}
	}
	g := webhooks.Guard{}
	for addr, ok := range map[string]bool{"93.184.216.34:443": true, "127.0.0.1:443": false, "[::1]:443": false, "10.0.0.1:80": false, "[::ffff:10.0.0.1]:80": false, "[64:ff9b::7f00:1]:443": false, "[2002:a00:1::1]:443": false, "[::10.0.0.1]:443": false} {
		if err := g.Control("tcp", addr, nil); (err == nil) != ok {
			t.Errorf("Control %s: %v", addr, err)
		}
	}
}

func TestSignVerify(t *testing.T) {
	now := time.Unix(1700000000, 0)
	body := []byte(`{"id":"evt_1"}`)
	sig := webhooks.Sign("whsec_x", now, body)
	if !strings.HasPrefix(sig, "t=1700000000,v1=") {
		t.Fatal(sig)
	}
	if !webhooks.Verify("whsec_x", sig, body, now, time.Minute) || webhooks.Verify("whsec_y", sig, body, now, time.Minute) ||
		webhooks.Verify("whsec_x", sig, []byte(`{}`), now, time.Minute) || webhooks.Verify("whsec_x", sig, body, now.Add(time.Hour), time.Minute) {
		t.Error("verify")
	}
}

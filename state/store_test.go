package state

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// An opener returns a new Store on the database that belongs to t: the first call for a
// given t creates a fresh, empty database; later calls (from any goroutine) open further
// Store instances on that same database, standing in for other processes. Stores are
// closed when t ends. On failure the opener reports the error with t.Errorf and returns
// nil.
type opener func(t *testing.T) Store

// mustOpen calls open from the test goroutine and stops the test on failure.
func mustOpen(t *testing.T, open opener) Store {
	t.Helper()
	s := open(t)
	if s == nil {
		t.FailNow()
	}
	return s
}

// perTest keeps one database location per test.
type perTest struct {
	mu  sync.Mutex
	loc map[*testing.T]string
}

// get returns t's location, making it with create on first use.
func (p *perTest) get(t *testing.T, create func(t *testing.T) (string, error)) (string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.loc == nil {
		p.loc = map[*testing.T]string{}
	}
	if loc, ok := p.loc[t]; ok {
		return loc, nil
	}
	loc, err := create(t)
	if err != nil {
		return "", err
	}
	p.loc[t] = loc
	t.Cleanup(func() {
		p.mu.Lock()
		delete(p.loc, t)
		p.mu.Unlock()
	})
	return loc, nil
}

// openWith makes an opener from a function that creates a fresh database and returns the
// Open arguments for it.
func openWith(create func(t *testing.T) (dsn, dataDir string, err error)) opener {
	var dbs perTest
	return func(t *testing.T) Store {
		t.Helper()
		loc, err := dbs.get(t, func(t *testing.T) (string, error) {
			dsn, dir, err := create(t)
			return dsn + "\x00" + dir, err
		})
		if err != nil {
			t.Errorf("create test database: %v", err)
			return nil
		}
		dsn, dir, _ := strings.Cut(loc, "\x00")
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		s, err := Open(ctx, dsn, dir)
		if err != nil {
			t.Errorf("Open: %v", err)
			return nil
		}
		t.Cleanup(func() {
			if err := s.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
		})
		return s
	}
}

// runSuite runs every Store test against the stores open makes.
func runSuite(t *testing.T, open opener) {
	tests := []struct {
		name string
		run  func(t *testing.T, open opener)
	}{
		{"KeyLifecycle", testKeyLifecycle},
		{"LookupMalformed", testLookupMalformed},
		{"Plans", testPlans},
		{"QuotaExactConcurrent", testQuotaExactConcurrent},
		{"QuotaExactTwoStores", testQuotaExactTwoStores},
		{"QuotaLimits", testQuotaLimits},
		{"SurvivesReopen", testSurvivesReopen},
		{"Subscriptions", testSubscriptions},
		{"SubscriptionCap", testSubscriptionCap},
		{"Enqueue", testEnqueue},
		{"ClaimLeaseRetry", testClaimLeaseRetry},
		{"ClaimConcurrent", testClaimConcurrent},
		{"DeleteGivesUpPending", testDeleteGivesUpPending},
		{"Migrations", testMigrations},
		{"ConcurrentOpen", testConcurrentOpen},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.run(t, open) })
	}
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 45*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func mustKey(t *testing.T, s Store, plan, owner string) (string, Key) {
	t.Helper()
	secret, k, err := s.CreateKey(ctxT(t), plan, owner)
	if err != nil {
		t.Fatalf("CreateKey(%q, %q): %v", plan, owner, err)
	}
	return secret, k
}

func mustSub(t *testing.T, s Store, keyID, dataPoint, url string) Subscription {
	t.Helper()
	sub, err := s.CreateSubscription(ctxT(t), keyID, dataPoint, url)
	if err != nil {
		t.Fatalf("CreateSubscription(%s, %s): %v", keyID, dataPoint, err)
	}
	return sub
}

func sameKey(a, b Key) bool {
	return a.ID == b.ID && a.Plan == b.Plan && a.Owner == b.Owner && a.CreatedAt.Equal(b.CreatedAt) &&
		(a.RevokedAt == nil) == (b.RevokedAt == nil) && (a.RevokedAt == nil || a.RevokedAt.Equal(*b.RevokedAt))
}

var (
	keySecretRE = regexp.MustCompile(`^cq_([0-9a-f]{12})_[0-9a-f]{32}$`)
	subIDRE     = regexp.MustCompile(`^sub_[0-9a-f]{16}$`)
	subSecretRE = regexp.MustCompile(`^whsec_[0-9a-f]{32}$`)
)

func testKeyLifecycle(t *testing.T, open opener) {
	s := mustOpen(t, open)
	ctx := ctxT(t)
	before := time.Now().Add(-time.Second)

	secret, k := mustKey(t, s, PlanFree, "Ada Lovelace <ada@example.org>")
	m := keySecretRE.FindStringSubmatch(secret)
	if m == nil {
		t.Fatalf("secret %q does not have the form cq_<12 hex>_<32 hex>", secret)
	}
	if m[1] != k.ID || k.Plan != PlanFree || k.Owner != "Ada Lovelace <ada@example.org>" || k.RevokedAt != nil {
		t.Fatalf("CreateKey returned %+v for secret %q", k, secret)
	}
	if k.CreatedAt.Before(before) || k.CreatedAt.After(time.Now().Add(time.Second)) || k.CreatedAt.Location() != time.UTC {
		t.Errorf("CreatedAt = %v, want now in UTC", k.CreatedAt)
	}

	got, err := s.LookupKey(ctx, secret)
	if err != nil || !sameKey(got, k) {
		t.Fatalf("LookupKey = %+v, %v; want %+v", got, err, k)
	}

	// Only the hash is stored.
	var stored string
	if err := s.(*sqlStore).b.queryRow(ctx, `SELECT secret_hash FROM keys WHERE id = $1`, k.ID).Scan(&stored); err != nil {
		t.Fatal(err)
	}
	if stored == secret || stored != hashSecret(secret) {
		t.Errorf("stored %q for secret %q, want its SHA-256", stored, secret)
	}

	secret2, k2 := mustKey(t, s, PlanAnnual, "")
	if secret2 == secret || k2.ID == k.ID {
		t.Fatalf("two keys share a secret or id: %q %q", secret, secret2)
	}
	keys, err := s.ListKeys(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(keys) != 2 || !sameKey(keys[0], k) || !sameKey(keys[1], k2) {
		t.Fatalf("ListKeys = %+v, want [%+v %+v]", keys, k, k2)
	}

	if _, _, err := s.CreateKey(ctx, "platinum", "x"); !errors.Is(err, ErrBadPlan) {
		t.Errorf("CreateKey(platinum) err = %v, want ErrBadPlan", err)
	}

	if err := s.RevokeKey(ctx, k.ID); err != nil {
		t.Fatalf("RevokeKey: %v", err)
	}
	if _, err := s.LookupKey(ctx, secret); !errors.Is(err, ErrRevoked) {
		t.Errorf("LookupKey(revoked) err = %v, want ErrRevoked", err)
	}
	// A wrong secret for a revoked key says nothing about the key.
	if _, err := s.LookupKey(ctx, secret2[:16]+secret[16:]); !errors.Is(err, ErrNotFound) {
		t.Errorf("LookupKey(k2 id, k1 random) err = %v, want ErrNotFound", err)
	}
	if err := s.RevokeKey(ctx, k.ID); err != nil {
		t.Errorf("RevokeKey twice: %v", err)
	}
	if err := s.RevokeKey(ctx, "000000000000"); !errors.Is(err, ErrNotFound) {
		t.Errorf("RevokeKey(unknown) err = %v, want ErrNotFound", err)
	}
	if got, err := s.LookupKey(ctx, secret2); err != nil || !sameKey(got, k2) {
		t.Errorf("LookupKey(other key) = %+v, %v", got, err)
	}
	keys, err = s.ListKeys(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(keys) != 2 || keys[0].RevokedAt == nil || keys[1].RevokedAt != nil {
		t.Errorf("after revoking the first key ListKeys = %+v", keys)
	}
}

func testLookupMalformed(t *testing.T, open opener) {
	s := mustOpen(t, open)
	ctx := ctxT(t)
	secret, k := mustKey(t, s, PlanMonthly, "m")
	random := secret[16:]
	for _, tc := range []struct{ name, secret string }{
		{"empty", ""},
		{"prefix only", "cq_"},
		{"no random part", "cq_" + k.ID},
		{"no separator", "cq_" + k.ID + random},
		{"short random", secret[:len(secret)-1]},
		{"long", secret + "0"},
		{"wrong prefix", "cx_" + secret[3:]},
		{"upper case", "CQ_" + k.ID + "_" + random},
		{"upper hex", secret[:len(secret)-1] + "A"},
		{"not hex", secret[:len(secret)-1] + "g"},
		{"multibyte", secret[:len(secret)-2] + "é"},
		{"bad separator", "cq_" + k.ID + "-" + random},
		{"wrong random", "cq_" + k.ID + "_" + "0123456789abcdef0123456789abcdef"},
		{"unknown id", "cq_000000000000_" + random},
		{"sql", "cq_' OR '1'='1_" + random},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got, err := s.LookupKey(ctx, tc.secret); !errors.Is(err, ErrNotFound) {
				t.Errorf("LookupKey(%q) = %+v, %v; want ErrNotFound", tc.secret, got, err)
			}
		})
	}
}

func testPlans(t *testing.T, open opener) {
	s := mustOpen(t, open)
	ctx := ctxT(t)
	secret, k := mustKey(t, s, PlanFree, "p")
	for _, tc := range []struct {
		name, id, plan string
		want           error
	}{
		{"monthly", k.ID, PlanMonthly, nil},
		{"annual", k.ID, PlanAnnual, nil},
		{"free again", k.ID, PlanFree, nil},
		{"unknown plan", k.ID, "gold", ErrBadPlan},
		{"empty plan", k.ID, "", ErrBadPlan},
		{"plan case", k.ID, "Monthly", ErrBadPlan},
		{"unknown key", "000000000000", PlanMonthly, ErrNotFound},
		{"bad plan, unknown key", "000000000000", "gold", ErrBadPlan},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before, err := s.LookupKey(ctx, secret)
			if err != nil {
				t.Fatal(err)
			}
			err = s.SetPlan(ctx, tc.id, tc.plan)
			if !errors.Is(err, tc.want) || (tc.want == nil && err != nil) {
				t.Fatalf("SetPlan(%q, %q) = %v, want %v", tc.id, tc.plan, err, tc.want)
			}
			after, err := s.LookupKey(ctx, secret)
			if err != nil {
				t.Fatal(err)
			}
			want := before.Plan
			if tc.want == nil {
				want = tc.plan
			}
			if after.Plan != want {
				t.Errorf("plan = %q, want %q", after.Plan, want)
			}
		})
	}
}

// consumeConcurrently calls ConsumeQuery n times at once on each store and returns how
// many calls were allowed.
func consumeConcurrently(t *testing.T, stores []Store, n int, subject string, limit int) int {
	t.Helper()
	ctx := ctxT(t)
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		allowed int
		seen    = map[int]bool{}
		start   = make(chan struct{})
	)
	for _, s := range stores {
		for range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				used, ok, err := s.ConsumeQuery(ctx, subject, limit)
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err != nil:
					t.Errorf("ConsumeQuery: %v", err)
				case ok:
					allowed++
					if used < 1 || used > limit || seen[used] {
						t.Errorf("allowed call returned used = %d (seen before: %v)", used, seen[used])
					}
					seen[used] = true
				case used != limit:
					t.Errorf("refused call returned used = %d, want %d", used, limit)
				}
			}()
		}
	}
	close(start)
	wg.Wait()
	return allowed
}

func testQuotaExactConcurrent(t *testing.T, open opener) {
	s := mustOpen(t, open)
	ctx := ctxT(t)
	if got := consumeConcurrently(t, []Store{s}, 100, "ip:203.0.113.7", FreeQueries); got != FreeQueries {
		t.Errorf("%d of 100 concurrent calls allowed, want %d", got, FreeQueries)
	}
	if used, err := s.QueriesUsed(ctx, "ip:203.0.113.7"); err != nil || used != FreeQueries {
		t.Errorf("QueriesUsed = %d, %v; want %d", used, err, FreeQueries)
	}
	if used, ok, err := s.ConsumeQuery(ctx, "ip:203.0.113.7", FreeQueries); err != nil || ok || used != FreeQueries {
		t.Errorf("ConsumeQuery after the quota = %d, %v, %v; want %d, false", used, ok, err, FreeQueries)
	}
	if used, err := s.QueriesUsed(ctx, "ip:198.51.100.1"); err != nil || used != 0 {
		t.Errorf("QueriesUsed(other subject) = %d, %v; want 0", used, err)
	}
}

func testQuotaExactTwoStores(t *testing.T, open opener) {
	s1, s2 := mustOpen(t, open), mustOpen(t, open)
	ctx := ctxT(t)
	if got := consumeConcurrently(t, []Store{s1, s2}, 50, "key:shared", FreeQueries); got != FreeQueries {
		t.Errorf("%d of 2×50 concurrent calls allowed, want %d", got, FreeQueries)
	}
	for i, s := range []Store{s1, s2} {
		if used, err := s.QueriesUsed(ctx, "key:shared"); err != nil || used != FreeQueries {
			t.Errorf("store %d: QueriesUsed = %d, %v; want %d", i+1, used, err, FreeQueries)
		}
	}
}

func testQuotaLimits(t *testing.T, open opener) {
	s := mustOpen(t, open)
	ctx := ctxT(t)
	// Steps run in order on one subject.
	for _, tc := range []struct {
		name     string
		limit    int
		wantUsed int
		wantOK   bool
	}{
		{"zero limit allows nothing", 0, 0, false},
		{"negative limit allows nothing", -3, 0, false},
		{"first of one", 1, 1, true},
		{"second of one", 1, 1, false},
		{"zero limit leaves the count", 0, 1, false},
		{"raised limit", 3, 2, true},
		{"raised limit again", 3, 3, true},
		{"raised limit reached", 3, 3, false},
		{"lowered limit", 2, 3, false},
	} {
		used, ok, err := s.ConsumeQuery(ctx, "key:limits", tc.limit)
		if err != nil || used != tc.wantUsed || ok != tc.wantOK {
			t.Errorf("%s: ConsumeQuery(limit %d) = %d, %v, %v; want %d, %v", tc.name, tc.limit, used, ok, err, tc.wantUsed, tc.wantOK)
		}
		if got, err := s.QueriesUsed(ctx, "key:limits"); err != nil || got != tc.wantUsed {
			t.Errorf("%s: QueriesUsed = %d, %v; want %d", tc.name, got, err, tc.wantUsed)
		}
	}
}

func testSurvivesReopen(t *testing.T, open opener) {
	s := mustOpen(t, open)
	ctx := ctxT(t)
	for range 3 {
		if _, ok, err := s.ConsumeQuery(ctx, "ip:192.0.2.1", FreeQueries); err != nil || !ok {
			t.Fatalf("ConsumeQuery = %v, %v", ok, err)
		}
	}
	secret, k := mustKey(t, s, PlanMonthly, "persist")
	sub := mustSub(t, s, k.ID, "dp/persist", "https://example.org/hook")
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}

	s = mustOpen(t, open)
	if used, err := s.QueriesUsed(ctx, "ip:192.0.2.1"); err != nil || used != 3 {
		t.Errorf("after reopening QueriesUsed = %d, %v; want 3", used, err)
	}
	if got, err := s.LookupKey(ctx, secret); err != nil || !sameKey(got, k) {
		t.Errorf("after reopening LookupKey = %+v, %v; want %+v", got, err, k)
	}
	subs, err := s.ListSubscriptions(ctx, k.ID)
	if err != nil || len(subs) != 1 || subs[0].ID != sub.ID || subs[0].Secret != sub.Secret {
		t.Errorf("after reopening ListSubscriptions = %+v, %v", subs, err)
	}
}

func testSubscriptions(t *testing.T, open opener) {
	s := mustOpen(t, open)
	ctx := ctxT(t)
	_, a := mustKey(t, s, PlanMonthly, "a")
	_, b := mustKey(t, s, PlanAnnual, "b")

	a1 := mustSub(t, s, a.ID, "dp/one", "https://a.example/1")
	a2 := mustSub(t, s, a.ID, "dp/two", "https://a.example/2")
	b1 := mustSub(t, s, b.ID, "dp/one", "https://b.example/1")
	for _, sub := range []Subscription{a1, a2, b1} {
		if !subIDRE.MatchString(sub.ID) || !subSecretRE.MatchString(sub.Secret) || sub.CreatedAt.IsZero() {
			t.Errorf("subscription %+v: want id sub_<16 hex>, secret whsec_<32 hex>, a creation time", sub)
		}
	}
	if a1.ID == a2.ID || a1.Secret == a2.Secret {
		t.Errorf("two subscriptions share an id or secret")
	}
	if _, err := s.CreateSubscription(ctx, "000000000000", "dp/one", "https://x.example"); !errors.Is(err, ErrNotFound) {
		t.Errorf("CreateSubscription(unknown key) err = %v, want ErrNotFound", err)
	}

	list := func(keyID string) []string {
		t.Helper()
		subs, err := s.ListSubscriptions(ctx, keyID)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, sub := range subs {
			if sub.KeyID != keyID {
				t.Errorf("ListSubscriptions(%s) returned %+v", keyID, sub)
			}
			ids = append(ids, sub.ID)
		}
		return ids
	}
	if got, want := list(a.ID), []string{a1.ID, a2.ID}; !slices.Equal(got, want) {
		t.Errorf("ListSubscriptions(a) = %v, want %v (oldest first)", got, want)
	}
	if got, want := list(b.ID), []string{b1.ID}; !slices.Equal(got, want) {
		t.Errorf("ListSubscriptions(b) = %v, want %v", got, want)
	}
	subs, _ := s.ListSubscriptions(ctx, a.ID)
	if len(subs) > 0 && (subs[0].Secret != a1.Secret || subs[0].CallbackURL != a1.CallbackURL ||
		subs[0].DataPoint != a1.DataPoint || !subs[0].CreatedAt.Equal(a1.CreatedAt)) {
		t.Errorf("listed %+v, created %+v", subs[0], a1)
	}

	for _, tc := range []struct {
		name, key, id string
		want          error
	}{
		{"another key's", b.ID, a1.ID, ErrNotFound},
		{"unknown", a.ID, "sub_0000000000000000", ErrNotFound},
		{"own", a.ID, a1.ID, nil},
		{"already deleted", a.ID, a1.ID, ErrNotFound},
	} {
		if err := s.DeleteSubscription(ctx, tc.key, tc.id); !errors.Is(err, tc.want) || (tc.want == nil && err != nil) {
			t.Errorf("DeleteSubscription %s: err = %v, want %v", tc.name, err, tc.want)
		}
	}
	if got, want := list(a.ID), []string{a2.ID}; !slices.Equal(got, want) {
		t.Errorf("after delete ListSubscriptions(a) = %v, want %v", got, want)
	}
	if got, want := list(b.ID), []string{b1.ID}; !slices.Equal(got, want) {
		t.Errorf("after delete ListSubscriptions(b) = %v, want %v", got, want)
	}

	// The deleted subscription gets no deliveries.
	n, err := s.Enqueue(ctx, Event{ID: "ev-sub", Type: "snapshot.promoted", DataPoint: "dp/one", Payload: []byte(`{}`)})
	if err != nil || n != 1 {
		t.Fatalf("Enqueue = %d, %v; want 1 (b's subscription only)", n, err)
	}
	if ds, err := s.ListDeliveries(ctx, a.ID, 10); err != nil || len(ds) != 0 {
		t.Errorf("a's deliveries = %+v, %v; want none", ds, err)
	}
	if ds, err := s.ListDeliveries(ctx, b.ID, 10); err != nil || len(ds) != 1 || ds[0].SubscriptionID != b1.ID {
		t.Errorf("b's deliveries = %+v, %v; want one for %s", ds, err, b1.ID)
	}
}

// testSubscriptionCap: one key holds at most MaxSubscriptionsPerKey active subscriptions,
// even when two stores (two server processes) create them at the same time; a deleted one frees
// its place; another key is not affected; the listing is every active subscription once, in
// the order they were created (the order the API pages through).
func testSubscriptionCap(t *testing.T, open opener) {
	s1, s2 := mustOpen(t, open), mustOpen(t, open)
	ctx := ctxT(t)
	_, a := mustKey(t, s1, PlanMonthly, "a")
	_, b := mustKey(t, s1, PlanMonthly, "b")
	const tries = MaxSubscriptionsPerKey + 30
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		created = map[string]bool{}
		refused int
		start   = make(chan struct{})
	)
	for i := range tries {
		s := []Store{s1, s2}[i%2]
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			sub, err := s.CreateSubscription(ctx, a.ID, "dp/x", fmt.Sprintf("https://a.example/%d", i))
			mu.Lock()
			defer mu.Unlock()
			switch {
			case errors.Is(err, ErrLimit):
				refused++
			case err != nil:
				t.Errorf("CreateSubscription: %v", err)
			default:
				created[sub.ID] = true
			}
		}()
	}
	close(start)
	wg.Wait()
	if len(created) != MaxSubscriptionsPerKey || refused != tries-MaxSubscriptionsPerKey {
		t.Fatalf("%d created and %d refused of %d concurrent creates; want %d and %d",
			len(created), refused, tries, MaxSubscriptionsPerKey, tries-MaxSubscriptionsPerKey)
	}
	ids := func(s Store) []string {
		t.Helper()
		subs, err := s.ListSubscriptions(ctx, a.ID)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, sub := range subs {
			out = append(out, sub.ID)
		}
		return out
	}
	listed := ids(s2)
	if len(listed) != MaxSubscriptionsPerKey {
		t.Fatalf("%d subscriptions listed, want %d", len(listed), MaxSubscriptionsPerKey)
	}
	for _, id := range listed {
		if !created[id] {
			t.Errorf("%s listed but not created", id)
		}
		delete(created, id)
	}
	if len(created) > 0 {
		t.Errorf("created but not listed (or listed twice): %v", created)
	}
	if again := ids(s1); !slices.Equal(again, listed) {
		t.Errorf("the two stores list in different orders")
	}
	mustSub(t, s2, b.ID, "dp/x", "https://b.example/1")
	if _, err := s1.CreateSubscription(ctx, a.ID, "dp/x", "https://a.example/over"); !errors.Is(err, ErrLimit) {
		t.Errorf("a create beyond the cap: err = %v, want ErrLimit", err)
	}
	if err := s2.DeleteSubscription(ctx, a.ID, listed[7]); err != nil {
		t.Fatal(err)
	}
	last := mustSub(t, s1, a.ID, "dp/x", "https://a.example/after-delete")
	if _, err := s2.CreateSubscription(ctx, a.ID, "dp/x", "https://a.example/over"); !errors.Is(err, ErrLimit) {
		t.Errorf("a create beyond the cap after the freed place was taken: err = %v, want ErrLimit", err)
	}
	want := append(slices.Delete(slices.Clone(listed), 7, 8), last.ID)
	if got := ids(s2); !slices.Equal(got, want) {
		t.Errorf("after a delete and a create the listing is not the creation order without the deleted one")
	}
}

func testEnqueue(t *testing.T, open opener) {
	s := mustOpen(t, open)
	ctx := ctxT(t)
	_, a := mustKey(t, s, PlanMonthly, "a")
	_, b := mustKey(t, s, PlanMonthly, "b")
	_, c := mustKey(t, s, PlanMonthly, "revoked")
	a1 := mustSub(t, s, a.ID, "dp/x", "https://a.example/1")
	a2 := mustSub(t, s, a.ID, "dp/x", "https://a.example/2")
	gone := mustSub(t, s, a.ID, "dp/x", "https://a.example/gone")
	b1 := mustSub(t, s, b.ID, "dp/x", "https://b.example/1")
	mustSub(t, s, b.ID, "dp/y", "https://b.example/y")
	mustSub(t, s, c.ID, "dp/x", "https://c.example/1")
	if err := s.DeleteSubscription(ctx, a.ID, gone.ID); err != nil {
		t.Fatal(err)
	}
	if err := s.RevokeKey(ctx, c.ID); err != nil {
		t.Fatal(err)
	}

	at := time.Date(2026, 3, 1, 12, 0, 0, 123_000_000, time.UTC)
	ev := Event{ID: "evt_1", Type: "snapshot.promoted", DataPoint: "dp/x", CreatedAt: at, Payload: []byte(`{"snapshot":"s1"}`)}
	for _, tc := range []struct {
		name string
		ev   Event
		want int
	}{
		{"active subscriptions of the data point", ev, 3},
		{"same event again", ev, 0},
		{"same id, other data point", Event{ID: "evt_1", Type: "snapshot.promoted", DataPoint: "dp/y", CreatedAt: at, Payload: []byte(`{}`)}, 0},
		{"data point without subscribers", Event{ID: "evt_2", Type: "snapshot.promoted", DataPoint: "dp/none", CreatedAt: at, Payload: []byte(`{}`)}, 0},
	} {
		if n, err := s.Enqueue(ctx, tc.ev); err != nil || n != tc.want {
			t.Errorf("Enqueue %s = %d, %v; want %d", tc.name, n, err, tc.want)
		}
	}
	if _, err := s.Enqueue(ctx, Event{DataPoint: "dp/x"}); err == nil {
		t.Errorf("Enqueue(event without id) succeeded")
	}

	ds, err := s.ListDeliveries(ctx, a.ID, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(ds) != 2 {
		t.Fatalf("a's deliveries = %+v, want 2", ds)
	}
	// Newest first: a2 was queued after a1.
	for i, sub := range []Subscription{a2, a1} {
		d := ds[i]
		if d.EventID != ev.ID || d.SubscriptionID != sub.ID || d.KeyID != a.ID || d.CallbackURL != sub.CallbackURL ||
			d.Secret != sub.Secret || string(d.Payload) != string(ev.Payload) || d.Attempts != 0 ||
			d.Status != DeliveryPending || !d.NextAttempt.Equal(at) || d.LastError != "" || d.DeliveredAt != nil {
			t.Errorf("delivery %d = %+v, want a pending delivery of %s to %+v due %v", i, d, ev.ID, sub, at)
		}
	}
	if ds[0].ID <= ds[1].ID {
		t.Errorf("ListDeliveries not newest first: ids %d, %d", ds[0].ID, ds[1].ID)
	}
	if ds, err := s.ListDeliveries(ctx, a.ID, 1); err != nil || len(ds) != 1 {
		t.Errorf("ListDeliveries(limit 1) = %d deliveries, %v", len(ds), err)
	}
	if ds, err := s.ListDeliveries(ctx, b.ID, 10); err != nil || len(ds) != 1 || ds[0].SubscriptionID != b1.ID {
		t.Errorf("b's deliveries = %+v, %v", ds, err)
	}
	if ds, err := s.ListDeliveries(ctx, c.ID, 10); err != nil || len(ds) != 0 {
		t.Errorf("revoked key's deliveries = %+v, %v; want none", ds, err)
	}
}

// claimIDs claims at now and returns the ids claimed.
func claimIDs(t *testing.T, s Store, now time.Time, limit int, lease time.Duration) []int64 {
	t.Helper()
	ds, err := s.ClaimDeliveries(ctxT(t), now, limit, lease)
	if err != nil {
		t.Fatalf("ClaimDeliveries(%v): %v", now, err)
	}
	var ids []int64
	for _, d := range ds {
		ids = append(ids, d.ID)
	}
	return ids
}

func testClaimLeaseRetry(t *testing.T, open opener) {
	s, other := mustOpen(t, open), mustOpen(t, open)
	ctx := ctxT(t)
	_, k := mustKey(t, s, PlanMonthly, "k")
	sub := mustSub(t, s, k.ID, "dp/c", "https://k.example/hook")
	base := time.Date(2026, 5, 1, 8, 0, 0, 0, time.UTC)
	for i := range 3 {
		ev := Event{ID: fmt.Sprintf("evt_c%d", i), Type: "snapshot.promoted", DataPoint: "dp/c", CreatedAt: base,
			Payload: fmt.Appendf(nil, `{"n":%d}`, i)}
		if n, err := s.Enqueue(ctx, ev); err != nil || n != 1 {
			t.Fatalf("Enqueue = %d, %v", n, err)
		}
	}
	all, err := s.ListDeliveries(ctx, k.ID, 10)
	if err != nil || len(all) != 3 {
		t.Fatalf("ListDeliveries = %v, %v", all, err)
	}
	d1, d2, d3 := all[2].ID, all[1].ID, all[0].ID
	lease := time.Minute

	if ids := claimIDs(t, s, base.Add(-time.Second), 10, lease); len(ids) != 0 {
		t.Errorf("claimed %v before they were due", ids)
	}
	if err := func() error {
		ds, err := s.ClaimDeliveries(ctx, base, 2, lease)
		if err != nil {
			return err
		}
		if len(ds) != 2 || ds[0].ID != d1 || ds[1].ID != d2 {
			return fmt.Errorf("claimed %+v, want %d and %d (oldest first, at most 2)", ds, d1, d2)
		}
		d := ds[0]
		if d.EventID != "evt_c0" || string(d.Payload) != `{"n":0}` || d.SubscriptionID != sub.ID || d.KeyID != k.ID ||
			d.CallbackURL != sub.CallbackURL || d.Secret != sub.Secret || d.Status != DeliveryPending || !d.NextAttempt.Equal(base) {
			return fmt.Errorf("claimed %+v", d)
		}
		return nil
	}(); err != nil {
		t.Error(err)
	}
	if ids := claimIDs(t, s, base, 10, lease); !slices.Equal(ids, []int64{d3}) {
		t.Errorf("second claim = %v, want [%d]", ids, d3)
	}
	if ids := claimIDs(t, other, base.Add(30*time.Second), 10, lease); len(ids) != 0 {
		t.Errorf("another store claimed %v while they were leased", ids)
	}
	if ids := claimIDs(t, other, base.Add(61*time.Second), 10, lease); !slices.Equal(ids, []int64{d1, d2, d3}) {
		t.Errorf("after the leases expired another store claimed %v, want all three", ids)
	}

	delivered := base.Add(62 * time.Second)
	if err := other.MarkFailed(ctx, d1, 1, base.Add(10*time.Minute), "HTTP 500", false); err != nil {
		t.Fatal(err)
	}
	if err := other.MarkDelivered(ctx, d2, delivered); err != nil {
		t.Fatal(err)
	}
	if err := other.MarkFailed(ctx, d3, 5, base.Add(2*time.Minute), "connection refused", true); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		err  error
	}{
		{"MarkDelivered(unknown)", s.MarkDelivered(ctx, 1_000_000, delivered)},
		{"MarkFailed(unknown)", s.MarkFailed(ctx, 1_000_000, 1, delivered, "x", false)},
	} {
		if !errors.Is(tc.err, ErrNotFound) {
			t.Errorf("%s err = %v, want ErrNotFound", tc.name, tc.err)
		}
	}
	// A late failure report does not undo a delivery, nor revive a dead one.
	if err := s.MarkFailed(ctx, d2, 1, base, "late", false); err != nil {
		t.Errorf("MarkFailed(delivered) = %v", err)
	}
	if err := s.MarkFailed(ctx, d3, 6, base, "late", false); err != nil {
		t.Errorf("MarkFailed(dead) = %v", err)
	}

	for _, tc := range []struct {
		name string
		at   time.Duration
		want []int64
	}{
		{"retry not yet due", 5 * time.Minute, nil},
		{"retry due", 10 * time.Minute, []int64{d1}},
		{"retry leased", 10*time.Minute + 30*time.Second, nil},
		{"retry lease expired", time.Hour, []int64{d1}},
		{"retry leased again", time.Hour + 30*time.Second, nil},
	} {
		if ids := claimIDs(t, s, base.Add(tc.at), 10, lease); !slices.Equal(ids, tc.want) {
			t.Errorf("%s: claimed %v, want %v", tc.name, ids, tc.want)
		}
	}

	ds, err := s.ListDeliveries(ctx, k.ID, 10)
	if err != nil || len(ds) != 3 {
		t.Fatalf("ListDeliveries = %+v, %v", ds, err)
	}
	byID := map[int64]Delivery{}
	for _, d := range ds {
		byID[d.ID] = d
	}
	if d := byID[d1]; d.Status != DeliveryPending || d.Attempts != 1 || d.LastError != "HTTP 500" ||
		!d.NextAttempt.Equal(base.Add(10*time.Minute)) || d.DeliveredAt != nil {
		t.Errorf("failed delivery = %+v", d)
	}
	if d := byID[d2]; d.Status != DeliveryDelivered || d.Attempts != 1 || d.DeliveredAt == nil || !d.DeliveredAt.Equal(delivered) {
		t.Errorf("delivered delivery = %+v", d)
	}
	if d := byID[d3]; d.Status != DeliveryDead || d.Attempts != 5 || d.LastError != "connection refused" {
		t.Errorf("dead delivery = %+v", d)
	}
	if err := s.MarkDelivered(ctx, d1, base.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if ids := claimIDs(t, s, base.Add(48*time.Hour), 10, lease); len(ids) != 0 {
		t.Errorf("claimed %v after everything was delivered or dead", ids)
	}
	if ds, err := s.ClaimDeliveries(ctx, base, 0, lease); err != nil || len(ds) != 0 {
		t.Errorf("ClaimDeliveries(limit 0) = %v, %v", ds, err)
	}
}

// testClaimConcurrent has workers of two stores claim at once: each delivery is claimed by
// exactly one of them.
func testClaimConcurrent(t *testing.T, open opener) {
	stores := []Store{mustOpen(t, open), mustOpen(t, open)}
	ctx := ctxT(t)
	_, k := mustKey(t, stores[0], PlanMonthly, "k")
	mustSub(t, stores[0], k.ID, "dp/cc", "https://k.example/1")
	mustSub(t, stores[0], k.ID, "dp/cc", "https://k.example/2")
	now := time.Now()
	const events = 15
	for i := range events {
		if _, err := stores[0].Enqueue(ctx, Event{ID: fmt.Sprintf("evt_cc%d", i), DataPoint: "dp/cc", CreatedAt: now, Payload: []byte("{}")}); err != nil {
			t.Fatal(err)
		}
	}
	var (
		mu      sync.Mutex
		claimed = map[int64]int{}
		wg      sync.WaitGroup
	)
	for _, s := range stores {
		for range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					ds, err := s.ClaimDeliveries(ctx, now, 3, time.Hour)
					if err != nil {
						t.Errorf("ClaimDeliveries: %v", err)
						return
					}
					if len(ds) == 0 {
						return
					}
					mu.Lock()
					for _, d := range ds {
						claimed[d.ID]++
					}
					mu.Unlock()
				}
			}()
		}
	}
	wg.Wait()
	if len(claimed) != 2*events {
		t.Errorf("%d deliveries claimed, want %d", len(claimed), 2*events)
	}
	for id, n := range claimed {
		if n != 1 {
			t.Errorf("delivery %d claimed %d times", id, n)
		}
	}
}

func testDeleteGivesUpPending(t *testing.T, open opener) {
	s := mustOpen(t, open)
	ctx := ctxT(t)
	_, k := mustKey(t, s, PlanMonthly, "k")
	sub := mustSub(t, s, k.ID, "dp/d", "https://k.example/d")
	keep := mustSub(t, s, k.ID, "dp/d", "https://k.example/keep")
	now := time.Now()
	if n, err := s.Enqueue(ctx, Event{ID: "evt_d", DataPoint: "dp/d", CreatedAt: now, Payload: []byte("{}")}); err != nil || n != 2 {
		t.Fatalf("Enqueue = %d, %v", n, err)
	}
	if err := s.DeleteSubscription(ctx, k.ID, sub.ID); err != nil {
		t.Fatal(err)
	}
	ds, err := s.ClaimDeliveries(ctx, now, 10, time.Minute)
	if err != nil || len(ds) != 1 || ds[0].SubscriptionID != keep.ID {
		t.Fatalf("ClaimDeliveries = %+v, %v; want only the kept subscription's", ds, err)
	}
	all, err := s.ListDeliveries(ctx, k.ID, 10)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range all {
		if d.SubscriptionID == sub.ID && (d.Status != DeliveryDead || d.LastError != "subscription deleted") {
			t.Errorf("deleted subscription's delivery = %+v, want dead", d)
		}
	}
}

func migrationVersions(t *testing.T, s Store) []int {
	t.Helper()
	ctx := ctxT(t)
	r, err := s.(*sqlStore).b.query(ctx, `SELECT version FROM schema_migrations ORDER BY version`)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var vs []int
	for r.Next() {
		var v int
		if err := r.Scan(&v); err != nil {
			t.Fatal(err)
		}
		vs = append(vs, v)
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	return vs
}

func allMigrations() []int {
	var vs []int
	for _, m := range migrations {
		vs = append(vs, m.version)
	}
	return vs
}

func testMigrations(t *testing.T, open opener) {
	for i, m := range migrations {
		if m.version != i+1 {
			t.Fatalf("migration %d has version %d: versions must be 1, 2, 3, …", i, m.version)
		}
	}
	s := mustOpen(t, open)
	if got := migrationVersions(t, s); !slices.Equal(got, allMigrations()) {
		t.Fatalf("applied %v, want %v", got, allMigrations())
	}
	_, k := mustKey(t, s, PlanFree, "m")
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		s = mustOpen(t, open)
		if got := migrationVersions(t, s); !slices.Equal(got, allMigrations()) {
			t.Errorf("after reopening applied %v, want %v", got, allMigrations())
		}
		if keys, err := s.ListKeys(ctxT(t)); err != nil || len(keys) != 1 || keys[0].ID != k.ID {
			t.Errorf("after reopening ListKeys = %+v, %v", keys, err)
		}
	}
}

func testConcurrentOpen(t *testing.T, open opener) {
	const n = 4
	stores := make([]Store, n)
	var wg sync.WaitGroup
	for i := range stores {
		wg.Go(func() { stores[i] = open(t) })
	}
	wg.Wait()
	for i, s := range stores {
		if s == nil {
			t.Fatalf("store %d did not open", i)
		}
	}
	if got := migrationVersions(t, stores[0]); !slices.Equal(got, allMigrations()) {
		t.Errorf("applied %v, want %v", got, allMigrations())
	}
	for _, s := range stores {
		mustKey(t, s, PlanFree, "concurrent")
	}
	if keys, err := stores[n-1].ListKeys(ctxT(t)); err != nil || len(keys) != n {
		t.Errorf("ListKeys = %d keys, %v; want %d", len(keys), err, n)
	}
}

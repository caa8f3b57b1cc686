package access

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/citeq/citeq/apierror"
	"github.com/citeq/citeq/internal/testenv"
	"github.com/citeq/citeq/state"
)

// TestOperatorKey: the operator key is created once, kept in a file only its owner reads,
// reused while it is live and replaced once revoked; the gate that names it lets it past the
// free quota, while a free key and a caller without a key are still stopped at 25.
func TestOperatorKey(t *testing.T) {
	for name, dsn := range testenv.StateDSNs(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			dir := t.TempDir()
			store, err := state.Open(ctx, dsn(t), dir)
			if err != nil {
				t.Fatal(err)
			}
			defer store.Close()
			file := filepath.Join(dir, "var", "operator.key")

			first, err := LoadOperatorKey(ctx, store, file)
			if err != nil {
				t.Fatal(err)
			}
			if !first.Created || first.Key.Owner != OperatorOwner || first.Key.Plan != state.PlanFree {
				t.Fatalf("first load: %+v", first)
			}
			b, err := os.ReadFile(file)
			if err != nil || strings.TrimSpace(string(b)) != first.Secret {
				t.Fatalf("file holds %q (%v), want the key", b, err)
			}
			if fi, _ := os.Stat(file); fi.Mode().Perm() != 0o600 {
				t.Errorf("file mode %v, want 0600", fi.Mode().Perm())
			}
			again, err := LoadOperatorKey(ctx, store, file)
			if err != nil || again.Created || again.Secret != first.Secret || again.Key.ID != first.Key.ID {
				t.Fatalf("second load: %+v, %v; want the same key, not created", again, err)
			}

			gate := &Gate{Store: store, Operator: first.Key.ID}
			free, freeKey, err := store.CreateKey(ctx, state.PlanFree, "someone")
			if err != nil {
				t.Fatal(err)
			}
			callers := []struct {
				name    string
				auth    string
				allowed int // queries allowed out of 40
			}{
				{"operator key", "Bearer " + first.Secret, 40},
				{"free key", "Bearer " + free, state.FreeQueries},
				{"no key", "", state.FreeQueries},
			}
			for _, c := range callers {
				allowed := 0
				var last string
				for i := 0; i < 40; i++ {
					caller, e := gate.Identify(ctx, c.auth, "192.0.2.7")
					if e != nil {
						t.Fatalf("%s: identify: %v", c.name, e)
					}
					rem, e := gate.CountQuery(ctx, caller)
					if e == nil {
						allowed++
					} else if e.Code != apierror.CodePaymentRequired {
						t.Fatalf("%s: %v", c.name, e)
					}
					last = rem
				}
				if allowed != c.allowed {
					t.Errorf("%s: %d of 40 queries allowed, want %d", c.name, allowed, c.allowed)
				}
				if c.allowed == 40 && last != "unlimited" {
					t.Errorf("%s: remaining %q, want unlimited", c.name, last)
				}
			}
			// The operator's queries were not counted; the free key's were.
			if n, _ := store.QueriesUsed(ctx, "key:"+first.Key.ID); n != 0 {
				t.Errorf("operator key counted %d queries", n)
			}
			if n, _ := store.QueriesUsed(ctx, "key:"+freeKey.ID); n != state.FreeQueries {
				t.Errorf("free key counted %d queries, want %d", n, state.FreeQueries)
			}
			// A gate that does not name the key (a server started without --operator-key)
			// limits it as any free key.
			plain := &Gate{Store: store}
			caller, _ := plain.Identify(ctx, "Bearer "+first.Secret, "192.0.2.8")
			if rem, e := plain.CountQuery(ctx, caller); e != nil || rem != "24" {
				t.Errorf("operator key without the gate naming it: remaining %q, %v; want 24", rem, e)
			}

			// A revoked key is replaced by a new one, written over the file.
			if err := store.RevokeKey(ctx, first.Key.ID); err != nil {
				t.Fatal(err)
			}
			third, err := LoadOperatorKey(ctx, store, file)
			if err != nil || !third.Created || third.Key.ID == first.Key.ID {
				t.Fatalf("after revocation: %+v, %v; want a new key", third, err)
			}
			if b, _ := os.ReadFile(file); strings.TrimSpace(string(b)) != third.Secret {
				t.Errorf("the file still holds the revoked key")
			}
			// A file that is not a key (garbage, or a key of another store) is replaced too.
			if err := os.WriteFile(file, []byte("cq_000000000000_"+strings.Repeat("0", 32)+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			if k, err := LoadOperatorKey(ctx, store, file); err != nil || !k.Created {
				t.Fatalf("unknown key in the file: %+v, %v", k, err)
			}
			// A file that cannot be written is an error, and the key made for it is revoked.
			if _, err := LoadOperatorKey(ctx, store, "/dev/null/operator.key"); err == nil {
				t.Error("no error for a file that cannot be written")
			}
		})
	}
}

package state

import (
	"strings"
	"testing"
)

func TestKeyIDFromSecret(t *testing.T) {
	id, secret, err := newKeySecret()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, secret, id string
		ok               bool
	}{
		{"new secret", secret, id, true},
		{"literal", "cq_0123456789ab_0123456789abcdef0123456789abcdef", "0123456789ab", true},
		{"empty", "", "", false},
		{"prefix", "cq_", "", false},
		{"short id", "cq_0123456789a_0123456789abcdef0123456789abcdef0", "", false},
		{"long id", "cq_0123456789abc_0123456789abcdef0123456789abcde", "", false},
		{"upper", "cq_0123456789AB_0123456789abcdef0123456789abcdef", "", false},
		{"no separator", "cq_0123456789ab00123456789abcdef0123456789abcdef", "", false},
		{"other prefix", "sk_0123456789ab_0123456789abcdef0123456789abcdef", "", false},
		{"trailing newline", "cq_0123456789ab_0123456789abcdef0123456789abcde\n", "", false},
		{"non-ASCII", "cq_0123456789ab_0123456789abcdef0123456789abcdé", "", false},
		{"long", strings.Repeat("cq_", 1000), "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			id, ok := keyIDFromSecret(tc.secret)
			if id != tc.id || ok != tc.ok {
				t.Errorf("keyIDFromSecret(%q) = %q, %v; want %q, %v", tc.secret, id, ok, tc.id, tc.ok)
			}
		})
	}
}

func TestNewKeySecret(t *testing.T) {
	seen := map[string]bool{}
	for range 100 {
		id, secret, err := newKeySecret()
		if err != nil {
			t.Fatal(err)
		}
		if m := keySecretRE.FindStringSubmatch(secret); m == nil || m[1] != id {
			t.Fatalf("newKeySecret = %q, %q", id, secret)
		}
		if seen[secret] {
			t.Fatalf("secret %q drawn twice", secret)
		}
		seen[secret] = true
	}
	if h := hashSecret("cq_0123456789ab_0123456789abcdef0123456789abcdef"); len(h) != 64 || !isLowerHex(h) {
		t.Errorf("hashSecret = %q, want 64 hex digits", h)
	}
}

package state

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
)

// Identifier and secret formats.
//
//	key id               12 hex digits
//	key secret           cq_<key id>_<32 hex digits>
//	subscription id      sub_<16 hex digits>
//	subscription secret  whsec_<32 hex digits>
const (
	keySecretPrefix = "cq_"
	keyIDLen        = 12
	keyRandomLen    = 32
	keySecretLen    = len(keySecretPrefix) + keyIDLen + 1 + keyRandomLen

	subIDPrefix     = "sub_"
	subIDLen        = 16
	subSecretPrefix = "whsec_"
	subSecretLen    = 32
)

// randomHex returns n random lowercase hex digits (n even) from crypto/rand.
func randomHex(n int) (string, error) {
	b := make([]byte, n/2)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("state: random: %w", err)
	}
	return hex.EncodeToString(b), nil
}

// newKeySecret returns a new key id and the secret that embeds it.
func newKeySecret() (id, secret string, err error) {
	if id, err = randomHex(keyIDLen); err != nil {
		return "", "", err
	}
	r, err := randomHex(keyRandomLen)
	if err != nil {
		return "", "", err
	}
	return id, keySecretPrefix + id + "_" + r, nil
}

// keyIDFromSecret returns the key id embedded in a secret of the form cq_<id>_<random>, or
// false when the secret does not have exactly that form.
func keyIDFromSecret(secret string) (string, bool) {
	if len(secret) != keySecretLen || secret[:len(keySecretPrefix)] != keySecretPrefix {
		return "", false
	}
	id := secret[len(keySecretPrefix) : len(keySecretPrefix)+keyIDLen]
	rest := secret[len(keySecretPrefix)+keyIDLen:]
	if rest[0] != '_' || !isLowerHex(id) || !isLowerHex(rest[1:]) {
		return "", false
	}
	return id, true
}

func isLowerHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// hashSecret is what is stored instead of a key secret: its SHA-256, in hex.
func hashSecret(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

// sameHash compares two hex hashes in constant time.
func sameHash(a, b string) bool {
	return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1
}

func validPlan(plan string) bool {
	switch plan {
	case PlanFree, PlanMonthly, PlanAnnual:
		return true
	}
	return false
}

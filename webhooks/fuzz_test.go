package webhooks_test

import (
	"net/netip"
	"testing"

	"github.com/citeq/citeq/webhooks"
)

// FuzzGuardControl: the dialer's check never panics, and never admits an address that is, or
// embeds in its last 32 bits as NAT64 or IPv4-compatible does, a loopback, private,
// link-local, unspecified or multicast IPv4 address.
func FuzzGuardControl(f *testing.F) {
	for _, seed := range []string{"93.184.216.34:443", "127.0.0.1:443", "[::1]:443", "[::ffff:10.0.0.1]:80", "[64:ff9b::7f00:1]:443",
		"[2002:a00:1::1]:443", "[::10.0.0.1]:443", "[2001:0:5db8:d822::f5ff:fffe]:443", "[fe80::1%eth0]:80", "x:1", ""} {
		f.Add(seed)
	}
	g := webhooks.Guard{}
	f.Fuzz(func(t *testing.T, address string) {
		if g.Control("tcp", address, nil) != nil {
			return
		}
		ap, err := netip.ParseAddrPort(address)
		if err != nil {
			t.Fatalf("admitted %q, which is no address", address)
		}
		a := ap.Addr().Unmap()
		bad := func(v4 netip.Addr) bool {
			return v4.IsLoopback() || v4.IsPrivate() || v4.IsLinkLocalUnicast() || v4.IsUnspecified() || v4.IsMulticast()
		}
		if bad(a) {
			t.Fatalf("admitted %s", a)
		}
		if a.Is6() {
			b := a.As16()
			last := netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]})
			nat64 := netip.MustParsePrefix("64:ff9b::/96")
			compat := netip.MustParsePrefix("::/96")
			if (nat64.Contains(a) || compat.Contains(a)) && bad(last) {
				t.Fatalf("admitted %s, which embeds %s", a, last)
			}
		}
	})
}

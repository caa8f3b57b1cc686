// Package webhooks delivers snapshot.promoted events to subscribers: the callback-safety
// guard (no loopback, private, link-local, unique-local, multicast or unspecified targets,
// checked at subscription and again at every connection), HMAC-SHA256 signatures, the event
// payload, and the delivery worker that drains the durable outbox with retries.
package webhooks

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
)

// Guard decides which callback URLs are acceptable.
type Guard struct {
	// AllowInsecure admits http and loopback callbacks. For local testing only.
	AllowInsecure bool
	// Resolver looks host names up (nil: net.DefaultResolver).
	Resolver *net.Resolver
}

// ErrForbiddenAddress is returned for a callback whose host resolves to an address that
// must not be called.
var ErrForbiddenAddress = errors.New("callback address not allowed")

// forbidden reports why addr may not be called ("" when it may).
func (g Guard) forbidden(addr netip.Addr) string {
	addr = addr.Unmap()
	switch {
	case addr.IsLoopback():
		if g.AllowInsecure {
			return ""
		}
		return "loopback"
	case addr.IsUnspecified():
		return "unspecified"
	case addr.IsPrivate():
		return "private"
	case addr.IsLinkLocalUnicast(), addr.IsLinkLocalMulticast():
		return "link-local"
	case addr.IsMulticast(), addr.IsInterfaceLocalMulticast():
		return "multicast"
	case addr.Is4() && addr.As4()[0] == 0:
		return "this-network"
	case addr.Is4() && addr.As4()[0] == 100 && addr.As4()[1]&0xC0 == 64:
		return "shared address space (carrier-grade NAT)"
	case addr == netip.AddrFrom4([4]byte{255, 255, 255, 255}):
		return "broadcast"
	case nat64Local.Contains(addr):
		return "local-use NAT64"
	}
	for _, e := range embedded(addr) {
		if why := g.forbidden(e.v4); why != "" {
			return why + " (" + e.v4.String() + " embedded in a " + e.kind + " address)"
		}
	}
	return ""
}

var (
	nat64      = netip.MustParsePrefix("64:ff9b::/96")
	nat64Local = netip.MustParsePrefix("64:ff9b:1::/48")
	sixToFour  = netip.MustParsePrefix("2002::/16")
	teredo     = netip.MustParsePrefix("2001::/32")
	v4Compat   = netip.MustParsePrefix("::/96")
)

// embeddedV4 is an IPv4 address carried inside an IPv6 one, which a translator or relay
// may end up connecting to.
type embeddedV4 struct {
	kind string
	v4   netip.Addr
}

// embedded returns the IPv4 addresses an IPv6 address embeds: NAT64 (64:ff9b::/96, the
// last 32 bits), 6to4 (2002::/16, bits 16 to 47), Teredo (2001::/32: the server in bits 32
// to 63, the client inverted in the last 32) and IPv4-compatible (::a.b.c.d).
func embedded(addr netip.Addr) []embeddedV4 {
	if !addr.Is6() {
		return nil
	}
	b := addr.As16()
	last := netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]})
	switch {
	case nat64.Contains(addr):
		return []embeddedV4{{"NAT64", last}}
	case sixToFour.Contains(addr):
		return []embeddedV4{{"6to4", netip.AddrFrom4([4]byte{b[2], b[3], b[4], b[5]})}}
	case teredo.Contains(addr):
		return []embeddedV4{{"Teredo", netip.AddrFrom4([4]byte{b[4], b[5], b[6], b[7]})},
			{"Teredo", netip.AddrFrom4([4]byte{^b[12], ^b[13], ^b[14], ^b[15]})}}
	case v4Compat.Contains(addr):
		return []embeddedV4{{"IPv4-compatible", last}}
	}
	return nil
}

// MaxCallbackURL is the longest callback URL accepted, in bytes.
const MaxCallbackURL = 2048

// CheckURL validates a callback URL: https (http only when AllowInsecure), a host, and every
// address the host resolves to allowed.
func (g Guard) CheckURL(ctx context.Context, raw string) error {
	if len(raw) > MaxCallbackURL {
		return fmt.Errorf("callback_url is %d bytes long, over the limit of %d", len(raw), MaxCallbackURL)
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return fmt.Errorf("callback_url %q is not an absolute URL", raw)
	}
	switch {
	case u.Scheme == "https":
	case u.Scheme == "http" && g.AllowInsecure:
	default:
		return fmt.Errorf("callback_url must use https, not %q", u.Scheme)
	}
	if u.User != nil {
		return errors.New("callback_url must not carry credentials")
	}
	host := u.Hostname()
	addrs, err := g.resolve(ctx, host)
	if err != nil {
		return fmt.Errorf("callback host %s does not resolve: %w", host, err)
	}
	for _, a := range addrs {
		if why := g.forbidden(a); why != "" {
			return fmt.Errorf("%w: %s resolves to %s, a %s address", ErrForbiddenAddress, host, a, why)
		}
	}
	return nil
}

func (g Guard) resolve(ctx context.Context, host string) ([]netip.Addr, error) {
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if a, err := netip.ParseAddr(host); err == nil {
		return []netip.Addr{a}, nil
	}
	r := g.Resolver
	if r == nil {
		r = net.DefaultResolver
	}
	ips, err := r.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return nil, err
	}
	if len(ips) == 0 {
		return nil, errors.New("no addresses")
	}
	return ips, nil
}

// Control is a net.Dialer Control function that refuses to connect to a forbidden address:
// the check that holds even when DNS changes between subscription and delivery.
func (g Guard) Control(network, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("%w: %s", ErrForbiddenAddress, address)
	}
	if why := g.forbidden(ap.Addr()); why != "" {
		return fmt.Errorf("%w: %s is a %s address", ErrForbiddenAddress, ap.Addr(), why)
	}
	return nil
}

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
	}
	return ""
}

// CheckURL validates a callback URL: https (http only when AllowInsecure), a host, and every
// address the host resolves to allowed.
func (g Guard) CheckURL(ctx context.Context, raw string) error {
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

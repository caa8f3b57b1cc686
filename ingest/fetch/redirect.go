package fetch

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// PublisherDomains are the publishers' own domains: a redirect from a host in one of them may
// lead to another host in the same one (www.eia.gov to api.eia.gov), never to a host outside
// it. Any other redirect must stay on the host asked (the same host and port: a mirror).
var PublisherDomains = []string{
	"caiso.com", "census.gov", "eia.gov", "ercot.com", "fcc.gov", "ferc.gov", "iso-ne.com",
	"misoenergy.org", "nsf.gov", "nyiso.com", "pjm.com", "spp.org", "stlouisfed.org",
}

// maxRedirects is the most redirects one download follows.
const maxRedirects = 10

// guarded returns client (nil: the default client) with the redirect policy of a download of
// origin: a redirect is followed only to origin's host, or to another host of origin's
// publisher domain, and never from https to http; anything else is refused with the request
// never sent, so that nothing (a key in the address among it) reaches another host.
func guarded(client *http.Client, origin *url.URL) *http.Client {
	if client == nil {
		client = defaultClient
	}
	c := *client
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		return checkRedirect(origin, via[len(via)-1].URL, req.URL, len(via))
	}
	return &c
}

// checkRedirect refuses the redirect from prev to next, the hops-th of a download of origin,
// when it leaves origin's host and publisher domain or goes from https to http.
func checkRedirect(origin, prev, next *url.URL, hops int) error {
	shown := origin.Redacted()
	if q := strings.IndexByte(shown, '?'); q >= 0 {
		shown = shown[:q]
	}
	where := next.Scheme + "://" + next.Host + next.EscapedPath()
	switch {
	case hops > maxRedirects:
		return &RefusedError{URL: shown, Reason: fmt.Sprintf("the server redirected more than %d times", maxRedirects),
			Advice: "the address loops; check the URL"}
	case prev.Scheme == "https" && next.Scheme != "https":
		return &RefusedError{URL: shown, Reason: fmt.Sprintf("the server redirected from https to %s (%s), which would send the request unencrypted; the redirect was not followed", next.Scheme, where),
			Advice: "check the URL on the agency's site"}
	case !sameHost(origin, next) && (publisherDomain(origin.Hostname()) == "" || publisherDomain(origin.Hostname()) != publisherDomain(next.Hostname())):
		return &RefusedError{URL: shown, Reason: fmt.Sprintf("the server redirected to another host (%s); a download follows redirects only within %s and its publisher's own hosts, so the redirect was not followed", where, origin.Host),
			Advice: "check the URL on the agency's site; if the agency has moved the file to another host, the source's address must be changed"}
	}
	return nil
}

// sameHost reports whether a and b name the same host and port (a port left out is the
// scheme's).
func sameHost(a, b *url.URL) bool {
	return strings.EqualFold(a.Hostname(), b.Hostname()) && port(a) == port(b)
}

func port(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	switch u.Scheme {
	case "https":
		return "443"
	case "ftp":
		return "21"
	}
	return "80"
}

// publisherDomain is the entry of PublisherDomains that host is, or is under; "" for none.
func publisherDomain(host string) string {
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	for _, d := range PublisherDomains {
		if host == d || strings.HasSuffix(host, "."+d) {
			return d
		}
	}
	return ""
}

// Package access decides who is calling and whether a query may run: API keys presented as
// "Authorization: Bearer <key>", the free quota of 25 queries (per key, or per client address
// for callers without a key), the paid plans that lift it, and the operator key that lifts it
// for the person running the server alone. REST and MCP both count queries through it (see
// package ask), so a query counts the same whichever way it arrives.
package access

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"

	"github.com/citeq/citeq/apierror"
	"github.com/citeq/citeq/state"
)

// RemainingHeader is the response header that says how many free queries remain
// ("unlimited" for a paid plan).
const RemainingHeader = "X-Free-Queries-Remaining"

// The paid plans' prices, in U.S. dollars: each lifts the free quota.
const (
	PriceMonthlyUSD = 49
	PriceAnnualUSD  = 490
)

// PlanPrices names the paid plans with their prices, as a refusal for payment gives them.
func PlanPrices() string {
	return fmt.Sprintf("monthly, %d USD a month, or annual, %d USD a year", PriceMonthlyUSD, PriceAnnualUSD)
}

// Caller is who is calling: a key, or (without one) a client address.
type Caller struct {
	Key  *state.Key
	Addr string
}

// Subject is the quota counter of the caller.
func (c Caller) Subject() string {
	if c.Key != nil {
		return "key:" + c.Key.ID
	}
	return "ip:" + c.Addr
}

// Paid reports whether the caller's plan lifts the free quota.
func (c Caller) Paid() bool {
	return c.Key != nil && (c.Key.Plan == state.PlanMonthly || c.Key.Plan == state.PlanAnnual)
}

// Gate authenticates callers and counts their queries.
type Gate struct {
	Store state.Store
	// FreeQueries is the free quota (state.FreeQueries when 0).
	FreeQueries int
	// Operator is the id of the operator key (LoadOperatorKey) of the server this gate
	// guards: its queries are not counted ("" when the server has none). No other caller's
	// quota changes.
	Operator string
	// OperatorFile is the file the operator key is kept in: a caller on this machine (a
	// loopback address) that runs out of free queries is told to send it.
	OperatorFile string
}

// Identify reads the caller from an Authorization header value and the client address. No
// header is an anonymous caller; a header that is not a valid, live key is an error (never a
// silent fall back to the address).
func (g *Gate) Identify(ctx context.Context, authorization, addr string) (Caller, *apierror.Error) {
	authorization = strings.TrimSpace(authorization)
	if authorization == "" {
		return Caller{Addr: addr}, nil
	}
	scheme, secret, ok := strings.Cut(authorization, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(secret) == "" {
		return Caller{}, &apierror.Error{Status: 401, Code: apierror.CodeInvalidKey, Message: "present the API key as the header \"Authorization: Bearer <key>\""}
	}
	key, err := g.Store.LookupKey(ctx, strings.TrimSpace(secret))
	switch {
	case errors.Is(err, state.ErrRevoked):
		return Caller{}, &apierror.Error{Status: 401, Code: apierror.CodeRevokedKey, Message: "this API key has been revoked; ask the operator for a new one (citeq keys create)"}
	case errors.Is(err, state.ErrNotFound):
		return Caller{}, &apierror.Error{Status: 401, Code: apierror.CodeInvalidKey, Message: "this API key is not known; check it was copied whole (it starts with cq_), or ask the operator for one (citeq keys create)"}
	case err != nil:
		return Caller{}, apierror.New(500, apierror.CodeInternal, "the key store failed; retry shortly").Because(fmt.Errorf("look up a key: %w", err))
	}
	return Caller{Key: &key, Addr: addr}, nil
}

// RequireKey is Identify for endpoints that need a key (webhooks).
func (g *Gate) RequireKey(ctx context.Context, authorization, addr string) (Caller, *apierror.Error) {
	if strings.TrimSpace(authorization) == "" {
		return Caller{}, &apierror.Error{Status: 401, Code: apierror.CodeKeyRequired, Message: "this endpoint needs an API key: send \"Authorization: Bearer <key>\" (an operator creates one with citeq keys create)"}
	}
	return g.Identify(ctx, authorization, addr)
}

func (g *Gate) free() int {
	if g.FreeQueries > 0 {
		return g.FreeQueries
	}
	return state.FreeQueries
}

// CountQuery counts one query of the caller and returns the value of the remaining-queries
// header, or payment_required once the free queries are used.
func (g *Gate) CountQuery(ctx context.Context, c Caller) (string, *apierror.Error) {
	if c.Paid() || (c.Key != nil && g.Operator != "" && c.Key.ID == g.Operator) {
		return "unlimited", nil
	}
	used, allowed, err := g.Store.ConsumeQuery(ctx, c.Subject(), g.free())
	if err != nil {
		return "", apierror.New(500, apierror.CodeInternal, "the quota store failed; retry shortly").Because(fmt.Errorf("count a query of %s: %w", c.Subject(), err))
	}
	if !allowed {
		who := "this API key"
		if c.Key == nil {
			who = "callers without an API key from this address"
		}
		return "0", &apierror.Error{Status: 402, Code: apierror.CodePaymentRequired, Message: fmt.Sprintf(
			"the %d free queries of %s are used. Subscribe to a paid plan for unlimited queries: %s; "+
				"the operator upgrades a key with citeq keys plan <key id> monthly|annual (or creates one with citeq keys create --plan monthly). "+
				"Discover, describe and verify stay free.%s", g.free(), who, PlanPrices(), g.operatorHint(c))}
	}
	return strconv.Itoa(max(0, g.free()-used)), nil
}

// operatorHint is, for a caller on the server's own machine (a loopback address) that is not
// using the operator key, the sentence that points it to the key: the person who started the
// server is most likely the caller, and their queries are not limited with it.
func (g *Gate) operatorHint(c Caller) string {
	ip := net.ParseIP(c.Addr)
	if g.OperatorFile == "" || ip == nil || !ip.IsLoopback() || (c.Key != nil && c.Key.ID == g.Operator) {
		return ""
	}
	return fmt.Sprintf(" You are calling from the server's own machine: this server's operator key, kept in %s, is not limited by the free quota. "+
		"Send it as the header \"Authorization: Bearer <key>\" (with curl: -H \"Authorization: Bearer $(cat %s)\"); bin/citeq sends it by itself when run from the repository's directory.",
		g.OperatorFile, g.OperatorFile)
}

package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/citeq/citeq/access"
	"github.com/citeq/citeq/apierror"
	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/jsonw"
	"github.com/citeq/citeq/service"
	"github.com/citeq/citeq/state"
	"github.com/citeq/citeq/webhooks"
)

// SubscriptionRequest is the body of a subscription create.
type SubscriptionRequest struct {
	DataPoint   string `json:"data_point"`
	CallbackURL string `json:"callback_url"`
}

// ParseSubscription reads a subscription create body: exactly one JSON object with
// data_point and callback_url, no other member, nothing after it.
func ParseSubscription(body []byte) (SubscriptionRequest, *apierror.Error) {
	var req SubscriptionRequest
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		return req, &apierror.Error{Status: 400, Code: apierror.CodeInvalidRequest, Message: "send {\"data_point\": \"<capability>\", \"callback_url\": \"https://...\"} (" + err.Error() + ")"}
	}
	if err := dec.Decode(&struct{}{}); err != io.EOF {
		return req, &apierror.Error{Status: 400, Code: apierror.CodeInvalidRequest, Message: "the body holds more than one JSON object; send exactly {\"data_point\": \"<capability>\", \"callback_url\": \"https://...\"}"}
	}
	return req, nil
}

// Subscription list pages: DefaultPage by default, at most MaxPage.
const (
	DefaultPage = 50
	MaxPage     = 100
)

// pageParams reads limit and after of a subscription listing.
func pageParams(c *gin.Context) (int, string, *apierror.Error) {
	q, err := url.ParseQuery(c.Request.URL.RawQuery)
	if err != nil {
		return 0, "", &apierror.Error{Status: 400, Code: apierror.CodeInvalidParameter, Message: "the query string does not parse (" + err.Error() + "); use limit=<1.." + strconv.Itoa(MaxPage) + ">&after=<subscription id>"}
	}
	limit := DefaultPage
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > MaxPage {
			return 0, "", &apierror.Error{Status: 400, Code: apierror.CodeInvalidParameter, Message: "limit must be an integer between 1 and " + strconv.Itoa(MaxPage) + ", got " + strconv.Quote(v)}
		}
		limit = n
	}
	return limit, q.Get("after"), nil
}

// Eligible reports whether a capability can be subscribed to: served, not sub-daily, and
// not derived (a derived capability is computed at query time and never promoted, so it has
// no snapshot.promoted event).
func Eligible(svc *service.Service, id string) (*capability.Capability, bool) {
	for _, c := range svc.Served() {
		if c.ID == id {
			return c, !SubDaily(c) && len(c.Inputs) == 0
		}
	}
	return capability.ByID(id), false
}

// SubDaily reports whether a capability publishes more often than daily (hourly data such as
// demand or day-ahead prices), which webhooks do not cover.
func SubDaily(c *capability.Capability) bool { return c.Cadence.SubDaily() }

func eligibleList(svc *service.Service) string {
	var ids []string
	for _, c := range svc.Served() {
		if !SubDaily(c) && len(c.Inputs) == 0 {
			ids = append(ids, c.ID)
		}
	}
	sort.Strings(ids)
	return strings.Join(ids, ", ")
}

// subscriptionLimit refuses a subscription beyond state.MaxSubscriptionsPerKey.
func subscriptionLimit() *apierror.Error {
	return apierror.New(409, apierror.CodeSubscriptionLimit, "this key already holds %d subscriptions, the most allowed; DELETE /v1/webhooks/subscriptions/{id} the ones you no longer need, then subscribe again", state.MaxSubscriptionsPerKey)
}

func registerWebhooks(r *gin.Engine, svc *service.Service, gate *access.Gate, guard webhooks.Guard) {
	auth := func(c *gin.Context) (access.Caller, bool) {
		caller, e := gate.RequireKey(c.Request.Context(), c.GetHeader("Authorization"), c.ClientIP())
		if e != nil {
			writeErr(c, e)
			return caller, false
		}
		return caller, true
	}
	// The webhook answers are written as every answer is (jsonw): a callback URL's query
	// string keeps its & as sent.
	noStore := func(c *gin.Context, body any) {
		b, err := jsonw.Marshal(body)
		if err != nil {
			writeErr(c, apierror.New(500, apierror.CodeInternal, "the answer could not be written; retry, and report the X-Request-Id if it persists").Because(fmt.Errorf("write a webhook answer: %w", err)))
			return
		}
		c.Header("Cache-Control", "no-store")
		c.Data(http.StatusOK, "application/json", b)
	}
	r.POST("/v1/webhooks/subscriptions", func(c *gin.Context) {
		caller, ok := auth(c)
		if !ok {
			return
		}
		body, e := readBody(c)
		if e != nil {
			writeErr(c, e)
			return
		}
		req, e := ParseSubscription(body)
		if e != nil {
			writeErr(c, e)
			return
		}
		capDef, eligible := Eligible(svc, req.DataPoint)
		switch {
		case req.DataPoint == "":
			writeErr(c, &apierror.Error{Status: 400, Code: apierror.CodeInvalidRequest, Message: "data_point is required: the identifier of a served capability, one of: " + eligibleList(svc)})
			return
		case capDef != nil && len(capDef.Inputs) > 0:
			writeErr(c, &apierror.Error{Status: 400, Code: apierror.CodeInvalidRequest, Message: "data_point " + req.DataPoint + " is computed at query time from " + strings.Join(capDef.Inputs, " and ") + " and never promoted, so it has no snapshot.promoted event; subscribe to its inputs instead (eligible: " + eligibleList(svc) + ")"})
			return
		case capDef == nil || (!eligible && !SubDaily(capDef)):
			writeErr(c, &apierror.Error{Status: 400, Code: apierror.CodeInvalidRequest, Message: "data_point " + req.DataPoint + " is not a served capability; subscribe to one of: " + eligibleList(svc)})
			return
		case !eligible:
			writeErr(c, &apierror.Error{Status: 400, Code: apierror.CodeInvalidRequest, Message: "data_point " + req.DataPoint + " changes more often than daily (" + string(capDef.Cadence) + "), so it cannot be subscribed to; eligible: " + eligibleList(svc)})
			return
		}
		if err := guard.CheckURL(c.Request.Context(), req.CallbackURL); err != nil {
			writeErr(c, &apierror.Error{Status: 400, Code: apierror.CodeInvalidRequest, Message: err.Error() + "; give a public https URL"})
			return
		}
		sub, err := gate.Store.CreateSubscription(c.Request.Context(), caller.Key.ID, req.DataPoint, req.CallbackURL)
		if errors.Is(err, state.ErrLimit) {
			writeErr(c, subscriptionLimit())
			return
		}
		if err != nil {
			writeErr(c, apierror.New(500, apierror.CodeInternal, "the subscription could not be stored; retry").Because(fmt.Errorf("store a subscription of key %s: %w", caller.Key.ID, err)))
			return
		}
		noStore(c, map[string]any{
			"id": sub.ID, "data_point": sub.DataPoint, "callback_url": sub.CallbackURL, "status": "active",
			"created_at": sub.CreatedAt.UTC().Format(time.RFC3339), "signing_secret": sub.Secret,
			"signature": "each delivery carries " + webhooks.SignatureHeader + ": t=<unix seconds>,v1=<hex HMAC-SHA256(signing_secret, t + \".\" + body)>; the signing secret is shown only now",
		})
	})
	r.GET("/v1/webhooks/subscriptions", func(c *gin.Context) {
		caller, ok := auth(c)
		if !ok {
			return
		}
		limit, after, e := pageParams(c)
		if e != nil {
			writeErr(c, e)
			return
		}
		subs, err := gate.Store.ListSubscriptions(c.Request.Context(), caller.Key.ID)
		if err != nil {
			writeErr(c, apierror.New(500, apierror.CodeInternal, "the subscriptions could not be read; retry").Because(fmt.Errorf("list the subscriptions of key %s: %w", caller.Key.ID, err)))
			return
		}
		start := 0
		if after != "" {
			start = -1
			for i, s := range subs {
				if s.ID == after {
					start = i + 1
				}
			}
			if start < 0 {
				writeErr(c, &apierror.Error{Status: 400, Code: apierror.CodeInvalidParameter, Message: "after=" + after + " is not one of this key's subscriptions; pass the next_after of the previous page, or leave it out for the first page"})
				return
			}
		}
		page := subs[start:min(start+limit, len(subs))]
		list := []map[string]any{}
		for _, s := range page {
			list = append(list, map[string]any{"id": s.ID, "data_point": s.DataPoint, "callback_url": s.CallbackURL, "status": "active",
				"created_at": s.CreatedAt.UTC().Format(time.RFC3339)})
		}
		out := map[string]any{"subscriptions": list}
		if start+limit < len(subs) {
			out["next_after"] = page[len(page)-1].ID
		}
		noStore(c, out)
	})
	r.DELETE("/v1/webhooks/subscriptions/:id", func(c *gin.Context) {
		caller, ok := auth(c)
		if !ok {
			return
		}
		id := c.Param("id")
		err := gate.Store.DeleteSubscription(c.Request.Context(), caller.Key.ID, id)
		switch {
		case errors.Is(err, state.ErrNotFound):
			writeErr(c, &apierror.Error{Status: 404, Code: apierror.CodeSubscriptionNotFound, Message: "no subscription " + id + " of this key; GET /v1/webhooks/subscriptions lists yours"})
			return
		case err != nil:
			writeErr(c, apierror.New(500, apierror.CodeInternal, "the subscription could not be deleted; retry").Because(fmt.Errorf("delete subscription %s of key %s: %w", id, caller.Key.ID, err)))
			return
		}
		noStore(c, map[string]any{"id": id, "deleted": true})
	})
	r.GET("/v1/webhooks/deliveries", func(c *gin.Context) {
		caller, ok := auth(c)
		if !ok {
			return
		}
		ds, err := gate.Store.ListDeliveries(c.Request.Context(), caller.Key.ID, 100)
		if err != nil {
			writeErr(c, apierror.New(500, apierror.CodeInternal, "the deliveries could not be read; retry").Because(fmt.Errorf("list the deliveries of key %s: %w", caller.Key.ID, err)))
			return
		}
		list := []map[string]any{}
		for _, d := range ds {
			item := map[string]any{"event_id": d.EventID, "subscription_id": d.SubscriptionID, "status": d.Status, "attempts": d.Attempts}
			if d.Status == state.DeliveryPending {
				item["next_attempt"] = d.NextAttempt.UTC().Format(time.RFC3339)
			}
			if d.LastError != "" {
				item["last_error"] = d.LastError
			}
			if d.DeliveredAt != nil {
				item["delivered_at"] = d.DeliveredAt.UTC().Format(time.RFC3339)
			}
			list = append(list, item)
		}
		noStore(c, map[string]any{"deliveries": list})
	})
}

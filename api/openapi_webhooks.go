package api

import "github.com/citeq/citeq/service"

// The webhook endpoints (served by the REST layer with accounts) in the OpenAPI document.
func init() {
	extraPaths = append(extraPaths, oaWebhookSubscriptions, oaWebhookSubscription, oaWebhookDeliveries)
}

var oaKeyed = []service.Obj{{{"bearerAuth", []string{}}}}

func oaWebhookOp(op oaOp) service.Obj {
	o := op.build()
	return append(o, service.KV{"security", oaKeyed})
}

func oaSubscriptionSchema(withSecret bool) service.Obj {
	props := service.Obj{
		{"id", oaStr("subscription id (sub_…)")},
		{"data_point", oaStr("the capability identifier subscribed to")},
		{"callback_url", service.Obj{{"type", "string"}, {"format", "uri"}}},
		{"status", service.Obj{{"type", "string"}, {"enum", []string{"active"}}}},
		{"created_at", service.Obj{{"type", "string"}, {"format", "date-time"}}},
	}
	required := []string{"id", "data_point", "callback_url", "status", "created_at"}
	if withSecret {
		props = append(props, service.KV{"signing_secret", oaStr("the HMAC-SHA256 signing secret of the deliveries (whsec_…), returned only here")},
			service.KV{"signature", oaStr("how deliveries are signed")})
		required = append(required, "signing_secret")
	}
	return oaObject("", props, required...)
}

func oaWebhookSubscriptions(s *service.Service) (string, service.Obj) {
	body := service.Obj{{"required", true}, {"content", service.Obj{{"application/json", service.Obj{
		{"schema", oaObject("", service.Obj{
			{"data_point", oaStr("identifier of a served capability whose cadence is not sub-daily, e.g. " + exampleCap().ID)},
			{"callback_url", service.Obj{{"type", "string"}, {"format", "uri"}, {"pattern", "^https://"}, {"description", "a public https URL"}}},
		}, "data_point", "callback_url")},
		{"example", service.Obj{{"data_point", exampleCap().ID}, {"callback_url", "https://example.org/hooks/citeq"}}},
	}}}}}
	create := oaOp{id: "webhooks_subscriptions_post", tags: []string{"webhooks"}, summary: "Subscribe to snapshot.promoted events of a data point",
		desc: "Creates an active subscription of the calling key and returns its id and signing secret (shown only now). Each promotion of a new snapshot of the data point is POSTed to callback_url as JSON {id, type, created, data_point, as_of, previous_as_of, rows, previous_rows, snapshot} with X-Service-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(signing_secret, t + \".\" + body)> and X-Service-Event-Id; retried with exponential backoff, at least once.",
		body: body, ok: oaJSONOK("The subscription, with its signing secret.", oaSubscriptionSchema(true)), errs: []string{"400", "401", "409", "413"}}
	list := oaOp{id: "webhooks_subscriptions_get", tags: []string{"webhooks"}, summary: "List the calling key's subscriptions",
		desc: "The active subscriptions of the calling key only, oldest first, a page at a time; never a signing secret. next_after, when present, is the after of the next page.",
		params: []service.Obj{
			{{"name", "limit"}, {"in", "query"}, {"required", false}, {"description", "subscriptions per page"}, {"schema", service.Obj{{"type", "integer"}, {"minimum", 1}, {"maximum", 100}, {"default", 50}}}},
			{{"name", "after"}, {"in", "query"}, {"required", false}, {"description", "the next_after of the previous page"}, {"schema", service.Obj{{"type", "string"}}}},
		},
		ok: oaJSONOK("The subscriptions.", oaObject("", service.Obj{{"subscriptions", oaArray(oaSubscriptionSchema(false), "")},
			{"next_after", oaStr("present when more subscriptions follow: pass it as after")}}, "subscriptions")), errs: []string{"400", "401"}}
	return "/v1/webhooks/subscriptions", service.Obj{{"post", oaWebhookOp(create)}, {"get", oaWebhookOp(list)}}
}

func oaWebhookSubscription(s *service.Service) (string, service.Obj) {
	del := oaOp{id: "webhooks_subscription_delete", tags: []string{"webhooks"}, summary: "Delete a subscription",
		desc:   "Deletes a subscription of the calling key; its pending deliveries are dropped. Unknown, already deleted and other keys' subscriptions are all 404 subscription_not_found.",
		params: []service.Obj{{{"name", "id"}, {"in", "path"}, {"required", true}, {"schema", service.Obj{{"type", "string"}}}}},
		ok:     oaJSONOK("Deleted.", oaObject("", service.Obj{{"id", oaStr("")}, {"deleted", service.Obj{{"type", "boolean"}, {"const", true}}}}, "id", "deleted")),
		errs:   []string{"401", "404"}}
	return "/v1/webhooks/subscriptions/{id}", service.Obj{{"delete", oaWebhookOp(del)}}
}

func oaWebhookDeliveries(s *service.Service) (string, service.Obj) {
	item := oaObject("", service.Obj{
		{"event_id", oaStr("")}, {"subscription_id", oaStr("")},
		{"status", service.Obj{{"type", "string"}, {"enum", []string{"pending", "delivered", "dead"}}}},
		{"attempts", oaInteger("")},
		{"next_attempt", service.Obj{{"type", "string"}, {"format", "date-time"}}},
		{"last_error", oaStr("")},
		{"delivered_at", service.Obj{{"type", "string"}, {"format", "date-time"}}},
	}, "event_id", "subscription_id", "status", "attempts")
	op := oaOp{id: "webhooks_deliveries_get", tags: []string{"webhooks"}, summary: "List the calling key's recent deliveries",
		desc: "The 100 most recent deliveries of the calling key's subscriptions, newest first.",
		ok:   oaJSONOK("The deliveries.", oaObject("", service.Obj{{"deliveries", oaArray(item, "")}}, "deliveries")), errs: []string{"401"}}
	return "/v1/webhooks/deliveries", service.Obj{{"get", oaWebhookOp(op)}}
}

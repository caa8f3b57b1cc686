package webhooks

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
	"time"
)

// Delivery headers.
const (
	SignatureHeader = "X-Service-Signature"
	EventIDHeader   = "X-Service-Event-Id"
	EventTypeHeader = "X-Service-Event-Type"
	AttemptHeader   = "X-Service-Delivery-Attempt"
)

// Sign returns the X-Service-Signature value of body sent at t under secret:
// "t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<unix seconds>." + body)>".
func Sign(secret string, t time.Time, body []byte) string {
	ts := strconv.FormatInt(t.Unix(), 10)
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(ts))
	mac.Write([]byte("."))
	mac.Write(body)
	return "t=" + ts + ",v1=" + hex.EncodeToString(mac.Sum(nil))
}

// Verify checks a signature header against body and secret, refusing signatures older than
// tolerance (0: any age). Receivers can use it, or reimplement the two lines above.
func Verify(secret, header string, body []byte, now time.Time, tolerance time.Duration) bool {
	var ts, v1 string
	for _, part := range strings.Split(header, ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(part), "=")
		switch k {
		case "t":
			ts = v
		case "v1":
			v1 = v
		}
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || v1 == "" {
		return false
	}
	if tolerance > 0 && now.Sub(time.Unix(sec, 0)).Abs() > tolerance {
		return false
	}
	want := Sign(secret, time.Unix(sec, 0), body)
	return hmac.Equal([]byte(want), []byte("t="+ts+",v1="+v1))
}

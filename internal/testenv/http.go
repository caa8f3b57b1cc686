package testenv

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// Do sends one HTTP request (with "Authorization: Bearer key" when key is set) and returns
// the response, whose body is read and closed, and the body.
func Do(t testing.TB, method, url, key, body string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, b
}

package main

import (
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/citeq/citeq/access"
	"github.com/citeq/citeq/internal/testenv"
)

// clientEnv is the environment of a client command talking to addr: the test's own, without
// any key it may carry.
func clientEnv(addr string, extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "CITEQ_API_KEY=") && !strings.HasPrefix(kv, "CITEQ_API_KEY_FILE=") && !strings.HasPrefix(kv, "CITEQ_SERVER=") {
			env = append(env, kv)
		}
	}
	return append(append(env, "CITEQ_SERVER=http://"+addr), extra...)
}

// runClient runs a client command in dir and returns its output and error.
func runClient(t *testing.T, dir string, env []string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(binary(t), args...)
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// TestOperatorKeyPastTheQuota: a server started with --operator-key (as make run starts it)
// prints a key once and keeps it in a file only its owner reads; the command-line client run
// beside that file sends it by itself and keeps working past the 25 free queries, over two
// capabilities, while a client without it, and a free key, are still stopped at 25. A restart
// keeps the key without printing it again.
func TestOperatorKeyPastTheQuota(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "var")
	if err := os.Symlink(testenv.CopyDir(t, testenv.Data(t)), data); err != nil {
		t.Fatal(err)
	}
	keyFile := filepath.Join(data, "operator.key")
	srv := startServer(t, "--data", data, "--operator-key", keyFile)
	b, err := os.ReadFile(keyFile)
	if err != nil {
		t.Fatal(err)
	}
	secret := strings.TrimSpace(string(b))
	if !strings.HasPrefix(secret, "cq_") || strings.Count(srv.out.String(), secret) != 1 || !strings.Contains(srv.out.String(), "shown only now") {
		t.Fatalf("the key in %s (%q) is not printed once:\n%s", keyFile, secret, srv.out)
	}
	if fi, _ := os.Stat(keyFile); fi.Mode().Perm() != 0o600 {
		t.Errorf("%s has mode %v, want 0600", keyFile, fi.Mode().Perm())
	}
	if strings.Contains(srv.log.String(), secret) {
		t.Error("the key is in the server's log")
	}
	keyID := secret[3:15]

	queries := [][]string{
		{"query", "power/capacity", "--group-by", "lifecycle", "--metrics", "nameplate_mw"},
		{"query", "natural-gas/prices", "--filter", "atom=henry_hub_daily_spot", "--group-by", "year", "--metrics", "avg_price"},
	}
	// Beside var/operator.key (where make run leaves it), 30 queries: past the free quota.
	env := clientEnv(srv.addr)
	for i := 0; i < 30; i++ {
		out, err := runClient(t, dir, env, queries[i%2]...)
		if err != nil || !strings.Contains(out, "TOTAL") {
			t.Fatalf("query %d with the operator key: %v\n%s", i+1, err, out)
		}
	}
	if out := run(t, "keys", "list", "--data", data); !strings.Contains(out, keyID) || !strings.Contains(out, access.OperatorOwner) {
		t.Errorf("keys list does not show the operator key:\n%s", out)
	}

	// Elsewhere (no key file), the same client is a caller without a key: 25, then 402.
	elsewhere := t.TempDir()
	for i := 0; i < 26; i++ {
		out, err := runClient(t, elsewhere, env, queries[i%2]...)
		switch {
		case i < 25 && err != nil:
			t.Fatalf("query %d without a key: %v\n%s", i+1, err, out)
		case i == 25 && (err == nil || !strings.Contains(out, "payment_required")):
			t.Fatalf("query 26 without a key: %v\n%s", err, out)
		}
	}
	// A free key is stopped at 25 too; the operator key is unlimited over REST.
	free := createKey(t, "--data", data, "--plan", "free")
	paths := []string{"/v1/power/capacity/query?group_by=lifecycle", "/v1/natural-gas/prices/query?atom=henry_hub_daily_spot"}
	for i := 0; i < 26; i++ {
		resp, body := testenv.Do(t, "GET", "http://"+srv.addr+paths[i%2], free, "")
		if want := map[bool]int{true: 200, false: 402}[i < 25]; resp.StatusCode != want {
			t.Fatalf("free key, query %d: %d %s", i+1, resp.StatusCode, body)
		}
	}
	resp, body := testenv.Do(t, "GET", "http://"+srv.addr+paths[1], secret, "")
	if resp.StatusCode != 200 || resp.Header.Get(access.RemainingHeader) != "unlimited" {
		t.Errorf("operator key over REST: %d, remaining %q: %s", resp.StatusCode, resp.Header.Get(access.RemainingHeader), body)
	}
	// A key file that holds no key of this server is named in the error.
	bogus := filepath.Join(t.TempDir(), "key")
	os.WriteFile(bogus, []byte("cq_000000000000_"+strings.Repeat("0", 32)), 0o600)
	if out, err := runClient(t, elsewhere, clientEnv(srv.addr, "CITEQ_API_KEY_FILE="+bogus), queries[0]...); err == nil ||
		!strings.Contains(out, "invalid_api_key") || !strings.Contains(out, "read from "+bogus) {
		t.Errorf("a key file of another server: %v\n%s", err, out)
	}

	// A restart keeps the key, names it by its id and does not print it again.
	srv.cmd.Process.Signal(syscall.SIGTERM)
	srv.cmd.Wait()
	srv2 := startServer(t, "--data", data, "--operator-key", keyFile)
	if out := srv2.out.String(); strings.Contains(out, secret) || !strings.Contains(out, "operator key "+keyID+", kept in "+keyFile) {
		t.Errorf("after a restart:\n%s", out)
	}
	if out, err := runClient(t, dir, clientEnv(srv2.addr), queries[1]...); err != nil {
		t.Errorf("the operator key after a restart: %v\n%s", err, out)
	}
}

// TestAPIKeySource: the key the client sends, and to which server: $CITEQ_API_KEY anywhere,
// the file $CITEQ_API_KEY_FILE names anywhere, var/operator.key to a loopback server only.
func TestAPIKeySource(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	os.MkdirAll("var", 0o755)
	os.WriteFile("var/operator.key", []byte("cq_operator\n"), 0o600)
	other := filepath.Join(dir, "other.key")
	os.WriteFile(other, []byte("cq_other\n"), 0o600)
	cases := []struct {
		name, server, env, envFile string
		unsetFile                  bool
		key, from                  string
		err                        bool
	}{
		{name: "loopback IPv4", server: "http://127.0.0.1:8080", unsetFile: true, key: "cq_operator", from: operatorKeyFile},
		{name: "localhost", server: "http://localhost:9000", unsetFile: true, key: "cq_operator", from: operatorKeyFile},
		{name: "loopback IPv6", server: "http://[::1]:8080", unsetFile: true, key: "cq_operator", from: operatorKeyFile},
		{name: "another host gets no operator key", server: "https://citeq.example.org", unsetFile: true},
		{name: "a private address is not this machine", server: "http://10.0.0.5:8080", unsetFile: true},
		{name: "CITEQ_API_KEY wins", server: "http://127.0.0.1:8080", env: "cq_env", unsetFile: true, key: "cq_env", from: "$CITEQ_API_KEY"},
		{name: "CITEQ_API_KEY_FILE, any host", server: "https://citeq.example.org", envFile: other, key: "cq_other", from: other},
		{name: "CITEQ_API_KEY_FILE empty: none", server: "http://127.0.0.1:8080", envFile: ""},
		{name: "CITEQ_API_KEY_FILE unreadable", server: "http://127.0.0.1:8080", envFile: filepath.Join(dir, "absent"), err: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("CITEQ_API_KEY", tc.env)
			t.Setenv("CITEQ_API_KEY_FILE", tc.envFile)
			if tc.unsetFile {
				os.Unsetenv("CITEQ_API_KEY_FILE")
			}
			u, _ := url.Parse(tc.server)
			key, from, err := apiKey(u)
			if (err != nil) != tc.err || key != tc.key || from != tc.from {
				t.Errorf("apiKey(%s) = %q, %q, %v; want %q, %q, error %v", tc.server, key, from, err, tc.key, tc.from, tc.err)
			}
		})
	}
}

package main

import (
	"bufio"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/citeq/citeq/internal/testenv"
)

// readmeCommands returns the commands of the README's ```sh blocks, as written: comment
// lines dropped, a trailing "# comment" outside quotes cut, and a command whose quotes are
// still open (a multi-line JSON body) or that ends in a backslash joined with its next lines.
func readmeCommands(readme string) []string {
	var cmds []string
	inBlock := false
	var cur strings.Builder
	for _, line := range strings.Split(readme, "\n") {
		switch {
		case !inBlock && strings.HasPrefix(line, "```sh"):
			inBlock = true
			continue
		case inBlock && strings.HasPrefix(line, "```"):
			inBlock = false
			continue
		case !inBlock:
			continue
		}
		if cur.Len() == 0 && (strings.TrimSpace(line) == "" || strings.HasPrefix(strings.TrimSpace(line), "#")) {
			continue
		}
		if cur.Len() > 0 {
			cur.WriteString("\n")
		}
		cur.WriteString(line)
		cmd, open := stripComment(cur.String())
		if open || strings.HasSuffix(cmd, "\\") {
			continue
		}
		cmds = append(cmds, strings.TrimSpace(cmd))
		cur.Reset()
	}
	return cmds
}

// stripComment cuts a shell comment (a # after a space, outside quotes) off s, and reports
// whether a quote is still open at its end.
func stripComment(s string) (string, bool) {
	var quote rune
	prev := ' '
	for i, r := range s {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			}
		case r == '\'' || r == '"':
			quote = r
		case r == '#' && (prev == ' ' || prev == '\t'):
			return strings.TrimRight(s[:i], " \t"), false
		}
		prev = r
	}
	return strings.TrimRight(s, " \t"), quote != 0
}

// makeEnv is the environment make runs in: the test's own without a parent make's flags,
// plus extra.
func makeEnv(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch name {
		case "MAKEFLAGS", "MAKELEVEL", "MFLAGS", "BIN", "DATA", "ADDR", "RAW", "GO":
			continue
		}
		env = append(env, kv)
	}
	return append(env, extra...)
}

// durationField matches a log field name that holds a duration.
var durationField = regexp.MustCompile(`(^|_)(took|latency|duration|elapsed|timeout|time)(_|$)`)

// TestReadmeCommands starts the service with `make run` (its build into the test's own
// directory, its data directory a copy of the ingested one, a free port) and runs every
// command of the README's shell blocks as written, in a directory holding bin/citeq and var/
// as make run leaves them: each exits 0 and prints something (a curl answer is not an error
// document). Addresses in the README (127.0.0.1:8080, localhost:8080) are the test server's;
// the client finds it through $CITEQ_SERVER. `make test` is the suite running this test and
// is not run again; `bin/citeq ingest --fetch` downloads from a loopback mirror of the
// agencies ($CITEQ_FETCH_MIRROR), in a directory of its own so that the fixtures it fetches
// for publishers whose files are not here never reach the data being served. make run's
// output is checked too: it says what it does at each step, prints the operator key once and
// writes it where the client finds it, and its log fields carry their units.
func TestReadmeCommands(t *testing.T) {
	root := testenv.RepoRoot(t)
	raw := testenv.Raw(t)
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	cmds := readmeCommands(string(readme))
	var citeqCmds int
	for _, c := range cmds {
		if strings.Contains(c, "…") || strings.Contains(c, "...") {
			t.Errorf("the README command %q elides something: give it whole", c)
		}
		if strings.HasPrefix(c, "citeq ") {
			t.Errorf("the README command %q calls citeq, which make run does not put on PATH: write bin/citeq", c)
		}
		if strings.HasPrefix(c, "bin/citeq ") {
			citeqCmds++
		}
	}
	if len(cmds) < 15 || citeqCmds < 10 || cmds[0] != "make run" {
		t.Fatalf("%d commands (%d of bin/citeq) found in the README's sh blocks, the first %q: the extraction is broken", len(cmds), citeqCmds, cmds[0])
	}

	// make run, as the README says, into a directory of the test's.
	dir := t.TempDir()
	data := filepath.Join(dir, "var")
	if err := os.Symlink(testenv.CopyDir(t, testenv.Data(t)), data); err != nil {
		t.Fatal(err)
	}
	addr := freePort(t)
	mk := exec.Command("sh", "-c", cmds[0])
	mk.Dir = root
	mk.Env = makeEnv("BIN="+filepath.Join(dir, "bin", "citeq"), "DATA="+data, "ADDR="+addr, "RAW="+raw)
	mk.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out := &syncBuffer{}
	mk.Stdout, mk.Stderr = out, out
	if err := mk.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- mk.Wait() }()
	t.Cleanup(func() {
		syscall.Kill(-mk.Process.Pid, syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			syscall.Kill(-mk.Process.Pid, syscall.SIGKILL)
			<-done
		}
	})
	deadline := time.Now().Add(10 * time.Minute) // a build on a loaded machine
	for {
		if resp, err := http.Get("http://" + addr + "/v1/health"); err == nil {
			resp.Body.Close()
			break
		}
		select {
		case err := <-done:
			t.Fatalf("make run ended (%v):\n%s", err, out)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("make run did not serve within 10 minutes:\n%s", out)
		}
		time.Sleep(100 * time.Millisecond)
	}

	// What make run says it is doing, and the operator key.
	started := out.String()
	for _, want := range []string{"== citeq: building ", "== citeq: built ", "== citeq: ingesting ", "ingest: ", " source files (",
		"nothing changed", "== citeq: starting the server on " + addr, "snapshots at http://" + addr, "operator key (shown only now"} {
		if !strings.Contains(started, want) {
			t.Errorf("make run does not say %q:\n%s", want, started)
		}
	}
	key, err := os.ReadFile(filepath.Join(data, "operator.key"))
	if err != nil {
		t.Fatalf("make run wrote no operator key: %v", err)
	}
	if secret := strings.TrimSpace(string(key)); !strings.HasPrefix(secret, "cq_") || strings.Count(started, secret) != 1 {
		t.Errorf("the operator key %q is not printed exactly once:\n%s", secret, started)
	}

	// Every command, as written.
	fetchDir := t.TempDir()
	if err := os.Symlink(testenv.CopyDir(t, testenv.Data(t)), filepath.Join(fetchDir, "var")); err != nil {
		t.Fatal(err)
	}
	os.Symlink(filepath.Join(dir, "bin"), filepath.Join(fetchDir, "bin"))
	mirror := agencyMirror(t, raw, "")
	addrs := strings.NewReplacer("127.0.0.1:8080", addr, "localhost:8080", addr)
	ran := 0
	for _, c := range cmds[1:] {
		switch {
		case c == "make test":
			continue
		case strings.HasPrefix(c, "make "):
			t.Errorf("the README command %q is not run by this test: add it here", c)
			continue
		}
		t.Run(c, func(t *testing.T) {
			sh := exec.Command("bash", "-o", "pipefail", "-c", addrs.Replace(c))
			sh.Dir = dir
			sh.Env = clientEnv(addr)
			if strings.HasPrefix(c, "bin/citeq ingest --fetch") {
				sh.Dir = fetchDir
				sh.Env = clientEnv(addr, "CITEQ_FETCH_MIRROR="+mirror.URL)
			}
			var stderr strings.Builder
			sh.Stderr = &stderr
			stdout, err := sh.Output()
			if err != nil {
				t.Fatalf("exit: %v\nstdout:\n%s\nstderr:\n%s", err, stdout, stderr.String())
			}
			if len(strings.TrimSpace(string(stdout))) == 0 {
				t.Fatalf("no output (stderr:\n%s)", stderr.String())
			}
			if strings.HasPrefix(c, "curl ") && strings.HasPrefix(strings.TrimSpace(string(stdout)), `{"error"`) {
				t.Errorf("the server answered an error:\n%s", stdout)
			}
		})
		ran++
	}
	t.Logf("%d README commands run after make run", ran)

	// The log: JSON lines whose duration fields name their unit; the requests above logged.
	requests := 0
	sc := bufio.NewScanner(strings.NewReader(out.String()))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "{") {
			continue
		}
		var ev map[string]any
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			continue
		}
		for k, v := range ev {
			if _, num := v.(float64); num && durationField.MatchString(k) && !strings.HasSuffix(k, "_ms") {
				t.Errorf("log field %q holds a duration without its unit: %s", k, line)
			}
		}
		if ev["message"] == "serving" {
			if v, _ := ev["read_timeout_ms"].(float64); v < 1000 {
				t.Errorf("serving line: read_timeout_ms %v: %s", ev["read_timeout_ms"], line)
			}
		}
		if ev["message"] == "request" {
			requests++
			if _, ok := ev["latency_ms"].(float64); !ok {
				t.Errorf("request line without latency_ms: %s", line)
			}
			if _, ok := ev["bytes"].(float64); !ok {
				t.Errorf("request line without bytes: %s", line)
			}
		}
	}
	if requests < ran/2 {
		t.Errorf("%d request lines logged for %d commands:\n%s", requests, ran, out)
	}
}

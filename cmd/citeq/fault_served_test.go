package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/citeq/citeq/internal/procstat"
	"github.com/citeq/citeq/snapshots"
	"github.com/citeq/citeq/state"
)

// requireTmpfsEnv, when set, turns the skip of the disk-full faults on a machine that refuses
// to mount a tmpfs into a failure (.ci/run sets it).
const requireTmpfsEnv = "CITEQ_REQUIRE_TMPFS"

// The previous snapshot of natural_gas.prices is built from the two monthly price workbooks
// (documents that complement each other: as_of 2023-02-28, the later release); the new one
// adds the Henry Hub workbook (as_of 2024-07-10). The previous ingest also promotes the U.S.
// summary's own as_of, 2022-04-29, which the new ingest leaves as it is.
const (
	prevAsOf = "2023-02-28"
	newAsOf  = "2024-07-10"
)

// prevFiles are the workbooks of the previous snapshot.
var prevFiles = []string{"NG_PRI_SUM_DCU_NUS_M.xls", "NG_PRI_SUM_A_EPG0_PEU_DMCF_M.xls"}

// probe is one request whose answer is compared byte for byte through a fault.
type probe struct {
	name, method, path, body string
	// pinned: it names the previous snapshot's as_of and cites nothing another snapshot
	// may cite, so its answer never changes. The others change once, when the new snapshot
	// is promoted: the latest becomes the new snapshot's answer, and evidence lists it among
	// the snapshots citing the same raw file (cited_by).
	pinned bool
}

var faultProbes = []probe{
	{"pinned, grouped by year", "GET", "/v1/natural-gas/prices/query?as_of=" + prevAsOf + "&group_by=year", "", true},
	{"pinned, records", "GET", "/v1/natural-gas/prices/query?as_of=" + prevAsOf + "&include_records=true&limit=20&year=2001", "", true},
	{"pinned, records with evidence", "GET", "/v1/natural-gas/prices/query?as_of=" + prevAsOf + "&include_records=true&include_evidence=true&limit=5", "", false},
	{"pinned, one source row verified", "POST", "/v1/evidence/source-row", `{"source_id":"ng_prices_us_monthly",` +
		`"source_url":"https://www.eia.gov/dnav/ng/xls/NG_PRI_SUM_DCU_NUS_M.xls","source_file":"NG_PRI_SUM_DCU_NUS_M.xls",` +
		`"sheet":"Data 1","source_row":300,"raw_file_sha256":"5b99ea7221c3367767792dc6fe64b943973e47bb24631ad745e281aa1d4e5955","as_of":"` + prevAsOf + `"}`, false},
	{"latest, grouped by atom", "GET", "/v1/natural-gas/prices/query?group_by=atom", "", false},
}

// answers asks every probe of the server at addr with key and returns the bodies by probe name;
// any answer but 200 stops the test.
func answers(t *testing.T, addr, key string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	for _, p := range faultProbes {
		status, body := call(t, p.method, "http://"+addr+p.path, key, p.body)
		if status != 200 {
			t.Fatalf("%s: %d %s", p.name, status, body)
		}
		out[p.name] = body
	}
	return out
}

// faultSite is a data directory whose previous snapshot a running server answers, with a
// paid key and one webhook subscription to natural_gas.prices.
type faultSite struct {
	data    string
	srv     *server
	key     string
	keyID   string
	before  map[string][]byte // the answers before the fault
	newRef  map[string][]byte // the answers of a clean run that promoted the new snapshot
	catalog []byte            // the catalog before the fault
}

func newFaultSite(t *testing.T, data, prevRaw string, ref map[string][]byte) *faultSite {
	t.Helper()
	ctx := context.Background()
	run(t, "ingest", "--raw", prevRaw, "--data", data)
	st, err := state.Open(ctx, "", data)
	if err != nil {
		t.Fatal(err)
	}
	secret, key, err := st.CreateKey(ctx, state.PlanMonthly, "ops")
	if err != nil {
		t.Fatal(err)
	}
	// The callback is never reached (loopback is refused without --allow-insecure-callbacks);
	// the deliveries are only counted.
	if _, err := st.CreateSubscription(ctx, key.ID, "natural_gas.prices", "https://127.0.0.1:9/hook"); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	s := &faultSite{data: data, key: secret, keyID: key.ID, newRef: ref}
	s.srv = startServer(t, "--data", data)
	s.before = answers(t, s.srv.addr, s.key)
	for _, p := range faultProbes {
		if p.pinned && !bytes.Equal(s.before[p.name], ref[p.name]) {
			t.Fatalf("%s: the previous snapshot answers otherwise here than in a clean run", p.name)
		}
	}
	for _, p := range faultProbes {
		if !p.pinned && bytes.Equal(s.before[p.name], ref[p.name]) {
			t.Fatalf("%s: the same answer before and after the new snapshot: the probe proves nothing", p.name)
		}
	}
	s.catalog, err = os.ReadFile(filepath.Join(data, "catalog.json"))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// checkServed compares the server's answers with those before the fault: the pinned ones
// byte for byte; the latest with the previous snapshot's (newPromoted false), the new
// snapshot's once the server has reloaded the catalog (true), or either of the two whole
// answers while a promotion is under way (maybe).
func (s *faultSite) checkServed(t *testing.T, when string, newPromoted, maybe bool) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		got := answers(t, s.srv.addr, s.key)
		waiting := false
		for _, p := range faultProbes {
			old, neu := s.before[p.name], s.newRef[p.name]
			switch b := got[p.name]; {
			case p.pinned && !bytes.Equal(b, old):
				t.Fatalf("%s: %q changed:\nbefore %.300s\nnow    %.300s", when, p.name, old, b)
			case p.pinned:
			case !newPromoted && !maybe && !bytes.Equal(b, old):
				t.Fatalf("%s: %q is no longer the previous snapshot's answer: %.300s", when, p.name, b)
			case !bytes.Equal(b, old) && !bytes.Equal(b, neu):
				t.Fatalf("%s: %q is neither the previous nor the new snapshot's answer: %.300s", when, p.name, b)
			case newPromoted && !bytes.Equal(b, neu):
				waiting = true // the server reloads the catalog every 2 s
			}
		}
		if !waiting {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: the server still answers the previous snapshot as the latest:\n%s", when, s.srv.log)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// leftovers lists what an interrupted ingest may leave in data: build directories and
// temporary files, and promotion records the catalog never took.
func leftovers(t *testing.T, data string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(data, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		for _, prefix := range []string{".build-", ".put-", ".tmp-", ".facts-"} {
			if strings.HasPrefix(d.Name(), prefix) {
				out = append(out, path)
				if d.IsDir() {
					return filepath.SkipDir
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	pending, err := (&snapshots.Store{Dir: data}).PendingPromotions()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pending {
		if !p.Promoted {
			out = append(out, filepath.Join(data, "pending-events", p.Capability+"@"+p.AsOf+"@"+p.Fingerprint+".json"))
		}
	}
	return out
}

// stoppedIngest starts citeq ingest, which stops itself with SIGSTOP at step, and waits until
// it is held there.
func stoppedIngest(t *testing.T, step, raw, data string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	out := &bytes.Buffer{}
	resume := filepath.Join(t.TempDir(), "resume")
	cmd := exec.Command(binary(t), "ingest", "--raw", raw, "--data", data)
	cmd.Env = append(os.Environ(), snapshots.FailpointEnv+"="+step+":stop", snapshots.FailpointResumeEnv+"="+resume)
	// A process group of its own, and a resume file: a stray SIGCONT (the kernel sends one to
	// a stopped process whose process group becomes orphaned) cannot let it run past its step.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	resumes[cmd] = resume
	// Held at its step: stopped there (T, after writing where), or, woken by a SIGCONT it was
	// not meant to take, waiting there for its resume file (it says so in <resume>.waiting).
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(5 * time.Millisecond) {
		state := procstat.Of(t, cmd.Process.Pid)
		switch state {
		case 'Z', 'X':
			cmd.Wait()
			t.Fatalf("ingest ended without reaching %s:\n%s", step, out)
		}
		stopped, err := os.ReadFile(resume + ".stopped")
		waiting, werr := os.ReadFile(resume + ".waiting")
		if err == nil && string(stopped) == step && (state == 'T' || state == 't' || werr == nil && string(waiting) == step) {
			return cmd, out
		}
		if time.Now().After(deadline) {
			t.Fatalf("ingest did not reach %s:\n%s", step, out)
		}
	}
}

// resumes maps a stopped ingest to its resume file; continueIngest creates it and sends
// SIGCONT.
var resumes = map[*exec.Cmd]string{}

// continueIngest lets an ingest stopped by stoppedIngest go on from its step.
func continueIngest(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	if err := os.WriteFile(resumes[cmd], nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
}

// smallDisk mounts a tmpfs of size for a disk-full fault. A machine that refuses (not root,
// or no CAP_SYS_ADMIN) skips the test, or fails it when $CITEQ_REQUIRE_TMPFS is set.
func smallDisk(t *testing.T, size string) string {
	t.Helper()
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", syscall.MS_NOSUID|syscall.MS_NODEV, "size="+size); err != nil {
		msg := fmt.Sprintf("disk-full faults need a tmpfs of their own and this machine refuses to mount one (%v); "+
			"they run as root with CAP_SYS_ADMIN, as .ci/run does with %s=1 so that they cannot be skipped there", err, requireTmpfsEnv)
		if os.Getenv(requireTmpfsEnv) != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(dir, syscall.MNT_DETACH); err != nil {
			t.Errorf("unmount %s: %v", dir, err)
		}
	})
	return dir
}

// fillDisk fills the file system of dir with one file until only leave bytes (rounded down to
// whole pages) are free, and returns that file.
func fillDisk(t *testing.T, dir string, leave int64) string {
	t.Helper()
	path := filepath.Join(dir, "filler")
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, chunk := range []int{1 << 20, 4096, 1} {
		buf := make([]byte, chunk)
		for {
			if _, err = f.Write(buf); err != nil {
				break
			}
		}
		if !errors.Is(err, syscall.ENOSPC) {
			t.Fatalf("fill %s: %v", dir, err)
		}
	}
	if leave > 0 {
		size, err := f.Seek(0, 2)
		if err != nil {
			t.Fatal(err)
		}
		if err := f.Truncate((size - leave) &^ 4095); err != nil {
			t.Fatal(err)
		}
	}
	if free := freeBytes(t, dir); free < leave || free > leave+8192 {
		t.Fatalf("%d bytes free after filling, want %d", free, leave)
	}
	return path
}

func freeBytes(t *testing.T, dir string) int64 {
	t.Helper()
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		t.Fatal(err)
	}
	return int64(st.Bavail) * st.Bsize
}

// TestPreviousSnapshotServedThroughFaults: while a server answers the promoted snapshot of
// natural_gas.prices, an ingest of a newer one is interrupted at each of its steps, by kill -9
// or by a full disk (a tmpfs filled at that step). Throughout, the previous snapshot's
// answers stay byte for byte what they were; nothing half-written is promoted (the latest is
// the previous snapshot's answer or, once the catalog promotes the new one, exactly a clean
// run's); a disk-full ingest fails saying so; the next ingest removes what was left, promotes
// the new snapshot with exactly one event, and every answer is then a clean run's.
func TestPreviousSnapshotServedThroughFaults(t *testing.T) {
	prevRaw, newRaw := ngRaw(t, prevFiles...), ngRaw(t)

	// A clean run: the answers every recovery must end with.
	clean := t.TempDir()
	run(t, "ingest", "--raw", prevRaw, "--data", clean)
	run(t, "ingest", "--raw", newRaw, "--data", clean)
	ref := answers(t, startServer(t, "--data", clean).addr, createKey(t, "--data", clean, "--plan", "monthly"))

	const kill, full = "kill -9", "disk full"
	full1 := "no space left on device (the disk holding the data directory is full: free space on it and run citeq ingest again; the snapshots already served are unchanged)"
	cases := []struct {
		name  string
		step  string // where the ingest is stopped, then killed or given a full disk
		fault string
		leave int64 // with a full disk: the bytes left free
		// promoted: the new snapshot is promoted after the fault; left: what the fault
		// leaves for the next ingest to remove (path prefixes under the data directory).
		promoted bool
		left     []string
		says     []string // the failed ingest's output
	}{
		{name: "kill -9 during the raw copy", step: snapshots.StepRawCopy, fault: kill, left: []string{"raw/"}},
		{name: "kill -9 during the Parquet write", step: snapshots.StepFactsWrite, fault: kill, left: []string{"snapshots/natural_gas.prices/" + newAsOf + "/.build-"}},
		{name: "kill -9 at the start of promotion", step: snapshots.StepPromoteStart, fault: kill},
		{name: "kill -9 with the promotion recorded", step: snapshots.StepRecorded, fault: kill, left: []string{"pending-events/"}},
		{name: "kill -9 with the catalog written", step: snapshots.StepCatalogWritten, fault: kill, promoted: true},
		{name: "kill -9 with the event queued", step: snapshots.StepEventQueued, fault: kill, promoted: true},
		{name: "disk full during the raw copy", step: snapshots.StepRawCopy, fault: full, leave: 64 << 10,
			says: []string{"raw store: copy ", "RNGWHHDd.xls: ", full1}},
		{name: "disk full during the Parquet write", step: snapshots.StepFactsWrite, fault: full, leave: 64 << 10,
			says: []string{"write facts: ", full1}},
		{name: "disk full at the catalog write", step: snapshots.StepRecorded, fault: full,
			left: []string{"pending-events/"}, says: []string{"catalog.json: ", full1}},
		// One page free: the new catalog takes it and frees the old one's; the outbox
		// write needs more.
		{name: "disk full at the outbox write", step: snapshots.StepRecorded, fault: full, leave: 4096, promoted: true,
			says: []string{"database or disk is full", "the events not queued are queued by the next ingest or server start"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var disk, data string
			if tc.fault == full {
				disk = smallDisk(t, "8m")
				data = filepath.Join(disk, "data")
			} else {
				data = t.TempDir()
			}
			s := newFaultSite(t, data, prevRaw, ref)
			afterCatalog := tc.step == snapshots.StepCatalogWritten || tc.step == snapshots.StepEventQueued

			cmd, out := stoppedIngest(t, tc.step, newRaw, data)
			s.checkServed(t, "ingest stopped at "+tc.step, false, afterCatalog)
			var filler string
			switch tc.fault {
			case kill:
				if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
					t.Fatal(err)
				}
				err := cmd.Wait()
				if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
					t.Fatalf("ingest ended with %v, not by SIGKILL:\n%s", err, out)
				}
			case full:
				filler = fillDisk(t, disk, tc.leave)
				s.checkServed(t, "disk full, ingest stopped at "+tc.step, false, afterCatalog)
				if tc.leave == 0 {
					checkFreeCallers(t, s)
				}
				continueIngest(t, cmd)
				if err := cmd.Wait(); err == nil {
					t.Fatalf("ingest succeeded on a full disk:\n%s", out)
				}
				for _, want := range tc.says {
					if !strings.Contains(out.String(), want) {
						t.Errorf("the failed ingest does not say %q:\n%s", want, out)
					}
				}
				if strings.Contains(out.String(), "nothing changed") {
					t.Errorf("the failed ingest says nothing changed:\n%s", out)
				}
			}
			t.Logf("%s at %s: exit %v; output ends:\n%s", tc.fault, tc.step, cmd.ProcessState, lastLines(out.String(), 4))

			// What the fault left.
			catalog, err := os.ReadFile(filepath.Join(data, "catalog.json"))
			if err != nil {
				t.Fatal(err)
			}
			cat, err := (&snapshots.Store{Dir: data}).ReadCatalog()
			if err != nil {
				t.Fatalf("the catalog does not read after the fault: %v", err)
			}
			if promoted := cat.Promoted["natural_gas.prices"][newAsOf] != ""; promoted != tc.promoted {
				t.Fatalf("after the fault the new snapshot is promoted: %v, want %v", promoted, tc.promoted)
			}
			if !tc.promoted && !bytes.Equal(catalog, s.catalog) {
				t.Errorf("the catalog changed though nothing was promoted:\n%s", catalog)
			}
			left := leftovers(t, data)
			for _, prefix := range tc.left {
				if !slices.ContainsFunc(left, func(p string) bool { return strings.HasPrefix(p, filepath.Join(data, prefix)) }) {
					t.Errorf("the fault left nothing under %s (left: %v)", prefix, left)
				}
			}
			if len(tc.left) == 0 && len(left) > 0 {
				t.Errorf("the fault left %v", left)
			}
			s.checkServed(t, "after the "+tc.fault, tc.promoted, false)

			// Recovery: space is freed (a full disk), the next ingest completes.
			if filler != "" {
				if err := os.Remove(filler); err != nil {
					t.Fatal(err)
				}
				s.checkServed(t, "space freed, before the next ingest", tc.promoted, false)
				if tc.promoted {
					// The running server queues the event once the space is back, before
					// any other ingest.
					for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(100 * time.Millisecond) {
						pending, err := (&snapshots.Store{Dir: data}).PendingPromotions()
						if err == nil && len(pending) == 0 {
							break
						}
						if time.Now().After(deadline) {
							t.Errorf("20 s after the space was freed the server has not queued the event: %+v %v", pending, err)
							break
						}
					}
				}
			}
			got := run(t, "ingest", "--raw", newRaw, "--data", data)
			for _, p := range left {
				if !strings.Contains(got, "removed "+p+", left by an interrupted ingest") {
					t.Errorf("the next ingest does not report removing %s:\n%s", p, got)
				}
			}
			if rest := leftovers(t, data); len(rest) > 0 {
				t.Errorf("still left after the next ingest: %v", rest)
			}
			s.checkServed(t, "after the next ingest", true, false)
			if pending, err := (&snapshots.Store{Dir: data}).PendingPromotions(); err != nil || len(pending) > 0 {
				t.Errorf("promotions still pending: %+v %v", pending, err)
			}
			ctx := context.Background()
			st, err := state.Open(ctx, "", data)
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			if ds, err := st.ListDeliveries(ctx, s.keyID, 100); err != nil || len(ds) != 1 {
				t.Errorf("%d deliveries of the new snapshot's event (%v), want exactly 1: %+v", len(ds), err, ds)
			}
		})
	}
}

// checkFreeCallers records what a caller without a key gets while the disk is full: its free
// queries are counted in the state store, whose disk it is.
func checkFreeCallers(t *testing.T, s *faultSite) {
	t.Helper()
	p := faultProbes[0]
	status, body := call(t, p.method, "http://"+s.srv.addr+p.path, "", p.body)
	if status != 500 || !strings.Contains(string(body), `"the quota store failed; retry shortly"`) {
		t.Errorf("a caller without a key, disk full: %d %s", status, body)
	}
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

package main

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/citeq/citeq/capability"
)

func TestDumpRoundTripAndCompare(t *testing.T) {
	old := []dumpLine{
		{SHA: strings.Repeat("a", 64), Bytes: 10, Status: 200, Key: "-\t-\tcapabilities"},
		{SHA: strings.Repeat("b", 64), Bytes: 20, Status: 200, Key: "power.capacity\t2016-05-31\ttotal", Params: `{"as_of":"2016-05-31"}`},
		{SHA: strings.Repeat("c", 64), Bytes: 30, Status: 400, Key: "power.capacity\t2016-05-31\tby_x", Params: `{"as_of":"2016-05-31","group_by":["x"]}`},
		{SHA: strings.Repeat("d", 64), Bytes: 40, Status: 200, Key: "power.capacity\t2016-05-31\tgone", Params: `{}`},
	}
	path := filepath.Join(t.TempDir(), "dump.txt")
	var b strings.Builder
	for _, l := range old {
		b.WriteString(l.String() + "\n")
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	read, err := readDump(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(read, old) {
		t.Fatalf("read back\n%v\nwant\n%v", read, old)
	}
	if d := compareDumps(old, old); len(d) != 0 {
		t.Errorf("a dump against itself: %v", d)
	}
	now := []dumpLine{old[0], old[1], old[2]}
	now[1].SHA = strings.Repeat("e", 64)                                                              // a changed body
	now[2].Status = 200                                                                               // a changed status
	now = append(now, dumpLine{SHA: strings.Repeat("f", 64), Key: "power.capacity\t2016-05-31\tnew"}) // new
	d := compareDumps(old, now)
	want := []string{"differs  " + now[1].String(), "differs  " + now[2].String(), "new      " + now[3].String(), "gone     " + old[3].String()}
	if len(d) != len(want) {
		t.Fatalf("compare:\n%s\nwant %d lines", strings.Join(d, "\n"), len(want))
	}
	for i := range want {
		if !strings.HasPrefix(d[i], want[i]) {
			t.Errorf("line %d: %q, want it to start with %q", i, d[i], want[i])
		}
	}
}

func TestDumpQuestions(t *testing.T) {
	c := capability.ByID("power.capacity")
	qs := dumpQuestions(c, "2016-05-31")
	n := len(c.GroupByNames())
	if want := 2 + n + n*(n-1)/2 + n; len(qs) != want {
		t.Fatalf("%d questions, want %d", len(qs), want)
	}
	seen := map[string]bool{}
	for _, q := range qs {
		if seen[q.name] {
			t.Errorf("question %s twice", q.name)
		}
		seen[q.name] = true
		if !strings.Contains(q.params, `"as_of":"2016-05-31"`) {
			t.Errorf("%s: %s does not pin the as_of", q.name, q.params)
		}
	}
}

func TestCompareQuestions(t *testing.T) {
	c := capability.ByID("power.interconnection_queue")
	dates := []string{"2025-01-17", "2025-05-09"}
	qs := compareQuestions(c, "2025-05-09", dates)
	if want := 2 + len(c.GroupByNames()); len(qs) != want {
		t.Fatalf("%d questions, want %d (one other snapshot)", len(qs), want)
	}
	for _, q := range qs {
		if !strings.HasPrefix(q.name, "compare_2025-01-17_") || !strings.Contains(q.params, `"compare_as_of":"2025-01-17"`) || !strings.Contains(q.params, `"as_of":"2025-05-09"`) {
			t.Errorf("%s: %s does not compare 2025-05-09 with 2025-01-17", q.name, q.params)
		}
	}
}

func TestDumpSnapshotFiles(t *testing.T) {
	dir := t.TempDir()
	for _, p := range []string{"snapshots/x.y/2024-01-31/abc/manifest.json", "snapshots/x.y/2024-01-31/.build-1/manifest.json", "snapshots/x.y/2024-01-31/abc/facts.parquet"} {
		p = filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(p), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var keys []string
	err := dumpSnapshotFiles(dir, func(key, _ string, _ int, _ []byte) error { keys = append(keys, key); return nil })
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"x.y\t2024-01-31\tfile abc/facts.parquet", "x.y\t2024-01-31\tfile abc/manifest.json"}
	if !reflect.DeepEqual(keys, want) {
		t.Errorf("keys %q, want %q", keys, want)
	}
}

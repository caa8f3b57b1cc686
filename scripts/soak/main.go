// Command soak offers a fixed rate of mixed requests (queries POST and GET, pinned and
// latest, with records and with evidence, schema, discover, evidence, health) to a running
// citeq server on loopback for a fixed time, samples the server's resident memory and open
// files every second, and reports per minute whether both stay flat.
//
//	go run ./scripts/soak -server http://127.0.0.1:PORT -pid PID -duration 10m -rate 50
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

type request struct {
	method, path, body string
}

// sample is one second's resident memory (bytes) and open files of the server.
type sample struct{ rss, fds int64 }

func main() {
	server := flag.String("server", "http://127.0.0.1:8080", "citeq server (loopback)")
	pid := flag.Int("pid", 0, "process id of the server, whose memory and open files are sampled")
	duration := flag.Duration("duration", 10*time.Minute, "how long to offer load")
	rate := flag.Int("rate", 50, "requests offered per second")
	growth := flag.Float64("max-growth", 0.25, "largest allowed growth of the last minute's peak RSS over the second minute's")
	flag.Parse()
	key := os.Getenv("CITEQ_API_KEY")
	if *pid == 0 || !strings.HasPrefix(*server, "http://127.0.0.1:") {
		fmt.Fprintln(os.Stderr, "soak: -pid and a loopback -server (http://127.0.0.1:PORT) are required")
		os.Exit(2)
	}
	client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	do := func(r request) (int, []byte, error) {
		req, err := http.NewRequest(r.method, *server+r.path, strings.NewReader(r.body))
		if err != nil {
			return 0, nil, err
		}
		if key != "" {
			req.Header.Set("Authorization", "Bearer "+key)
		}
		resp, err := client.Do(req)
		if err != nil {
			return 0, nil, err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		return resp.StatusCode, b, err
	}
	// An evidence citation from a real answer.
	_, body, err := do(request{"POST", "/v1/power/capacity/query", `{"filters":{"state":"RI"}}`})
	if err != nil {
		fmt.Fprintln(os.Stderr, "soak:", err)
		os.Exit(1)
	}
	var first struct {
		Citations map[string]struct {
			Verify json.RawMessage `json:"verify"`
		} `json:"citations"`
	}
	_ = json.Unmarshal(body, &first)
	verify := "{}"
	for _, c := range first.Citations {
		verify = string(c.Verify)
	}
	mix := []request{
		{"POST", "/v1/power/capacity/query", `{"filters":{"lifecycle":"operating"},"group_by":["state"],"order_by":"nameplate_mw","top_n":5}`},
		{"POST", "/v1/power/capacity/query", `{"as_of":"2016-05-31","group_by":["technology","lifecycle"]}`},
		{"GET", "/v1/power/capacity/query?state=TX&group_by=fuel_group&include_records=true&limit=50", ""},
		{"GET", "/v1/natural-gas/prices/query?atom=henry_hub_daily_spot&group_by=year&observation_date_from=2015", ""},
		{"POST", "/v1/power/capacity/query", `{"filters":{"state":["RI","VT"]},"group_by":["state"],"include_evidence":true}`},
		{"POST", "/v1/evidence/source-row", verify},
		{"GET", "/v1/power/capacity/schema", ""},
		{"GET", "/v1/capabilities", ""},
		{"GET", "/v1/health", ""},
		{"POST", "/v1/power/capacity/query", `{"filters":{"state":"ZZ"}}`}, // a 400
	}

	var (
		mu       sync.Mutex
		samples  []sample
		lat      []time.Duration
		sent     atomic.Int64
		failed   atomic.Int64
		statuses sync.Map
	)
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				rss, fds := procStats(*pid)
				mu.Lock()
				samples = append(samples, sample{rss, fds})
				n := len(samples)
				last := append([]sample(nil), samples[max(0, n-60):]...)
				mu.Unlock()
				if n%60 == 0 {
					report(n/60, last, sent.Load(), failed.Load())
				}
			}
		}
	}()
	sem := make(chan struct{}, 256)
	tick := time.NewTicker(time.Second / time.Duration(*rate))
	end := time.Now().Add(*duration)
	var wg sync.WaitGroup
	for i := 0; time.Now().Before(end); i++ {
		<-tick.C
		select {
		case sem <- struct{}{}:
		default:
			failed.Add(1) // the offered rate could not be kept: 256 requests outstanding
			continue
		}
		r := mix[i%len(mix)]
		wg.Add(1)
		sent.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			start := time.Now()
			status, _, err := do(r)
			d := time.Since(start)
			if err != nil {
				failed.Add(1)
				return
			}
			v, _ := statuses.LoadOrStore(status, new(atomic.Int64))
			v.(*atomic.Int64).Add(1)
			mu.Lock()
			lat = append(lat, d)
			mu.Unlock()
		}()
	}
	tick.Stop()
	wg.Wait()
	close(stop)
	<-sampled
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	q := func(p float64) time.Duration {
		if len(lat) == 0 {
			return 0
		}
		return lat[min(len(lat)-1, int(float64(len(lat))*p))]
	}
	var codes []string
	statuses.Range(func(k, v any) bool {
		codes = append(codes, fmt.Sprintf("%d:%d", k, v.(*atomic.Int64).Load()))
		return true
	})
	sort.Strings(codes)
	fmt.Printf("\n%d requests offered at %d/s for %v: statuses %s, %d failed or dropped; latency p50 %v p99 %v\n",
		sent.Load(), *rate, *duration, strings.Join(codes, " "), failed.Load(), q(0.5).Round(time.Microsecond), q(0.99).Round(time.Microsecond))
	if len(samples) < 180 {
		fmt.Println("too short to judge flatness (3 minutes at least)")
		return
	}
	peak := func(s []sample) (rss, fds int64) {
		for _, x := range s {
			rss, fds = max(rss, x.rss), max(fds, x.fds)
		}
		return
	}
	r2, f2 := peak(samples[60:120])
	rl, fl := peak(samples[len(samples)-60:])
	flat := float64(rl) <= float64(r2)*(1+*growth) && fl <= f2+16
	fmt.Printf("peak RSS %d MB in minute 2, %d MB in the last minute; peak open files %d and %d: flat %v\n", r2>>20, rl>>20, f2, fl, flat)
	if !flat || failed.Load() > sent.Load()/100 {
		os.Exit(1)
	}
}

// report prints one minute's range of memory and open files.
func report(minute int, s []sample, sent, failed int64) {
	var rmin, rmax, fmin, fmax int64 = 1 << 62, 0, 1 << 62, 0
	for _, x := range s {
		rmin, rmax, fmin, fmax = min(rmin, x.rss), max(rmax, x.rss), min(fmin, x.fds), max(fmax, x.fds)
	}
	fmt.Printf("minute %2d: RSS %d–%d MB, open files %d–%d, %d requests sent, %d failed\n", minute, rmin>>20, rmax>>20, fmin, fmax, sent, failed)
}

// procStats reads the resident memory (bytes) and open file count of a process.
func procStats(pid int) (rss, fds int64) {
	b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	for _, line := range bytes.Split(b, []byte("\n")) {
		if f := strings.Fields(string(line)); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			rss = kb << 10
		}
	}
	entries, _ := os.ReadDir("/proc/" + strconv.Itoa(pid) + "/fd")
	return rss, int64(len(entries))
}

package main

import (
	"bufio"
	"os"
	"runtime"
	"strconv"
	"strings"
)

// Machine describes where the numbers were measured.
type Machine struct {
	NumCPU        int    `json:"num_cpu"`
	GOMAXPROCS    int    `json:"gomaxprocs"`
	GOOS          string `json:"goos"`
	GOARCH        string `json:"goarch"`
	GoVersion     string `json:"go_version"`
	CPUModel      string `json:"cpu_model,omitempty"`
	MemTotalBytes int64  `json:"mem_total_bytes,omitempty"`
}

func describeMachine() Machine {
	m := Machine{NumCPU: runtime.NumCPU(), GOMAXPROCS: runtime.GOMAXPROCS(0), GOOS: runtime.GOOS, GOARCH: runtime.GOARCH, GoVersion: runtime.Version()}
	m.CPUModel = procField("/proc/cpuinfo", "model name")
	m.MemTotalBytes = procKB("/proc/meminfo", "MemTotal")
	return m
}

// procField returns the value of the first "key : value" line of a /proc file ("" when
// the file or key is absent).
func procField(path, key string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == key {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// procKB reads a "Key:   123 kB" line of a /proc file as bytes (0 when absent).
func procKB(path, key string) int64 {
	v := strings.TrimSuffix(procField(path, key), " kB")
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil {
		return 0
	}
	return n * 1024
}

// peakRSS is the process's peak resident set (VmHWM) since start or since the last
// resetPeakRSS; rss its current resident set (VmRSS). Both are 0 where /proc is absent.
func peakRSS() int64 { return procKB("/proc/self/status", "VmHWM") }
func rss() int64     { return procKB("/proc/self/status", "VmRSS") }

// loadAverage is the first three fields of /proc/loadavg ("" where absent).
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return ""
	}
	return strings.Join(f[:3], " ")
}

// resetPeakRSS resets VmHWM to the current resident set (Linux: write 5 to clear_refs); it
// reports whether it could, else peakRSS stays the peak since the process started.
func resetPeakRSS() bool {
	return os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) == nil
}

package main

import (
	"runtime"
	"sync"
	"time"
)

// Bandwidth is the machine's sequential read bandwidth as a plain Go loop sees it: the sum
// of a large float64 array, on one goroutine and on GOMAXPROCS goroutines (each summing its
// contiguous share), median of Runs runs after one untimed run.
type Bandwidth struct {
	Bytes            int64   `json:"bytes"`
	Runs             int     `json:"runs"`
	SingleGBPerSec   float64 `json:"single_gb_per_second"`
	Goroutines       int     `json:"goroutines"`
	ParallelGBPerSec float64 `json:"parallel_gb_per_second"`
}

// measureBandwidth sums a float64 array of size bytes.
func measureBandwidth(size int64, runs int) Bandwidth {
	data := make([]float64, size/8)
	for i := range data {
		data[i] = float64(i & 1023)
	}
	workers := runtime.GOMAXPROCS(0)
	bw := Bandwidth{Bytes: int64(len(data)) * 8, Runs: runs, Goroutines: workers}
	rate := func(fn func() float64) float64 {
		sink := fn()
		var ds []time.Duration
		for r := 0; r < runs; r++ {
			start := time.Now()
			sink += fn()
			ds = append(ds, time.Since(start))
		}
		t := Timing{Runs: ds}
		t.summarize()
		if sink == -1 { // keeps the sums live
			println(sink)
		}
		return float64(bw.Bytes) / t.Median.Seconds() / 1e9
	}
	bw.SingleGBPerSec = rate(func() float64 { return sum(data) })
	bw.ParallelGBPerSec = rate(func() float64 {
		parts := make([]float64, workers)
		var wg sync.WaitGroup
		share := (len(data) + workers - 1) / workers
		for w := 0; w < workers; w++ {
			lo, hi := min(w*share, len(data)), min((w+1)*share, len(data))
			wg.Add(1)
			go func() {
				defer wg.Done()
				parts[w] = sum(data[lo:hi])
			}()
		}
		wg.Wait()
		total := 0.0
		for _, p := range parts {
			total += p
		}
		return total
	})
	return bw
}

// sum adds xs with eight independent accumulators, so the loop is bound by memory, not by the
// latency of one chain of additions.
func sum(xs []float64) float64 {
	var s0, s1, s2, s3, s4, s5, s6, s7 float64
	i := 0
	for ; i+8 <= len(xs); i += 8 {
		v := xs[i : i+8 : i+8]
		s0 += v[0]
		s1 += v[1]
		s2 += v[2]
		s3 += v[3]
		s4 += v[4]
		s5 += v[5]
		s6 += v[6]
		s7 += v[7]
	}
	for ; i < len(xs); i++ {
		s0 += xs[i]
	}
	return s0 + s1 + s2 + s3 + s4 + s5 + s6 + s7
}

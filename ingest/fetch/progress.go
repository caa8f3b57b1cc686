package fetch

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// barInterval is the minimum time between two redraws of a progress bar.
const barInterval = 150 * time.Millisecond

// barWidth is the number of cells in a progress bar with a known total.
const barWidth = 24

// bar is a one-line progress bar redrawn in place with a carriage return:
//
//	eia/eia860m/may_generator2016.xlsx [==========>             ]  45%  1.5 MiB / 3.3 MiB  2.1 MiB/s
//
// Without a known total it shows only the bytes received and the rate. A
// nil *bar does nothing.
type bar struct {
	w     io.Writer
	label string
	total int64 // -1 when unknown
	n     int64
	start time.Time
	last  time.Time
	width int // length of the last line drawn, to blank it out
}

// newBar returns a bar writing to w, or nil when w is nil.
func newBar(w io.Writer, label string, total int64) *bar {
	if w == nil {
		return nil
	}
	now := time.Now()
	b := &bar{w: w, label: label, total: total, start: now, last: now}
	b.draw("")
	return b
}

// Write counts p as received and redraws the bar now and then.
func (b *bar) Write(p []byte) (int, error) {
	if b == nil {
		return len(p), nil
	}
	b.n += int64(len(p))
	if now := time.Now(); now.Sub(b.last) >= barInterval {
		b.last = now
		b.draw("")
	}
	return len(p), nil
}

// finish draws the bar a last time and ends its line.
func (b *bar) finish(ok bool) {
	if b == nil {
		return
	}
	suffix := ""
	if !ok {
		suffix = "  failed"
	}
	b.draw(suffix)
	fmt.Fprintln(b.w)
}

func (b *bar) draw(suffix string) {
	var sb strings.Builder
	sb.WriteString(b.label)
	if b.total > 0 {
		n := min(b.n, b.total)
		filled := int(n * barWidth / b.total)
		sb.WriteString(" [")
		sb.WriteString(strings.Repeat("=", filled))
		if filled < barWidth {
			sb.WriteString(">")
			sb.WriteString(strings.Repeat(" ", barWidth-filled-1))
		}
		fmt.Fprintf(&sb, "] %3d%%  %s / %s", n*100/b.total, humanBytes(b.n), humanBytes(b.total))
	} else {
		sb.WriteString("  " + humanBytes(b.n))
	}
	if secs := time.Since(b.start).Seconds(); secs > 0.5 {
		sb.WriteString("  " + humanBytes(int64(float64(b.n)/secs)) + "/s")
	}
	sb.WriteString(suffix)
	line := sb.String()
	pad := ""
	if len(line) < b.width {
		pad = strings.Repeat(" ", b.width-len(line))
	}
	b.width = len(line)
	fmt.Fprint(b.w, "\r"+line+pad)
}

// humanBytes formats a byte count with a binary unit: "512 B", "3.3 MiB".
func humanBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit && exp < 5; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}

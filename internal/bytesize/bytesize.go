// Package bytesize reads and writes sizes in bytes as flags take them: a whole number with
// an optional unit, k/K/KiB, M/MiB, G/GiB or T/TiB, each a power of 1024 (memory is counted
// so), or B.
package bytesize

import (
	"fmt"
	"strconv"
	"strings"
)

// Size is a number of bytes; *Size is a flag.Value.
type Size int64

var units = []struct {
	suffix string
	size   int64
}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40}, {"k", 1 << 10}, {"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}, {"T", 1 << 40}, {"B", 1}}

// Parse reads a size: "512MiB", "4G", "1000", " 64 M ".
func Parse(s string) (Size, error) {
	num := strings.TrimSpace(s)
	unit := int64(1)
	for _, u := range units {
		if rest, ok := strings.CutSuffix(num, u.suffix); ok {
			num, unit = strings.TrimSpace(rest), u.size
			break
		}
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n < 0 || n > (1<<62)/unit {
		return 0, fmt.Errorf("%q is not a size in bytes (e.g. 512MiB, 4GiB, or 0)", s)
	}
	return Size(n * unit), nil
}

// String writes the size in the largest unit that divides it: 1GiB, 1536MiB, 1000.
func (s Size) String() string {
	n := int64(s)
	for _, u := range []struct {
		name string
		size int64
	}{{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n >= u.size && n%u.size == 0 {
			return strconv.FormatInt(n/u.size, 10) + u.name
		}
	}
	return strconv.FormatInt(n, 10)
}

// Set is flag.Value's.
func (s *Size) Set(v string) error {
	n, err := Parse(v)
	if err != nil {
		return err
	}
	*s = n
	return nil
}

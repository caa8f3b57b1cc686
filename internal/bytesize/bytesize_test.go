package bytesize

import "testing"

func TestParse(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
		text string
	}{
		{"0", 0, "0"}, {"1GiB", 1 << 30, "1GiB"}, {"512MiB", 512 << 20, "512MiB"}, {"4G", 4 << 30, "4GiB"},
		{" 64 M ", 64 << 20, "64MiB"}, {"1000", 1000, "1000"}, {"3k", 3 << 10, "3KiB"}, {"2TiB", 2 << 40, "2TiB"}, {"1536MiB", 1536 << 20, "1536MiB"},
	} {
		var b Size
		if err := b.Set(c.in); err != nil || int64(b) != c.want || b.String() != c.text {
			t.Errorf("Set(%q) = %d (%s), %v; want %d (%s)", c.in, int64(b), b.String(), err, c.want, c.text)
		}
	}
	for _, in := range []string{"", "-1", "1.5GiB", "GiB", "1 PB", "ten", "99999999999TiB"} {
		var b Size
		if err := b.Set(in); err == nil {
			t.Errorf("Set(%q) = %d, want an error", in, int64(b))
		}
	}
}

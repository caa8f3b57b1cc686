package market

import "testing"

func TestLDACode(t *testing.T) {
	tests := []struct{ in, want string }{
		{"RTO *", "RTO"}, {"PS NORTH", "PSNORTH"}, {"DPL SOUTH", "DPLSOUTH"}, {"ATSI-Cleveland", "ATSI-CLEVELAND"}, {" MAAC ", "MAAC"},
	}
	for _, tc := range tests {
		if got := ldaCode(tc.in); got != tc.want {
			t.Errorf("ldaCode(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestSamePrinted(t *testing.T) {
	tests := []struct {
		a, b float64
		want bool
	}{
		{144870.6, 144870.60000000003, true},
		{0.77, 0.7699, true},
		{0.772, 0.7717, true},
		{0.2, 0.25, false},
		{140, 140.0229, false},
		{163627.3, 163627.4, false},
	}
	for _, tc := range tests {
		if got := samePrinted(tc.a, tc.b); got != tc.want {
			t.Errorf("samePrinted(%v, %v) = %v", tc.a, tc.b, got)
		}
	}
}

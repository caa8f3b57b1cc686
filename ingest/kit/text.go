package kit

import "strings"

// Squash collapses every run of white space in s (line breaks included) to one space and
// trims it: a label or description as published, on one line.
func Squash(s string) string { return strings.Join(strings.Fields(s), " ") }

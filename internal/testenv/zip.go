package testenv

import (
	"archive/zip"
	"bytes"
	"testing"
)

// Zip is a zip archive holding the members given as name, content pairs, in order.
func Zip(t testing.TB, members ...string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for i := 0; i+1 < len(members); i += 2 {
		w, err := zw.Create(members[i])
		if err == nil {
			_, err = w.Write([]byte(members[i+1]))
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

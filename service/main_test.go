package service

import (
	"testing"

	"github.com/citeq/citeq/internal/testenv"
)

// TestMain removes the data directory the package's tests share.
func TestMain(m *testing.M) { testenv.Main(m) }

// testService serves the data directory ingested from the raw files.
func testService(t *testing.T) *Service {
	t.Helper()
	s, err := New(testenv.Data(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Served()) == 0 {
		t.Fatal("no capability is served from the ingested data directory")
	}
	return s
}

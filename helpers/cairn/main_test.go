package main

import (
	"os"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/testenv"
)

// TestMain gives the tests their own HOME and XDG directories (see
// testenv). Hooks start background sanitize runs that would outlive a test
// and write into its removed directory; the tests of that behaviour turn
// it back on and wait for the run.
func TestMain(m *testing.M) {
	os.Setenv("CAIRN_NO_BACKGROUND", "1")
	testenv.Main(m)
}

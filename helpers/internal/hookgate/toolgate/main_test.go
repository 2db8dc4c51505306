package toolgate

import (
	"errors"
	"os"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/testharness/testenv"
)

// TestMain gives the tests their own HOME and XDG directories (see
// testenv), and starts no process for a background sync: a test that
// looks for one sets its own stand-in.
func TestMain(m *testing.M) {
	spawn = func(string, *os.File, *sysProcAttr) error { return errors.New("no background sync in tests") }
	testenv.Main(m)
}

package addgate

import (
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/testharness/testenv"
)

// TestMain gives the tests their own HOME and XDG directories (see testenv).
func TestMain(m *testing.M) { testenv.Main(m) }

// Package front holds cairn's end-to-end tests of the front door as a
// person meets it: install.sh from a clone (first install, re-run, a
// teammate's route), the pull-request check's CI recipe run as written
// against a bare remote, and cairn ui in headless Chromium. It is apart
// from helpers/e2e (Claude Code) and helpers/e2e/agents (the other agents'
// CLIs) so that each test binary stays well inside go test's timeout on a
// loaded machine. Under -short it skips what needs a real CLI or a
// browser.
package front

import (
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/testharness/cairntest"
)

// TestMain isolates the tests and keeps hooks from starting background
// runs (see cairntest.Main).
func TestMain(m *testing.M) { cairntest.Main(m) }

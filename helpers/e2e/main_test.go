// Package e2e holds cairn's end-to-end tests with the real Claude Code CLI
// (the oldest supported and the newest tested) against a fake model on
// loopback, install.sh, the pull-request check's CI recipe, and cairn ui
// in headless Chromium. The other agents' CLIs are in helpers/e2e/agents;
// what both share is in testharness/e2etest. It has no code of its own; it
// is a package so that its test binary stays well inside go test's timeout
// on a loaded machine. Under -short it skips what needs a real CLI or a
// browser.
package e2e

import (
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/testharness/cairntest"
)

// TestMain isolates the tests and keeps hooks from starting background
// runs (see cairntest.Main).
func TestMain(m *testing.M) { cairntest.Main(m) }

// Package e2e holds cairn's end-to-end tests with the real Claude Code CLI
// (the oldest supported and the newest tested) against a fake model on
// loopback: the session start, capture, the moment of use, guards, MCP,
// teammates, the session pipeline and the wiki. The other agents' CLIs are
// in helpers/e2e/agents, install.sh, the CI recipe and the viewer in
// helpers/e2e/front; what they share is in testharness/e2etest. It has no
// code of its own; it is a package so that its test binary stays well
// inside go test's timeout on a loaded machine. Under -short it skips what
// needs a real CLI.
package e2e

import (
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/testharness/cairntest"
)

// TestMain isolates the tests and keeps hooks from starting background
// runs (see cairntest.Main).
func TestMain(m *testing.M) { cairntest.Main(m) }

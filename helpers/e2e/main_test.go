// Package e2e holds cairn's end-to-end tests with the real agent CLIs —
// Claude Code (the oldest supported and the newest tested), Codex, Gemini
// CLI, OpenCode, Cursor's hooks — each against a fake model on loopback,
// install.sh, and cairn ui in headless Chromium. It has no code of its
// own; it is a package so that its test binary stays well inside go
// test's timeout on a loaded machine, apart from helpers/cairn's and
// helpers/scenarios'. Under -short it skips what needs a real CLI or a
// browser.
package e2e

import (
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/testharness/cairntest"
)

// TestMain isolates the tests and keeps hooks from starting background
// runs (see cairntest.Main).
func TestMain(m *testing.M) { cairntest.Main(m) }

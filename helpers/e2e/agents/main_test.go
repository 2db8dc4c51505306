// Package agents holds cairn's end-to-end tests with the real Codex,
// Gemini CLI and OpenCode CLIs, each against a fake model on loopback, and
// Cursor's hooks as Cursor runs them (with Claude Code where a test mixes
// agents). It is apart from helpers/e2e so that each test binary stays well
// inside go test's timeout on a loaded machine. Under -short it skips what
// needs a real CLI.
package agents

import (
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/testharness/cairntest"
)

// TestMain isolates the tests and keeps hooks from starting background
// runs (see cairntest.Main).
func TestMain(m *testing.M) { cairntest.Main(m) }

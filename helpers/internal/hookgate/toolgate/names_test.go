package toolgate_test

import (
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/hookgate/toolgate"
	"github.com/cairn-dev/cairn/helpers/internal/session/record"
)

// The environment variable that marks the sync the gate starts as a
// hook's child is the one session/record reads.
func TestInHookNameAgrees(t *testing.T) {
	if toolgate.InHookEnv != record.InHookEnv {
		t.Errorf("the gate's %q, session/record's %q", toolgate.InHookEnv, record.InHookEnv)
	}
}

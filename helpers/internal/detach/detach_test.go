package detach

import (
	"os/exec"
	"path/filepath"
	"testing"
)

func TestStartFailure(t *testing.T) {
	cmd := exec.Command(filepath.Join(t.TempDir(), "no-such-program"))
	if err := Start(cmd); err == nil {
		t.Fatal("Start of a missing program succeeded")
	}
	if cmd.Process != nil {
		t.Errorf("a process was started: %v", cmd.Process)
	}
}

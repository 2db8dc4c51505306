package setup

import (
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/agent"
	"github.com/cairn-dev/cairn/helpers/internal/agent/adapters"
	"github.com/cairn-dev/cairn/helpers/internal/project"
)

// Init and Uninstall write what they did to Out, and ask git (injected)
// which paths to commit.
func TestInitAndUninstall(t *testing.T) {
	p := project.New(t.TempDir(), true)
	claude, _ := agent.Find(adapters.All(), "claude")
	var asked []string
	var out strings.Builder
	o := Options{Project: p, Agents: []agent.Adapter{claude}, All: adapters.All(), Out: &out,
		Uncommitted: func(root string, paths ...string) ([]string, error) {
			asked = paths
			return paths[:1], nil
		}}
	if err := Init(o, "brew install cairn", true); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"provisioned ", "recorded how teammates install cairn: brew install cairn", "wired Claude Code", "git add " + asked[0] + " && git commit"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("init printed no %q:\n%s", want, out.String())
		}
	}
	out.Reset()
	if err := Uninstall(o, false); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "removed ") || !strings.Contains(out.String(), "no agent's wiring runs it now") {
		t.Errorf("uninstall printed:\n%s", out.String())
	}
}

package toolgate

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/anchor"
	"github.com/cairn-dev/cairn/helpers/internal/detach"
	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
)

// The names the gate spells out are the packages' it may not import.
func TestNamesAgree(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{noBackgroundEnv, detach.DisabledEnv},
		{childEnv, detach.ChildEnv},
		{syncLock, knowledge.CacheDir + "/sync.lock"},
		{anchor.Sources[0], knowledge.LogName},
	} {
		if c.got != c.want {
			t.Errorf("the gate's %q, the package's %q", c.got, c.want)
		}
	}
}

// The map is behind when it records other log files than the log's (a
// pull changed it); a missing map is not (the next hook that reads the
// cache builds it), nor a current one.
func TestBehind(t *testing.T) {
	dir := gateProject(t)
	cairn := filepath.Join(dir, ".cairn")
	check := func(what string, want bool) {
		t.Helper()
		s := openTestStore(t, cairn)
		id, err := anchor.Identity(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := s.behind(id); got != want {
			t.Errorf("%s: behind = %v, want %v", what, got, want)
		}
	}
	check("current", false)
	if err := os.WriteFile(filepath.Join(cairn, "knowledge.jsonl"), []byte("{}\n{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	check("after a pull", true)
	if err := os.Remove(filepath.Join(cairn, filepath.FromSlash(anchor.File))); err != nil {
		t.Fatal(err)
	}
	check("no map", false)
}

// environ replaces what it sets: a child reads the first of a name.
func TestEnviron(t *testing.T) {
	got := environ([]string{"A=1", "CAIRN_IN_HOOK=0", "CAIRN_IN_HOOKS=x", "B=2"}, "CAIRN_IN_HOOK=1")
	want := []string{"A=1", "CAIRN_IN_HOOKS=x", "B=2", "CAIRN_IN_HOOK=1"}
	if len(got) != len(want) {
		t.Fatalf("environ = %q, want %q", got, want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("environ = %q, want %q", got, want)
		}
	}
}

package testenv

import (
	"os"
	"path/filepath"
	"testing"
)

func TestMain(m *testing.M) { Main(m) }

// TestRunIsolates: inside run, HOME and the XDG directories are fresh and
// Go's cache is pinned; a file a test writes into the person's own cairn
// directories naming the tests' temporary directory fails the run, one
// the person wrote meanwhile does not.
func TestRunIsolates(t *testing.T) {
	for _, k := range []string{"HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME", "GOCACHE", ToolsEnv} {
		t.Setenv(k, os.Getenv(k))
	}
	person := t.TempDir()
	state := filepath.Join(person, "state", "cairn")
	if err := os.MkdirAll(state, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(state, "pipeline.log"), []byte("the person's own line\n"), 0o644)
	home := os.Getenv("HOME")

	var inside map[string]string
	code := run(func() int {
		inside = map[string]string{}
		for _, k := range []string{"HOME", "XDG_STATE_HOME", "XDG_CONFIG_HOME", "GOCACHE"} {
			inside[k] = os.Getenv(k)
		}
		return 0
	}, []string{state})
	if code != 0 {
		t.Fatalf("an isolated run that wrote nothing: code %d", code)
	}
	if inside["HOME"] == home || inside["HOME"] == "" {
		t.Errorf("HOME inside the run = %q, the same as outside", inside["HOME"])
	}
	if want := filepath.Join(inside["HOME"], ".local", "state"); inside["XDG_STATE_HOME"] != want {
		t.Errorf("XDG_STATE_HOME = %q, want %q", inside["XDG_STATE_HOME"], want)
	}
	if inside["GOCACHE"] == "" || filepath.Dir(inside["GOCACHE"]) == inside["HOME"] {
		t.Errorf("GOCACHE = %q: not pinned to the person's", inside["GOCACHE"])
	}
	if _, err := os.Stat(inside["HOME"]); err == nil {
		t.Errorf("the run's HOME %s is left behind", inside["HOME"])
	}

	// The person writes meanwhile: not a leak.
	code = run(func() int {
		os.WriteFile(filepath.Join(state, "pipeline.log"), []byte("the person's own line\nanother\n"), 0o644)
		return 0
	}, []string{state})
	if code != 0 {
		t.Errorf("the person's own write during the run failed it (code %d)", code)
	}

	// A test queues its session into the person's queue: a leak.
	code = run(func() int {
		project := filepath.Join(os.Getenv("HOME"), "project")
		os.WriteFile(filepath.Join(state, "leak.task"), []byte(`{"project":"`+project+`"}`), 0o644)
		return 0
	}, []string{state})
	if code != 1 {
		t.Errorf("a test's task in the person's queue: code %d, want 1", code)
	}
}

func TestHome(t *testing.T) {
	got := Home("/h")
	want := []string{"HOME=/h", "XDG_CONFIG_HOME=/h/.config", "XDG_DATA_HOME=/h/.local/share", "XDG_STATE_HOME=/h/.local/state", "XDG_CACHE_HOME=/h/.cache"}
	if len(got) != len(want) {
		t.Fatalf("Home = %q", got)
	}
	for i := range want {
		if filepath.ToSlash(got[i]) != want[i] {
			t.Errorf("Home[%d] = %q, want %q", i, got[i], want[i])
		}
	}
}

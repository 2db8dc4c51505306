package gemini

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/fsx"
)

// project is a work tree with an empty .cairn.
func project(t *testing.T) (string, fsx.Root) {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, ".cairn"), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir, fsx.NewRoot(filepath.Join(dir, ".cairn"))
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestWireUnwire(t *testing.T) {
	dir, cairnDir := project(t)
	a := Adapter{}
	if a.Uses(dir) {
		t.Error("Uses before Wire")
	}
	changed, err := a.Wire(dir, cairnDir)
	if err != nil || !changed {
		t.Fatal(changed, err)
	}
	settings := filepath.Join(dir, ".gemini", "settings.json")
	if missing, err := wired([]byte(read(t, settings))); err != nil || len(missing) > 0 {
		t.Errorf("wired: %v %v", missing, err)
	}
	if fi, err := os.Stat(filepath.Join(dir, ".cairn", "hook")); err != nil || fi.Mode().Perm()&0o100 == 0 {
		t.Errorf("launcher: %v %v", fi, err)
	}
	for _, f := range []string{settings, filepath.Join(dir, ".cairn", "hook")} {
		if strings.Contains(read(t, f), dir) {
			t.Errorf("%s names this machine's project path", f)
		}
	}
	if !a.Uses(dir) {
		t.Error("Uses after Wire")
	}
	if changed, err := a.Wire(dir, cairnDir); err != nil || changed {
		t.Errorf("a second Wire: %v %v", changed, err)
	}
	removed, err := a.Unwire(dir, cairnDir)
	if err != nil || len(removed) != 1 {
		t.Fatal(removed, err)
	}
	if _, err := os.Stat(filepath.Join(dir, ".gemini")); !os.IsNotExist(err) {
		t.Errorf(".gemini of cairn's own making stays: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, ".cairn", "hook")); err != nil {
		t.Errorf("Unwire removed the launcher (the CLI does, once no agent uses it): %v", err)
	}
	if a.Uses(dir) {
		t.Error("Uses after Unwire")
	}
	if removed, err := a.Unwire(dir, cairnDir); err != nil || len(removed) != 0 {
		t.Errorf("a second Unwire: %v %v", removed, err)
	}
}

// A settings file of the user's keeps everything else; .gemini keeps the
// user's other files; a file left with only a comment stays.
func TestUnwireKeepsTheUsers(t *testing.T) {
	dir, cairnDir := project(t)
	settings := filepath.Join(dir, ".gemini", "settings.json")
	if err := os.MkdirAll(filepath.Dir(settings), 0o755); err != nil {
		t.Fatal(err)
	}
	const own = "// ours\n{}\n"
	if err := os.WriteFile(settings, []byte(own), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := (Adapter{}).Wire(dir, cairnDir); err != nil {
		t.Fatal(err)
	}
	if _, err := (Adapter{}).Unwire(dir, cairnDir); err != nil {
		t.Fatal(err)
	}
	if got := read(t, settings); got != own {
		t.Errorf("left %q, want %q", got, own)
	}

	if err := os.WriteFile(settings, []byte("{\"hooks\": [1]}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := (Adapter{}).Wire(dir, cairnDir); err == nil || !strings.Contains(err.Error(), "cannot edit .gemini/settings.json") {
		t.Errorf("Wire over hooks that are not an object: %v", err)
	}
}

func TestCheckWiring(t *testing.T) {
	dir, cairnDir := project(t)
	home := t.TempDir()
	check := func() string {
		w := Adapter{}.CheckWiring(dir, cairnDir, home)
		return w.Status + ": " + w.Detail
	}
	if got := check(); !strings.HasPrefix(got, "ok: Gemini CLI: not wired") {
		t.Errorf("unwired: %s", got)
	}
	if _, err := (Adapter{}).Wire(dir, cairnDir); err != nil {
		t.Fatal(err)
	}
	if got := check(); !strings.HasPrefix(got, "warn: Gemini CLI: does not trust this folder") {
		t.Errorf("untrusted: %s", got)
	}
	trust := func(rules string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Join(home, ".gemini"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(home, ".gemini", "trustedFolders.json"), []byte(rules), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	trust(`{"` + filepath.Join(dir, "sub") + `": "TRUST_PARENT"}`)
	if got := check(); got != "ok: Gemini CLI: .gemini/settings.json runs .cairn/hook for every event" {
		t.Errorf("trusted through a child's TRUST_PARENT: %s", got)
	}
	trust(`{"/": "TRUST_FOLDER", "` + dir + `": "DO_NOT_TRUST"}`)
	if got := check(); !strings.HasPrefix(got, "warn: Gemini CLI: does not trust") {
		t.Errorf("distrusted: %s", got)
	}
	trust(`{"` + dir + `": "TRUST_FOLDER"}`)
	if err := os.WriteFile(filepath.Join(home, ".gemini", "settings.json"), []byte(`{"hooksConfig": {"enabled": false}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := check(); !strings.HasPrefix(got, "fail: Gemini CLI: your ~/.gemini/settings.json turns Gemini CLI's hooks off") {
		t.Errorf("hooks off: %s", got)
	}
	os.Remove(filepath.Join(home, ".gemini", "settings.json"))
	if err := os.Chmod(filepath.Join(dir, ".cairn", "hook"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := check(); !strings.HasPrefix(got, "fail: Gemini CLI: .cairn/hook is not executable") {
		t.Errorf("not executable: %s", got)
	}
	os.Remove(filepath.Join(dir, ".cairn", "hook"))
	if got := check(); !strings.HasPrefix(got, "fail: Gemini CLI: .gemini/settings.json runs .cairn/hook, which is missing") {
		t.Errorf("no launcher: %s", got)
	}
	if _, err := (Adapter{}).Wire(dir, cairnDir); err != nil {
		t.Fatal(err)
	}
	settings := filepath.Join(dir, ".gemini", "settings.json")
	data := strings.Replace(read(t, settings), "--agent gemini AfterTool", "--agent gemini Elsewhere", 1)
	if err := os.WriteFile(settings, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := check(); got != "fail: Gemini CLI: .gemini/settings.json does not run .cairn/hook for AfterTool" {
		t.Errorf("an event missing: %s", got)
	}
	if err := os.WriteFile(settings, []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := check(); !strings.HasPrefix(got, "fail: Gemini CLI: .gemini/settings.json: not valid JSON") {
		t.Errorf("broken settings: %s", got)
	}
}

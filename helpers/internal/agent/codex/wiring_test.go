package codex_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/agent/codex"
	"github.com/cairn-dev/cairn/helpers/internal/fsx"
)

func exists(path string) bool { _, err := os.Stat(path); return err == nil }

// Wire writes the launcher and hooks.json, names nothing of the machine,
// and writes nothing a second time; Unwire removes cairn's hooks and
// leaves the launcher (the CLI removes it once no agent's wiring Uses it).
func TestWireUnwire(t *testing.T) {
	project := t.TempDir()
	cairnDir := fsx.NewRoot(filepath.Join(project, ".cairn"))
	if changed, err := (codex.Adapter{}).Wire(project, cairnDir); err != nil || !changed {
		t.Fatalf("Wire = %v, %v", changed, err)
	}
	hooksJSON := filepath.Join(project, codex.HooksFile)
	data := readTestdataAbs(t, hooksJSON)
	launcher := readTestdataAbs(t, filepath.Join(project, ".cairn", "hook"))
	home, _ := os.UserHomeDir()
	for _, f := range [][]byte{data, launcher} {
		if strings.Contains(string(f), project) || (home != "" && strings.Contains(string(f), home)) {
			t.Errorf("a committed file names this machine:\n%s", f)
		}
	}
	if fi, _ := os.Stat(filepath.Join(project, ".cairn", "hook")); fi.Mode().Perm()&0o111 == 0 {
		t.Error("the launcher is not executable")
	}
	before, _ := os.Stat(hooksJSON)
	if changed, err := (codex.Adapter{}).Wire(project, cairnDir); err != nil || changed {
		t.Fatalf("second Wire = %v, %v", changed, err)
	}
	if after, _ := os.Stat(hooksJSON); !after.ModTime().Equal(before.ModTime()) {
		t.Error("second Wire rewrote hooks.json")
	}
	if !(codex.Adapter{}).Uses(project) {
		t.Error("Uses = false for a wired project")
	}
	removed, err := codex.Adapter{}.Unwire(project, cairnDir)
	if err != nil || len(removed) != 1 {
		t.Fatalf("Unwire = %q, %v", removed, err)
	}
	if exists(hooksJSON) || exists(filepath.Join(project, ".codex")) || !exists(filepath.Join(project, ".cairn", "hook")) {
		t.Error("Unwire left cairn's hooks, or took the launcher")
	}
	if (codex.Adapter{}).Uses(project) {
		t.Error("Uses = true once unwired")
	}
	if removed, err := (codex.Adapter{}).Unwire(project, cairnDir); err != nil || len(removed) != 0 {
		t.Errorf("second Unwire = %q, %v", removed, err)
	}
}

// A project's own .codex (hooks, a config.toml) stays.
func TestWireKeepsTheProjects(t *testing.T) {
	project := t.TempDir()
	user := readTestdata(t, "hooksjson/user.json")
	if err := os.MkdirAll(filepath.Join(project, ".codex"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{".codex/hooks.json": user, ".codex/config.toml": []byte("model = \"o3\"\n")} {
		os.MkdirAll(filepath.Dir(filepath.Join(project, name)), 0o755)
		if err := os.WriteFile(filepath.Join(project, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cairnDir := fsx.NewRoot(filepath.Join(project, ".cairn"))
	if _, err := (codex.Adapter{}).Wire(project, cairnDir); err != nil {
		t.Fatal(err)
	}
	removed, err := codex.Adapter{}.Unwire(project, cairnDir)
	if err != nil || len(removed) != 1 {
		t.Fatalf("Unwire = %q, %v", removed, err)
	}
	if !sameValue(t, readTestdataAbs(t, filepath.Join(project, ".codex", "hooks.json")), user) {
		t.Error("the project's hooks.json changed")
	}
	if !exists(filepath.Join(project, ".codex", "config.toml")) || (codex.Adapter{}).Uses(project) {
		t.Error("Unwire removed what is not only cairn's")
	}
	if err := os.WriteFile(filepath.Join(project, ".codex", "hooks.json"), []byte("not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := (codex.Adapter{}).Wire(project, cairnDir); err == nil || !strings.Contains(err.Error(), "cannot edit .codex/hooks.json") {
		t.Errorf("Wire over a broken hooks.json: %v", err)
	}
}

// The command Codex runs finds the launcher from a subdirectory, and from
// outside a git work tree, passing it the event and stdin.
func TestCommandFindsTheLauncher(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	project := t.TempDir()
	if out, err := exec.Command("git", "-C", project, "init", "-q").CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	if err := os.MkdirAll(filepath.Join(project, ".cairn"), 0o755); err != nil {
		t.Fatal(err)
	}
	script := "#!/bin/sh\nprintf '%s|' \"$@\"\ncat\n"
	if err := os.WriteFile(filepath.Join(project, ".cairn", "hook"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(project, "a", "b")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	plain := t.TempDir() // not a work tree: the launcher at the cwd
	if err := os.MkdirAll(filepath.Join(plain, ".cairn"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(plain, ".cairn", "hook"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{project, sub, plain} {
		cmd := exec.Command("/bin/sh", "-c", codex.Command("Stop"))
		cmd.Dir = dir
		cmd.Stdin = strings.NewReader("{}")
		out, err := cmd.Output()
		if err != nil || string(out) != "--agent|codex|Stop|{}" {
			t.Errorf("from %s: %q %v", dir, out, err)
		}
	}
}

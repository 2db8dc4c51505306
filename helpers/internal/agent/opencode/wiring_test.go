package opencode_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/agent/launcher"
	"github.com/cairn-dev/cairn/helpers/internal/agent/opencode"
	"github.com/cairn-dev/cairn/helpers/internal/agent/opencode/hooks"
	"github.com/cairn-dev/cairn/helpers/internal/fsx"
)

// snapshot maps every file under dir (relative, slash-separated) to its
// content and mode; directories map to "dir".
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if rel == "." {
			return nil
		}
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			out[rel] = "dir"
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		out[rel] = fi.Mode().Perm().String() + " " + string(data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func write(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// project is an empty project with a .cairn directory.
func project(t *testing.T) (string, fsx.Root) {
	t.Helper()
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, ".cairn"), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir, fsx.NewRoot(filepath.Join(dir, ".cairn"))
}

// Wire writes the launcher (executable) and the plugin; again, it changes
// nothing and says so; Unwire removes both and the directories it made,
// and again removes nothing.
func TestWireUnwireFresh(t *testing.T) {
	dir, cairnDir := project(t)
	before := snapshot(t, dir)
	changed, err := opencode.Adapter{}.Wire(dir, cairnDir)
	if err != nil || !changed {
		t.Fatalf("Wire = %v, %v", changed, err)
	}
	plugin, err := os.ReadFile(filepath.Join(dir, ".opencode", "plugins", "cairn.js"))
	if err != nil || string(plugin) != opencode.Plugin() {
		t.Fatalf("plugin not written: %v", err)
	}
	fi, err := os.Stat(filepath.Join(dir, ".cairn", "hook"))
	if err != nil || fi.Mode().Perm()&0o111 != 0o111 {
		t.Fatalf("launcher not written executable: %v %v", fi, err)
	}
	wired := snapshot(t, dir)
	if changed, err := (opencode.Adapter{}).Wire(dir, cairnDir); err != nil || changed {
		t.Fatalf("second Wire = %v, %v", changed, err)
	}
	if again := snapshot(t, dir); strings.Join(keys(again), " ") != strings.Join(keys(wired), " ") {
		t.Fatalf("second Wire changed the tree: %v -> %v", keys(wired), keys(again))
	}
	if w := (opencode.Adapter{}).CheckWiring(dir, cairnDir, ""); w.Status != "ok" || !strings.Contains(w.Detail, "runs .cairn/hook") {
		t.Errorf("CheckWiring after Wire = %+v", w)
	}
	if !(opencode.Adapter{}).Uses(dir) {
		t.Errorf("Uses = false after Wire")
	}
	removed, err := opencode.Adapter{}.Unwire(dir, cairnDir)
	if err != nil || strings.Join(removed, ",") != ".opencode/plugins/cairn.js" {
		t.Fatalf("Unwire = %q, %v", removed, err)
	}
	if (opencode.Adapter{}).Uses(dir) {
		t.Errorf("Uses = true after Unwire: the launcher would never go")
	}
	// The launcher stays for the CLI, which removes it once no agent uses it.
	if _, err := launcher.Remove(cairnDir); err != nil {
		t.Fatal(err)
	}
	if after := snapshot(t, dir); strings.Join(keys(after), " ") != strings.Join(keys(before), " ") {
		t.Errorf("Unwire left %v, before Wire %v", keys(after), keys(before))
	}
	if removed, err := (opencode.Adapter{}).Unwire(dir, cairnDir); err != nil || len(removed) != 0 {
		t.Errorf("second Unwire = %q, %v", removed, err)
	}
}

// A project's own OpenCode setup (its config, another plugin) and what
// OpenCode itself put in .opencode (.gitignore, package.json,
// node_modules) are untouched by Wire and Unwire; only cairn's file goes.
func TestUnwireKeepsOthers(t *testing.T) {
	dir, cairnDir := project(t)
	oc := filepath.Join(dir, ".opencode")
	write(t, filepath.Join(oc, "opencode.json"), `{"model":"anthropic/claude-sonnet-4"}`)
	write(t, filepath.Join(oc, "plugins", "notify.ts"), "export const Notify = async () => ({})\n")
	write(t, filepath.Join(oc, ".gitignore"), "node_modules\npackage.json\npackage-lock.json\nbun.lock\n.gitignore")
	write(t, filepath.Join(oc, "package.json"), `{"dependencies":{"@opencode-ai/plugin":"1.18.33"}}`)
	write(t, filepath.Join(oc, "node_modules", "@opencode-ai", "plugin", "package.json"), `{}`)
	before := snapshot(t, dir)
	if _, err := (opencode.Adapter{}).Wire(dir, cairnDir); err != nil {
		t.Fatal(err)
	}
	mid := snapshot(t, dir)
	for k, v := range before {
		if mid[k] != v {
			t.Errorf("Wire changed %s", k)
		}
	}
	if _, err := (opencode.Adapter{}).Unwire(dir, cairnDir); err != nil {
		t.Fatal(err)
	}
	if _, err := launcher.Remove(cairnDir); err != nil {
		t.Fatal(err)
	}
	after := snapshot(t, dir)
	if strings.Join(keys(after), " ") != strings.Join(keys(before), " ") {
		t.Errorf("after Unwire %v, before Wire %v", keys(after), keys(before))
	}
	for k, v := range before {
		if after[k] != v {
			t.Errorf("Unwire changed %s", k)
		}
	}
}

// A cairn.js that cairn did not write is the project's: Wire refuses to
// replace it and Unwire leaves it; doctor fails (every OpenCode session
// runs it, and a pull may have put it there).
func TestForeignPlugin(t *testing.T) {
	dir, cairnDir := project(t)
	mine := filepath.Join(dir, ".opencode", "plugins", "cairn.js")
	write(t, mine, "// the team's own cairn.js\nexport const Mine = async () => ({})\n")
	if _, err := (opencode.Adapter{}).Wire(dir, cairnDir); !errors.Is(err, opencode.ErrForeignPlugin) {
		t.Fatalf("Wire over a foreign cairn.js: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, ".cairn", "hook")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Wire wrote the launcher though it refused the plugin: %v", err)
	}
	if w := (opencode.Adapter{}).CheckWiring(dir, cairnDir, ""); w.Status != "fail" || !strings.Contains(w.Detail, "not cairn's plugin") {
		t.Errorf("CheckWiring = %+v", w)
	}
	if (opencode.Adapter{}).Uses(dir) {
		t.Errorf("a foreign cairn.js counts as running the launcher")
	}
	if removed, err := (opencode.Adapter{}).Unwire(dir, cairnDir); err != nil || len(removed) != 0 {
		t.Errorf("Unwire = %q, %v", removed, err)
	}
	if data, _ := os.ReadFile(mine); !strings.HasPrefix(string(data), "// the team's own") {
		t.Errorf("the project's cairn.js was changed: %s", data)
	}
}

// An older cairn's plugin (marked, different) is rewritten by Wire and
// removed by Unwire; doctor fails while it differs (issue 24: what every
// OpenCode session runs changed), naming the init that rewrites it.
func TestOlderPlugin(t *testing.T) {
	dir, cairnDir := project(t)
	if _, err := (opencode.Adapter{}).Wire(dir, cairnDir); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, ".opencode", "plugins", "cairn.js")
	old := strings.Replace(opencode.Plugin(), `"SessionStart":{"timeout":120000}`, `"SessionStart":{"timeout":60000}`, 1)
	write(t, path, old)
	if w := (opencode.Adapter{}).CheckWiring(dir, cairnDir, ""); w.Status != "fail" || !strings.Contains(w.Detail, "differs") || !strings.HasPrefix(w.Fix, "cairn init --opencode") {
		t.Errorf("CheckWiring with an older plugin = %+v", w)
	}
	if changed, err := (opencode.Adapter{}).Wire(dir, cairnDir); err != nil || !changed {
		t.Fatalf("Wire over an older plugin = %v, %v", changed, err)
	}
	write(t, path, old)
	if removed, err := (opencode.Adapter{}).Unwire(dir, cairnDir); err != nil || len(removed) == 0 || removed[0] != opencode.PluginFile {
		t.Errorf("Unwire of an older plugin = %q, %v", removed, err)
	}
}

// doctor's view of each broken state, with the command that fixes it.
func TestCheckWiring(t *testing.T) {
	dir, cairnDir := project(t)
	if w := (opencode.Adapter{}).CheckWiring(dir, cairnDir, ""); w.Status != "ok" || !strings.Contains(w.Detail, "not wired") {
		t.Errorf("unwired project = %+v", w)
	}
	if _, err := (opencode.Adapter{}).Wire(dir, cairnDir); err != nil {
		t.Fatal(err)
	}
	hook := filepath.Join(dir, ".cairn", "hook")
	if err := os.Chmod(hook, 0o644); err != nil {
		t.Fatal(err)
	}
	if w := (opencode.Adapter{}).CheckWiring(dir, cairnDir, ""); w.Status != "fail" || !strings.Contains(w.Fix, "chmod +x") {
		t.Errorf("launcher not executable = %+v", w)
	}
	if err := os.WriteFile(hook, []byte("#!/bin/sh\n# an older launcher\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(hook, 0o755); err != nil {
		t.Fatal(err)
	}
	// Another launcher's content is doctor's own check (once for every
	// agent); the adapter checks its own file, which is right.
	if w := (opencode.Adapter{}).CheckWiring(dir, cairnDir, ""); w.Status != "ok" {
		t.Errorf("an older launcher = %+v", w)
	}
	if err := os.Remove(hook); err != nil {
		t.Fatal(err)
	}
	if w := (opencode.Adapter{}).CheckWiring(dir, cairnDir, ""); w.Status != "fail" || !strings.Contains(w.Detail, "missing") {
		t.Errorf("launcher missing = %+v", w)
	}
}

// The plugin names nothing of one machine, runs the launcher in agent
// mode, and knows every event of the table and nothing of typed prefixes:
// which lines count is cairn's alone (Lavra's OpenCode port filtered on a
// prefix list that lacked MUST-CHECK:, and lost those entries).
func TestPluginSource(t *testing.T) {
	src := opencode.Plugin()
	for _, local := range []string{"/home/", "/Users/", "/root", "/tmp/", `C:\`, "$HOME", "~/"} {
		if strings.Contains(src, local) {
			t.Errorf("the plugin names %q", local)
		}
	}
	if !strings.Contains(src, `join(root, ".cairn", "hook")`) || !strings.Contains(src, `["--agent", "opencode", name]`) {
		t.Errorf("the plugin does not run the launcher in agent mode")
	}
	for _, h := range hooks.Events {
		if !strings.Contains(src, `"`+h.Event+`"`) || !strings.Contains(src, `"`+h.On+`"`) {
			t.Errorf("the plugin lacks %s (sent from %s)", h.Event, h.On)
		}
	}
	code := src[strings.Index(src, "import "):]
	for _, prefix := range []string{"LEARNED", "DECISION", "FACT", "PATTERN", "INVESTIGATION", "DEVIATION", "MUST"} {
		if strings.Contains(code, prefix) {
			t.Errorf("the plugin's code matches typed prefixes itself (%s)", prefix)
		}
	}
	if !opencode.IsPlugin([]byte(src)) || strings.Contains(src, "/*cairn:") {
		t.Errorf("the plugin is not marked, or a placeholder is left")
	}
}

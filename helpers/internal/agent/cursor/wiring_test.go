package cursor_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/agent/cursor"
	"github.com/cairn-dev/cairn/helpers/internal/fsx"
)

// project is a directory with a .cairn of its own.
func project(t *testing.T) (string, fsx.Root) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "a repo #1")
	if err := os.MkdirAll(filepath.Join(dir, ".cairn"), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir, fsx.NewRoot(filepath.Join(dir, ".cairn"))
}

func read(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestWireUnwire(t *testing.T) {
	dir, cairnDir := project(t)
	a := cursor.Adapter{}
	if a.Uses(dir) {
		t.Error("Uses before Wire")
	}
	if w := a.CheckWiring(dir, cairnDir, ""); w.Status != "ok" || !strings.Contains(w.Detail, "not wired") {
		t.Errorf("CheckWiring before Wire: %+v", w)
	}
	changed, err := a.Wire(dir, cairnDir)
	if err != nil || !changed {
		t.Fatalf("Wire: %v %v", changed, err)
	}
	hooksPath := filepath.Join(dir, ".cursor", "hooks.json")
	if got := read(t, hooksPath); got != cairnOnly {
		t.Errorf("hooks.json:\n%s", got)
	}
	fi, err := os.Stat(filepath.Join(dir, ".cairn", "hook"))
	if err != nil || fi.Mode().Perm()&0o100 == 0 {
		t.Fatalf("launcher missing or not executable: %v", err)
	}
	if !a.Uses(dir) {
		t.Error("Uses after Wire")
	}
	if w := a.CheckWiring(dir, cairnDir, ""); w.Status != "ok" || !strings.Contains(w.Detail, "every event") {
		t.Errorf("CheckWiring after Wire: %+v", w)
	}
	if changed, err := a.Wire(dir, cairnDir); err != nil || changed {
		t.Errorf("second Wire: %v %v", changed, err)
	}
	removed, err := a.Unwire(dir, cairnDir)
	if err != nil || len(removed) != 1 {
		t.Fatalf("Unwire: %v %v", removed, err)
	}
	// A file of cairn's own making goes, and the .cursor it leaves empty.
	if _, err := os.Stat(filepath.Join(dir, ".cursor")); !os.IsNotExist(err) {
		t.Errorf(".cursor stayed: %v", err)
	}
	if removed, err := a.Unwire(dir, cairnDir); err != nil || len(removed) != 0 {
		t.Errorf("second Unwire: %v %v", removed, err)
	}
	if a.Uses(dir) {
		t.Error("Uses after Unwire")
	}
}

func TestWireKeepsTheUsersFile(t *testing.T) {
	dir, cairnDir := project(t)
	hooksPath := filepath.Join(dir, ".cursor", "hooks.json")
	if err := os.MkdirAll(filepath.Dir(hooksPath), 0o755); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(dir, ".cursor", "rules.mdc")
	for path, data := range map[string]string{hooksPath: userFile, other: "keep me"} {
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := (cursor.Adapter{}).Wire(dir, cairnDir); err != nil {
		t.Fatal(err)
	}
	if _, err := (cursor.Adapter{}).Unwire(dir, cairnDir); err != nil {
		t.Fatal(err)
	}
	if got, want := compactJSON(t, []byte(read(t, hooksPath))), compactJSON(t, []byte(userFile)); got != want {
		t.Errorf("the user's file changed:\n got %s\nwant %s", got, want)
	}
	if read(t, other) != "keep me" {
		t.Error("another file in .cursor changed")
	}
}

func TestCheckWiring(t *testing.T) {
	dir, cairnDir := project(t)
	hooksPath := filepath.Join(dir, ".cursor", "hooks.json")
	write := func(data string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(hooksPath), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(hooksPath, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("{oops")
	if w := (cursor.Adapter{}).CheckWiring(dir, cairnDir, ""); w.Status != "fail" || !strings.Contains(w.Fix, "by hand") {
		t.Errorf("invalid hooks.json: %+v", w)
	}
	write(cairnOnly)
	if w := (cursor.Adapter{}).CheckWiring(dir, cairnDir, ""); w.Status != "fail" || !strings.Contains(w.Detail, "missing") {
		t.Errorf("no launcher: %+v", w)
	}
	if _, err := (cursor.Adapter{}).Wire(dir, cairnDir); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(dir, ".cairn", "hook"), 0o644); err != nil {
		t.Fatal(err)
	}
	if w := (cursor.Adapter{}).CheckWiring(dir, cairnDir, ""); w.Status != "fail" || !strings.Contains(w.Detail, "not executable") {
		t.Errorf("launcher not executable: %+v", w)
	}
	if err := os.WriteFile(filepath.Join(dir, ".cairn", "hook"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	// Another launcher's content is doctor's own check (once for every
	// agent); the adapter checks its own file, which is right.
	if w := (cursor.Adapter{}).CheckWiring(dir, cairnDir, ""); w.Status != "ok" {
		t.Errorf("another launcher: %+v", w)
	}
	if _, err := (cursor.Adapter{}).Wire(dir, cairnDir); err != nil {
		t.Fatal(err)
	}
	write(`{"version":1,"hooks":{"sessionStart":[{"command":".cairn/hook --agent cursor sessionStart"}]}}`)
	if w := (cursor.Adapter{}).CheckWiring(dir, cairnDir, ""); w.Status != "fail" || !strings.Contains(w.Detail, "afterShellExecution, afterAgentResponse") {
		t.Errorf("partly wired: %+v", w)
	}
	// A project wired by a cairn from before the notes before a tool:
	// capture and recall work, so a warning, with the fix.
	write(`{"version":1,"hooks":{"sessionStart":[{"command":".cairn/hook --agent cursor sessionStart","timeout":120}],` +
		`"afterShellExecution":[{"command":".cairn/hook --agent cursor afterShellExecution","timeout":10}],` +
		`"afterAgentResponse":[{"command":".cairn/hook --agent cursor afterAgentResponse","timeout":10}]}}`)
	if w := (cursor.Adapter{}).CheckWiring(dir, cairnDir, ""); w.Status != "warn" || !strings.Contains(w.Detail, "postToolUse") ||
		!strings.Contains(w.Detail, "the notes before a tool call") || !strings.Contains(w.Fix, "cairn init --cursor") {
		t.Errorf("wired before postToolUse: %+v", w)
	}
}

// Without cairn on the machine, the launcher answers sessionStart with
// Cursor's output saying how to install it, and every other event with
// nothing; it always exits 0.
func TestLauncherWithoutCairn(t *testing.T) {
	dir, cairnDir := project(t)
	if _, err := (cursor.Adapter{}).Wire(dir, cairnDir); err != nil {
		t.Fatal(err)
	}
	run := func(event string) (string, error) {
		cmd := exec.Command("sh", "-c", cursor.Command(event))
		cmd.Dir = dir
		cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + t.TempDir(), "GOPATH=" + t.TempDir(), "CURSOR_PROJECT_DIR=" + dir}
		cmd.Stdin = strings.NewReader(string(payload(t, "sessionStart.json")))
		out, err := cmd.Output()
		return string(out), err
	}
	out, err := run("sessionStart")
	if err != nil {
		t.Fatalf("sessionStart: %v", err)
	}
	if !strings.HasPrefix(out, `{"additional_context":"This repository shares team memory through cairn`) || !strings.HasSuffix(out, "}\n") {
		t.Errorf("sessionStart without cairn: %q", out)
	}
	compactJSON(t, []byte(out))
	for _, ev := range []string{"afterShellExecution", "afterAgentResponse"} {
		if out, err := run(ev); err != nil || out != "" {
			t.Errorf("%s without cairn: %q %v", ev, out, err)
		}
	}
}

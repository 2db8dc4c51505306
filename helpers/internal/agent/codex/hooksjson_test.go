package codex_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/agent/codex"
	"github.com/cairn-dev/cairn/helpers/internal/agent/codex/hooks"
	"github.com/cairn-dev/cairn/helpers/internal/agent/launcher"
	"github.com/cairn-dev/cairn/helpers/internal/event"
)

func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// asValue parses JSON for comparisons that ignore formatting.
func asValue(t testing.TB, data []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, data)
	}
	return v
}

func sameValue(t testing.TB, a, b []byte) bool {
	x, _ := json.Marshal(asValue(t, a))
	y, _ := json.Marshal(asValue(t, b))
	return string(x) == string(y)
}

// A file of cairn's own: one group per event, the launcher run from the
// work tree's root, SessionStart and UserPromptSubmit with Codex's spill
// limit off; again, nothing changes.
func TestInstallFresh(t *testing.T) {
	out, changed, err := codex.Install(nil)
	if err != nil || !changed {
		t.Fatalf("Install(nil) = %v, %v", changed, err)
	}
	var f struct {
		Hooks map[string][]struct {
			Matcher string `json:"matcher"`
			Hooks   []struct {
				Type, Command string
				Timeout       int
				Limit         *int `json:"additionalContextLimit"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(out, &f); err != nil {
		t.Fatal(err)
	}
	if len(f.Hooks) != len(hooks.Events) {
		t.Fatalf("events: %s", out)
	}
	for _, h := range hooks.Events {
		g := f.Hooks[h.Event]
		if len(g) != 1 || len(g[0].Hooks) != 1 || g[0].Matcher != h.Matcher {
			t.Fatalf("%s: %+v", h.Event, g)
		}
		hd := g[0].Hooks[0]
		want := `sh -c 'exec "$(git rev-parse --show-toplevel 2>/dev/null || pwd)/.cairn/hook" --agent codex ` + h.Event + `'`
		if hd.Type != "command" || hd.Command != want || hd.Timeout != h.Timeout || (hd.Limit != nil) != (h.Kind == event.Start || h.Kind == event.Prompt || h.Kind == event.BeforeTool) {
			t.Errorf("%s: %+v", h.Event, hd)
		}
		if hd.Limit != nil && *hd.Limit != 0 {
			t.Errorf("%s: limit %d", h.Event, *hd.Limit)
		}
	}
	if strings.Contains(string(out), `\u003e`) || !strings.HasSuffix(string(out), "}\n") || !strings.Contains(string(out), "\n  \"hooks\": {") {
		t.Errorf("not written as people write it:\n%s", out)
	}
	again, changed, err := codex.Install(out)
	if err != nil || changed || string(again) != string(out) {
		t.Errorf("second Install changed it: %v %v", changed, err)
	}
}

// A project's own hooks.json: its keys, events, groups and handlers stay
// (in their order), cairn's groups come after the project's in an event
// both use, and Uninstall gives back the project's file.
func TestInstallKeepsTheProjectsHooks(t *testing.T) {
	user := readTestdata(t, "hooksjson/user.json")
	out, changed, err := codex.Install(user)
	if err != nil || !changed {
		t.Fatalf("Install = %v, %v", changed, err)
	}
	s := string(out)
	for _, want := range []string{`"description": "the team's own hooks"`, `"command": "./scripts/guard.sh"`, `"statusMessage": "notifying"`} {
		if !strings.Contains(s, want) {
			t.Errorf("lost %s:\n%s", want, s)
		}
	}
	if strings.Index(s, `"description"`) > strings.Index(s, `"hooks"`) || strings.Index(s, `"PreToolUse"`) > strings.Index(s, `"Stop"`) {
		t.Errorf("order changed:\n%s", s)
	}
	if strings.Index(s, "notify.sh") > strings.Index(s, "--agent codex Stop") {
		t.Errorf("cairn's Stop group is not after the project's:\n%s", s)
	}
	regs, missing, err := codex.Registered(out)
	if err != nil || len(missing) != 0 || len(regs) != len(hooks.Events) {
		t.Fatalf("Registered: %d %v %v", len(regs), missing, err)
	}
	for _, r := range regs {
		if r.Event.Event == "Stop" && (r.Group != 1 || r.Handler != 0) {
			t.Errorf("Stop at %d:%d", r.Group, r.Handler)
		}
	}
	if _, changed, _ := codex.Install(out); changed {
		t.Error("second Install changed it")
	}
	back, changed, err := codex.Uninstall(out)
	if err != nil || !changed || !sameValue(t, back, user) {
		t.Fatalf("Uninstall = %v, %v:\n%s", changed, err, back)
	}
	if _, changed, _ := codex.Uninstall(back); changed {
		t.Error("second Uninstall changed it")
	}
}

// An older cairn's handler (another command, a stale event, a handler of
// cairn's in a group of the project's) is replaced by the current one; the
// project's handler in that group stays.
func TestInstallReplacesAnOlderCairns(t *testing.T) {
	old := `{"hooks":{
		"Stop":[{"hooks":[{"type":"command","command":".cairn/hook --agent codex Stop","timeout":30},{"type":"command","command":"./mine.sh"}]}],
		"PreCompact":[{"hooks":[{"type":"command","command":".cairn/hook --agent codex PreCompact"}]}]}}`
	out, changed, err := codex.Install([]byte(old))
	if err != nil || !changed {
		t.Fatal(changed, err)
	}
	s := string(out)
	if strings.Contains(s, "PreCompact") || strings.Contains(s, `"timeout": 30`) || !strings.Contains(s, "./mine.sh") {
		t.Errorf("older cairn's hooks not replaced:\n%s", s)
	}
	if n := strings.Count(s, "--agent codex Stop"); n != 1 {
		t.Errorf("%d Stop handlers of cairn's:\n%s", n, s)
	}
}

func TestUninstallOwnFileLeavesNothing(t *testing.T) {
	out, _, _ := codex.Install(nil)
	back, changed, err := codex.Uninstall(out)
	if err != nil || !changed || back != nil {
		t.Fatalf("Uninstall = %q, %v, %v", back, changed, err)
	}
}

func TestInstallRefusesWhatItCannotEdit(t *testing.T) {
	for _, bad := range []string{`[]`, `{"hooks":[]}`, `{"hooks":{"Stop":{}}}`, `{"a":1} {}`, `{`} {
		if _, _, err := codex.Install([]byte(bad)); err == nil {
			t.Errorf("Install(%s) accepted", bad)
		}
		if _, _, err := codex.Uninstall([]byte(bad)); err == nil {
			t.Errorf("Uninstall(%s) accepted", bad)
		}
	}
}

// countHandlers counts the handlers of a hooks.json, cairn's and the
// project's, reading keys exactly as Codex does.
func countHandlers(data []byte) (ours, theirs int) {
	var f map[string]any
	if json.Unmarshal(data, &f) != nil {
		return -1, -1
	}
	events, _ := f["hooks"].(map[string]any)
	for _, groups := range events {
		gs, _ := groups.([]any)
		for _, g := range gs {
			gm, _ := g.(map[string]any)
			hs, _ := gm["hooks"].([]any)
			for _, h := range hs {
				hm, _ := h.(map[string]any)
				if c, ok := hm["command"].(string); ok && strings.Contains(c, launcher.Path) {
					ours++
				} else {
					theirs++
				}
			}
		}
	}
	return ours, theirs
}

// Whatever the file: Install is idempotent and registers every event;
// Uninstall leaves no handler of cairn's; neither touches the project's.
func FuzzHooksJSON(f *testing.F) {
	f.Add(readTestdata(f, "hooksjson/user.json"))
	own, _, _ := codex.Install(nil)
	f.Add(own)
	f.Add([]byte(`{"hooks":{"Stop":[{"matcher":"x","hooks":[{"type":"command","command":".cairn/hook"},{"command":1}]}]}}`))
	f.Add([]byte(`{"hooks":{"Stop":[{"HOOKS":[{"command":".cairn/hook"}]}]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		out, _, err := codex.Install(data)
		if err != nil {
			return
		}
		if !json.Valid(out) {
			t.Fatalf("Install wrote invalid JSON:\n%s", out)
		}
		again, changed, err := codex.Install(out)
		if err != nil || changed || string(again) != string(out) {
			t.Fatalf("Install not idempotent: %v %v\n%s\n%s", changed, err, out, again)
		}
		if _, missing, err := codex.Registered(out); err != nil || len(missing) > 0 {
			t.Fatalf("Registered after Install: %v %v", missing, err)
		}
		_, before := countHandlers(data)
		_, after := countHandlers(out)
		back, _, err := codex.Uninstall(out)
		if err != nil {
			t.Fatalf("Uninstall of Install's output: %v", err)
		}
		ours, left := countHandlers(back)
		if back == nil {
			ours, left = 0, 0
		}
		if before >= 0 && (after != before || left != before || ours != 0) {
			t.Fatalf("handlers: project's %d, after Install %d, after Uninstall %d (cairn's %d)\n%s\n%s", before, after, left, ours, out, back)
		}
	})
}

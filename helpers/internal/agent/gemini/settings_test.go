package gemini

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/agent/gemini/hooks"
	"github.com/cairn-dev/cairn/helpers/internal/agent/jsonc"
)

// decoded is settings text as Gemini CLI reads it: comments stripped,
// parsed.
func decoded(t testing.TB, data []byte) map[string]any {
	t.Helper()
	var v map[string]any
	std, err := jsonc.Standard(data)
	if err != nil {
		t.Fatalf("%v:\n%s", err, data)
	}
	if err := json.Unmarshal(std, &v); err != nil {
		t.Fatalf("%v:\n%s", err, data)
	}
	return v
}

// cairnGroups are cairn's hook definitions, by the name cairn is run with
// (the event's, or the table's As), as Gemini CLI reads them; an event's
// definition is under the name of its last handler's command.
func cairnGroups(t testing.TB, data []byte) map[string][]any {
	out := map[string][]any{}
	hs, _ := decoded(t, data)["hooks"].(map[string]any)
	for ev, groups := range hs {
		list, _ := groups.([]any)
		for _, g := range list {
			text := mustJSON(g)
			if !strings.Contains(text, marker) {
				continue
			}
			name := ev
			for _, h := range hooks.Events {
				if h.Source() == ev && strings.Contains(text, "--agent gemini "+h.Event+`"`) {
					name = h.Event
				}
			}
			out[name] = append(out[name], g)
		}
	}
	return out
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestProjectFresh(t *testing.T) {
	for _, in := range []string{"", "  \n", "{}", "{}\n", "// team settings\n{}\n"} {
		out, changed, err := projectSettings([]byte(in))
		if err != nil || !changed {
			t.Fatalf("Project(%q): %v %v", in, changed, err)
		}
		groups := cairnGroups(t, out)
		if len(groups) != len(hooks.Events) {
			t.Errorf("Project(%q): %d events wired\n%s", in, len(groups), out)
		}
		for _, h := range hooks.Events {
			want := `[{"hooks":[{"command":"$GEMINI_PROJECT_DIR/.cairn/hook --agent gemini ` + h.Event + `","timeout":` + itoa(h.Timeout) + `,"type":"command"}]`
			if h.Matcher != "" {
				want += `,"matcher":"` + h.Matcher + `"`
			}
			if got := mustJSON(groups[h.Event]); got != want+"}]" {
				t.Errorf("%s: %s\nwant %s}]", h.Event, got, want)
			}
		}
		if missing, err := wired(out); err != nil || len(missing) > 0 {
			t.Errorf("Wired: %v %v", missing, err)
		}
		again, changed, err := projectSettings(out)
		if err != nil || changed || string(again) != string(out) {
			t.Errorf("Project is not idempotent: %v %v\n%s", changed, err, again)
		}
		if strings.Contains(in, "//") && !strings.Contains(string(out), "// team settings") {
			t.Errorf("the comment went:\n%s", out)
		}
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// The user's settings file: comments, tabs, other keys, the user's own
// hooks on the same events and others. Project adds cairn's and touches
// nothing else; Uninstall gives back the very same text.
func TestProjectKeepsTheUsersFile(t *testing.T) {
	const user = "{\n" +
		"\t// the team's model\n" +
		"\t\"model\": {\"name\": \"gemini-2.5-pro\"},\n" +
		"\t\"hooks\": {\n" +
		"\t\t\"AfterTool\": [\n" +
		"\t\t\t/* lint what the agent writes */\n" +
		"\t\t\t{\"matcher\": \"write_file\", \"hooks\": [{\"type\": \"command\", \"command\": \"./lint.sh\"}]}\n" +
		"\t\t],\n" +
		"\t\t\"Notification\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"notify-send hi\"}]}]\n" +
		"\t},\n" +
		"\t\"ui\": {\"theme\": \"GitHub\"} // trailing comment\n" +
		"}\n"
	out, changed, err := projectSettings([]byte(user))
	if err != nil || !changed {
		t.Fatal(changed, err)
	}
	for _, keep := range []string{"// the team's model", "/* lint what the agent writes */", "// trailing comment", "./lint.sh", "notify-send hi", `"theme": "GitHub"`} {
		if !strings.Contains(string(out), keep) {
			t.Errorf("lost %q:\n%s", keep, out)
		}
	}
	if !strings.Contains(string(out), "\n\t\t\"SessionStart\": [\n\t\t\t{\n\t\t\t\t\"hooks\": [") {
		t.Errorf("not indented as the file is:\n%s", out)
	}
	if len(cairnGroups(t, out)) != len(hooks.Events) {
		t.Errorf("not every event wired:\n%s", out)
	}
	d := decoded(t, out)
	if got := mustJSON(d["hooks"].(map[string]any)["AfterTool"].([]any)[0]); !strings.Contains(got, "./lint.sh") {
		t.Errorf("the user's AfterTool hook is not first: %s", got)
	}
	back, changed, err := uninstall(out)
	if err != nil || !changed || string(back) != user {
		t.Errorf("Uninstall(Project(user)) = %v %v\n%s\nwant\n%s", changed, err, back, user)
	}
	if again, changed, _ := uninstall([]byte(user)); changed || string(again) != user {
		t.Errorf("Uninstall without cairn's hooks changed it")
	}
}

// Stale wiring (an older command, another timeout, a handler twice, one in
// a group of the user's) is replaced by exactly the current one.
func TestProjectRepairs(t *testing.T) {
	const stale = `{"hooks": {
  "SessionStart": [{"hooks": [{"type": "command", "command": "$GEMINI_PROJECT_DIR/.cairn/hook --agent gemini SessionStart", "timeout": 5}]}],
  "AfterAgent": [
    {"hooks": [{"type": "command", "command": "./mine.sh"}, {"type": "command", "command": "$GEMINI_PROJECT_DIR/.cairn/hook --agent gemini AfterAgent"}]},
    {"hooks": [{"type": "command", "command": "/old/place/.cairn/hook --agent gemini AfterAgent"}]}
  ]
}}`
	out, changed, err := projectSettings([]byte(stale))
	if err != nil || !changed {
		t.Fatal(changed, err)
	}
	groups := cairnGroups(t, out)
	for _, h := range hooks.Events {
		if n := len(groups[h.Event]); n != 1 {
			t.Errorf("%s: %d definitions of cairn's\n%s", h.Event, n, out)
		}
	}
	if !strings.Contains(string(out), `{"hooks": [{"type": "command", "command": "./mine.sh"}]}`) || strings.Contains(string(out), "/old/place") || strings.Contains(string(out), `"timeout": 5}`) {
		t.Errorf("repaired:\n%s", out)
	}
	if _, changed, _ := projectSettings(out); changed {
		t.Error("not idempotent after a repair")
	}
}

func TestSettingsErrors(t *testing.T) {
	for _, bad := range []string{
		`{"hooks": }`, `{"a": 1,}`, `[1]`, `{"hooks": []}`, `{"hooks": {"AfterAgent": {}}}`, "\ufeff{}", `{"a": 1} {}`, `{"a": tru}`, `{"a": "x` + "\n",
	} {
		if _, _, err := projectSettings([]byte(bad)); err == nil {
			t.Errorf("Project(%q) did not fail", bad)
		}
	}
	for _, bad := range []string{`{"hooks": }`, `[]`} {
		if _, _, err := uninstall([]byte(bad)); err == nil {
			t.Errorf("Uninstall(%q) did not fail", bad)
		}
		if _, err := wired([]byte(bad)); err == nil {
			t.Errorf("Wired(%q) did not fail", bad)
		}
	}
}

func TestDisabledAndHasCairn(t *testing.T) {
	if !disabled([]byte(`{"hooksConfig": {"enabled": false}}`)) || disabled([]byte(`{"hooksConfig": {"enabled": true}}`)) || disabled(nil) {
		t.Error("Disabled")
	}
	out, _, _ := projectSettings(nil)
	if !hasCairn(out) || hasCairn([]byte(`{"hooks":{"AfterAgent":[{"hooks":[{"type":"command","command":".cairn/hook AfterAgent"}]}]}}`)) {
		t.Error("HasCairn")
	}
}

// normalized is settings as Gemini CLI reads them, without hooks objects
// or event lists that are empty (cairn's removal cannot tell one that was
// there before from one it emptied).
func normalized(t testing.TB, data []byte) map[string]any {
	v := decoded(t, data)
	if hs, ok := v["hooks"].(map[string]any); ok {
		for ev, groups := range hs {
			if list, ok := groups.([]any); ok && len(list) == 0 {
				delete(hs, ev)
			}
		}
		if len(hs) == 0 {
			delete(v, "hooks")
		}
	}
	return v
}

func FuzzSettings(f *testing.F) {
	for _, s := range []string{
		"", "{}", "// c\n{\"model\": {\"name\": \"x\"}}",
		"{\n  \"hooks\": {\n    \"AfterAgent\": [\n      {\"hooks\": [{\"type\": \"command\", \"command\": \"./x\"}]}\n    ]\n  }\n}\n",
		"{\"hooks\": {\"SessionStart\": [], \"BeforeAgent\": [/* x */]}, \"z\": [1, 2]}",
		"{\"a\":1,\"hooks\":{\"AfterTool\":[{\"matcher\":\"x\",\"hooks\":[{\"type\":\"command\",\"command\":\"$GEMINI_PROJECT_DIR/.cairn/hook --agent gemini AfterTool\"},{\"type\":\"command\",\"command\":\"y\"}]}]}}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		out, _, err := projectSettings(data)
		if err != nil {
			return // not settings cairn can edit: refused
		}
		if missing, err := wired(out); err != nil || len(missing) > 0 {
			t.Fatalf("Project left %v unwired (%v):\n%s", missing, err, out)
		}
		if again, changed, err := projectSettings(out); err != nil || changed || string(again) != string(out) {
			t.Fatalf("Project is not idempotent (%v %v):\n%s\n---\n%s", changed, err, out, again)
		}
		back, _, err := uninstall(out)
		if err != nil || hasCairn(back) {
			t.Fatalf("Uninstall (%v) left cairn's hooks:\n%s", err, back)
		}
		if _, err := parseSettings(back); err != nil {
			t.Fatalf("Uninstall broke the file: %v\n%s", err, back)
		}
		if !hasCairn(data) {
			if len(strings.TrimSpace(string(data))) == 0 {
				data = []byte("{}")
			}
			if got, want := normalized(t, back), normalized(t, data); !reflect.DeepEqual(got, want) {
				t.Fatalf("Uninstall(Project(x)) = %v, want %v\n%s", got, want, back)
			}
		}
	})
}

package claude_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/agent/claude"
)

const wrapper = "/home/dev/.claude/plugins/data/cairn/scripts/cairn-hook"

// member is one top-level key of a JSON object and its value's exact bytes
// and position.
type member struct {
	key        string
	raw        string
	start, end int
}

// members lists the top-level members of a JSON object in order.
func members(t *testing.T, data []byte) []member {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("not a JSON object (%v): %s", err, data)
	}
	var out []member
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatalf("bad JSON: %v: %s", err, data)
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			t.Fatalf("bad JSON: %v: %s", err, data)
		}
		end := int(dec.InputOffset())
		out = append(out, member{key: tok.(string), raw: string(raw), start: end - len(raw), end: end})
	}
	if _, err := dec.Token(); err != nil {
		t.Fatalf("bad JSON: %v: %s", err, data)
	}
	if _, err := dec.Token(); err != io.EOF {
		t.Fatalf("trailing data after the object: %s", data)
	}
	return out
}

func find(ms []member, key string) (member, bool) {
	for _, m := range ms {
		if m.key == key {
			return m, true
		}
	}
	return member{}, false
}

// handler and group mirror Claude Code's settings shape.
type handler struct {
	Type    string `json:"type"`
	Command string `json:"command"`
	Timeout int    `json:"timeout"`
}

type group struct {
	Matcher *string   `json:"matcher"`
	Hooks   []handler `json:"hooks"`
}

func hooksOf(t *testing.T, data []byte) map[string][]group {
	t.Helper()
	var s struct {
		Hooks map[string][]group `json:"hooks"`
	}
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatalf("invalid JSON: %v: %s", err, data)
	}
	return s.Hooks
}

// rawGroups returns the exact bytes of each group of an event.
func rawGroups(t *testing.T, data []byte, event string) []string {
	t.Helper()
	var s struct {
		Hooks map[string][]json.RawMessage `json:"hooks"`
	}
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatalf("invalid JSON: %v: %s", err, data)
	}
	var out []string
	for _, g := range s.Hooks[event] {
		out = append(out, string(g))
	}
	return out
}

// checkInstalled asserts that data has exactly one cairn group per event
// of claude.Events, with the right command, matcher and timeout.
func checkInstalled(t *testing.T, data []byte, wrapper string) {
	t.Helper()
	hooks := hooksOf(t, data)
	for _, h := range claude.Events {
		var mine []group
		for _, g := range hooks[h.Event] {
			for _, hd := range g.Hooks {
				if strings.Contains(hd.Command, claude.Marker) {
					mine = append(mine, g)
					break
				}
			}
		}
		if len(mine) != 1 {
			t.Errorf("%s: %d cairn groups, want 1: %s", h.Event, len(mine), data)
			continue
		}
		g := mine[0]
		if len(g.Hooks) != 1 {
			t.Errorf("%s: cairn group has %d handlers", h.Event, len(g.Hooks))
			continue
		}
		want := handler{Type: "command", Command: shellQuote(wrapper) + " " + h.Event, Timeout: h.Timeout}
		if g.Hooks[0] != want {
			t.Errorf("%s: handler %+v, want %+v", h.Event, g.Hooks[0], want)
		}
		switch {
		case h.Matcher == "" && g.Matcher != nil:
			t.Errorf("%s: matcher %q, want none", h.Event, *g.Matcher)
		case h.Matcher != "" && (g.Matcher == nil || *g.Matcher != h.Matcher):
			t.Errorf("%s: matcher %v, want %q", h.Event, g.Matcher, h.Matcher)
		}
	}
}

// shellQuote is the POSIX single-quoting the package must produce.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func TestHooksList(t *testing.T) {
	want := map[string]string{"SessionStart": "", "UserPromptSubmit": "", "PostToolUse": "Bash", "PostToolUseFailure": "Bash", "Stop": "", "SubagentStop": "", "PreCompact": "", "SessionEnd": "", "PreToolUse": "Read|Edit|Write|MultiEdit|NotebookEdit|Grep|Glob|Bash"}
	if len(claude.Events) != len(want) {
		t.Fatalf("Hooks has %d events, want %d", len(claude.Events), len(want))
	}
	for _, h := range claude.Events {
		m, ok := want[h.Event]
		if !ok || m != h.Matcher || h.Timeout <= 0 {
			t.Errorf("unexpected hook %+v", h)
		}
	}
}

func TestInstallEmpty(t *testing.T) {
	for _, in := range []string{"", "  \n", "{}", "{}\n", "{\n}\n", " { } "} {
		var data []byte
		if in != "" {
			data = []byte(in)
		}
		out, changed, err := claude.Install(data, wrapper)
		if err != nil || !changed {
			t.Fatalf("Install(%q) = changed %v, err %v", in, changed, err)
		}
		if !json.Valid(out) {
			t.Fatalf("Install(%q) produced invalid JSON: %s", in, out)
		}
		checkInstalled(t, out, wrapper)
		ms := members(t, out)
		if len(ms) != 1 || ms[0].key != "hooks" {
			t.Errorf("Install(%q) has keys %v, want only hooks", in, ms)
		}
	}
}

const otherHooks = `{
  "$schema": "https://json.schemastore.org/claude-code-settings.json",
  "model": "opus",
  "permissions": {
    "allow": ["Bash(go test:*)", "Read(~/.zshrc)"],
    "deny": []
  },
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [
          { "type": "command", "command": "/usr/local/bin/guard --strict", "timeout": 5 }
        ]
      }
    ],
    "Stop": [
      {
        "hooks": [ { "type": "command", "command": "notify-send 'done'" } ]
      }
    ],
    "PostToolUse": [
      { "matcher": "Edit|Write", "hooks": [ { "type": "command", "command": "gofmt -w" } ] }
    ]
  },
  "env": {
    "GOFLAGS": "-mod=mod",
    "HTML": "<b>&amp;</b> \u00e9"
  },
  "statusLine": { "type": "command", "command": "echo hi" }
}
`

// originals are settings files Install then Uninstall must restore byte
// for byte.
var originals = map[string]string{
	"empty object":         "{}",
	"empty object newline": "{}\n",
	// "{\n}\n" comes back as "{}\n": sjson rewrites an object it empties,
	// and Uninstall cannot know the white space inside it was there before.
	"compact other keys":        `{"model":"opus","env":{"A":"1"}}`,
	"pretty other keys":         "{\n  \"model\": \"opus\",\n  \"env\": {\n    \"A\": \"1\"\n  }\n}\n",
	"tabs other keys":           "{\n\t\"model\": \"opus\",\n\t\"cleanupPeriodDays\": 30\n}",
	"other hooks":               otherHooks,
	"hooks first":               `{"hooks":{"Notification":[{"hooks":[{"type":"command","command":"say hi"}]}]},"model":"opus"}`,
	"hooks last, same event":    `{"model":"opus","hooks":{"Stop":[{"hooks":[{"type":"command","command":"notify"}]}]}}`,
	"hooks with all our events": `{"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"a"}]}],"UserPromptSubmit":[{"hooks":[{"type":"command","command":"b"}]}],"PostToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"c"}]}],"PostToolUseFailure":[{"matcher":"*","hooks":[{"type":"command","command":"d"}]}],"Stop":[{"hooks":[{"type":"command","command":"e"}]}],"SubagentStop":[{"hooks":[{"type":"command","command":"f"}]}]}}` + "\n",
	"empty other event":         `{"hooks":{"Notification":[]},"model":"opus"}`,
	"unicode and escapes":       `{"note":"caf\u00e9 <tag> & \"q\"","emoji":"😀","hooks":{"PreToolUse":[{"hooks":[{"type":"command","command":"x <y> & z"}]}]}, "z": null}`,
}

// emptyContainers hold hooks containers that are empty before cairn
// touches them. After Install they look exactly like containers cairn
// created, so Uninstall removes them (as documented): only everything
// else is required back.
var emptyContainers = map[string]string{
	"empty hooks object":    `{"model":"opus","hooks":{}}`,
	"empty array our event": "{\n  \"hooks\": {\n    \"Stop\": []\n  },\n  \"model\": \"opus\"\n}\n",
}

func TestInstallPreservesEverythingElse(t *testing.T) {
	for name, orig := range originals {
		t.Run(name, func(t *testing.T) {
			data := []byte(orig)
			out, changed, err := claude.Install(data, wrapper)
			if err != nil || !changed {
				t.Fatalf("Install = changed %v, err %v", changed, err)
			}
			if string(data) != orig {
				t.Fatalf("Install modified its input")
			}
			checkInstalled(t, out, wrapper)
			before, after := members(t, data), members(t, out)
			if hb, ok := find(before, "hooks"); ok {
				// Everything outside the hooks value is unchanged, byte for byte.
				ha, _ := find(after, "hooks")
				if orig[:hb.start] != string(out[:ha.start]) {
					t.Errorf("bytes before hooks changed:\n%q\n%q", orig[:hb.start], out[:ha.start])
				}
				if orig[hb.end:] != string(out[ha.end:]) {
					t.Errorf("bytes after hooks changed:\n%q\n%q", orig[hb.end:], out[ha.end:])
				}
			} else {
				// The new member goes at the end: the original up to its
				// closing brace is a prefix, and what follows the brace
				// (a final newline) is kept.
				last := strings.LastIndexByte(orig, '}')
				if !strings.HasPrefix(string(out), strings.TrimRight(orig[:last], " \t\r\n")) {
					t.Errorf("original not kept as a prefix:\norig %q\nout  %q", orig, out)
				}
				if !strings.HasSuffix(string(out), orig[last:]) {
					t.Errorf("end of file changed: original ends %q, result ends %q", orig[last:], out[max(0, len(out)-len(orig[last:])-10):])
				}
				var rest []member
				for _, m := range after {
					if m.key != "hooks" {
						rest = append(rest, m)
					}
				}
				if len(rest) != len(before) {
					t.Fatalf("members %v, want %v plus hooks", after, before)
				}
				for i := range before {
					if rest[i].key != before[i].key || rest[i].raw != before[i].raw {
						t.Errorf("member %d: %s=%s, want %s=%s", i, rest[i].key, rest[i].raw, before[i].key, before[i].raw)
					}
				}
			}
			// Other people's hooks stay, byte for byte, and first.
			var origHooks map[string][]json.RawMessage
			if hb, ok := find(before, "hooks"); ok {
				if err := json.Unmarshal([]byte(hb.raw), &origHooks); err != nil {
					t.Fatal(err)
				}
			}
			for event, groups := range origHooks {
				got := rawGroups(t, out, event)
				if len(got) < len(groups) {
					t.Errorf("%s: %d groups, want at least %d", event, len(got), len(groups))
					continue
				}
				for i, g := range groups {
					if got[i] != string(g) {
						t.Errorf("%s group %d changed:\n%s\n%s", event, i, g, got[i])
					}
				}
			}
			// Other events are not touched at all.
			ha, _ := find(after, "hooks")
			var outHooks map[string]json.RawMessage
			if err := json.Unmarshal([]byte(ha.raw), &outHooks); err != nil {
				t.Fatal(err)
			}
			ours := map[string]bool{}
			for _, h := range claude.Events {
				ours[h.Event] = true
			}
			if hb, ok := find(before, "hooks"); ok {
				var inHooks map[string]json.RawMessage
				if err := json.Unmarshal([]byte(hb.raw), &inHooks); err != nil {
					t.Fatal(err)
				}
				for event, raw := range inHooks {
					if !ours[event] && string(outHooks[event]) != string(raw) {
						t.Errorf("event %s changed:\n%s\n%s", event, raw, outHooks[event])
					}
				}
			}
		})
	}
}

func TestInstallIdempotent(t *testing.T) {
	for name, orig := range originals {
		once, _, err := claude.Install([]byte(orig), wrapper)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		twice, changed, err := claude.Install(once, wrapper)
		if err != nil || changed || !bytes.Equal(once, twice) {
			t.Errorf("%s: second Install = changed %v, err %v, same bytes %v", name, changed, err, bytes.Equal(once, twice))
		}
		// Another wrapper path (a moved plugin) is still cairn's.
		other, changed, err := claude.Install(once, "/elsewhere/cairn-hook")
		if err != nil || changed || !bytes.Equal(once, other) {
			t.Errorf("%s: Install with another wrapper = changed %v, err %v", name, changed, err)
		}
	}
}

func TestInstallCompletesPartial(t *testing.T) {
	// Only SessionStart is there: the others are added, it is not duplicated.
	in := `{"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"'/x/cairn-hook' SessionStart","timeout":120}]}]}}`
	out, changed, err := claude.Install([]byte(in), wrapper)
	if err != nil || !changed {
		t.Fatalf("Install = changed %v, err %v", changed, err)
	}
	if got := rawGroups(t, out, "SessionStart"); len(got) != 1 {
		t.Errorf("SessionStart has %d groups, want 1: %s", len(got), out)
	}
	for _, h := range claude.Events[1:] {
		if got := rawGroups(t, out, h.Event); len(got) != 1 {
			t.Errorf("%s has %d groups, want 1", h.Event, len(got))
		}
	}
}

func TestInstallUninstallRestores(t *testing.T) {
	run := func(t *testing.T, cases map[string]string) {
		for name, orig := range cases {
			t.Run(name, func(t *testing.T) {
				installed, changed, err := claude.Install([]byte(orig), wrapper)
				if err != nil || !changed {
					t.Fatalf("Install = changed %v, err %v", changed, err)
				}
				back, changed, err := claude.Uninstall(installed)
				if err != nil || !changed {
					t.Fatalf("Uninstall = changed %v, err %v", changed, err)
				}
				if string(back) != orig {
					t.Errorf("Install then Uninstall did not restore the original:\norig %q\nback %q", orig, back)
				}
				again, changed, err := claude.Uninstall(back)
				if err != nil || changed || !bytes.Equal(again, back) {
					t.Errorf("second Uninstall = changed %v, err %v, same %v", changed, err, bytes.Equal(again, back))
				}
			})
		}
	}
	run(t, originals)
}

func TestInstallUninstallEmptyContainers(t *testing.T) {
	for name, orig := range emptyContainers {
		installed, _, err := claude.Install([]byte(orig), wrapper)
		if err != nil {
			t.Fatalf("%s: Install: %v", name, err)
		}
		back, changed, err := claude.Uninstall(installed)
		if err != nil || !changed {
			t.Fatalf("%s: Uninstall = changed %v, err %v", name, changed, err)
		}
		if bytes.Contains(back, []byte(claude.Marker)) {
			t.Errorf("%s: cairn hook left: %s", name, back)
		}
		var rest []member
		for _, m := range members(t, []byte(orig)) {
			if m.key != "hooks" {
				rest = append(rest, m)
			}
		}
		got := members(t, back)
		if len(got) != len(rest) {
			t.Errorf("%s: %d members left, want %d: %s", name, len(got), len(rest), back)
			continue
		}
		for i := range got {
			if got[i].key != rest[i].key || got[i].raw != rest[i].raw {
				t.Errorf("%s: member %s=%s, want %s=%s", name, got[i].key, got[i].raw, rest[i].key, rest[i].raw)
			}
		}
		if strings.HasSuffix(string(back), "}\n") != strings.HasSuffix(orig, "}\n") {
			t.Errorf("%s: final newline not kept: %q", name, back)
		}
	}
}

func TestUninstallWithoutCairn(t *testing.T) {
	for name, orig := range originals {
		out, changed, err := claude.Uninstall([]byte(orig))
		if err != nil || changed || string(out) != orig {
			t.Errorf("%s: Uninstall without cairn hooks = changed %v, err %v, same %v", name, changed, err, string(out) == orig)
		}
	}
	for name, orig := range emptyContainers {
		out, changed, err := claude.Uninstall([]byte(orig))
		if err != nil || changed || string(out) != orig {
			t.Errorf("%s: Uninstall without cairn hooks = changed %v, err %v, same %v", name, changed, err, string(out) == orig)
		}
	}
}

func TestUninstallKeepsOthersHooks(t *testing.T) {
	in := `{"hooks":{
  "Stop": [
    {"hooks":[{"type":"command","command":"notify-send before"}]},
    {"hooks":[{"type":"command","command":"'/p/scripts/cairn-hook' Stop","timeout":10}]},
    {"hooks":[{"type":"command","command":"notify-send after"}]}
  ],
  "PostToolUse": [
    {"matcher":"Bash","hooks":[{"type":"command","command":"'/p/scripts/cairn-hook' PostToolUse","timeout":10}]},
    {"matcher":"Bash","hooks":[{"type":"command","command":"audit-bash"}]}
  ],
  "SessionStart": [
    {"hooks":[{"type":"command","command":"'/p/scripts/cairn-hook' SessionStart"}]}
  ]
}}`
	out, changed, err := claude.Uninstall([]byte(in))
	if err != nil || !changed {
		t.Fatalf("Uninstall = changed %v, err %v", changed, err)
	}
	if bytes.Contains(out, []byte(claude.Marker)) {
		t.Errorf("cairn hook left: %s", out)
	}
	hooks := hooksOf(t, out)
	var cmds []string
	for _, ev := range []string{"Stop", "PostToolUse", "SessionStart"} {
		for _, g := range hooks[ev] {
			for _, h := range g.Hooks {
				cmds = append(cmds, ev+":"+h.Command)
			}
		}
	}
	want := []string{"Stop:notify-send before", "Stop:notify-send after", "PostToolUse:audit-bash"}
	if fmt.Sprint(cmds) != fmt.Sprint(want) {
		t.Errorf("hooks left %q, want %q\n%s", cmds, want, out)
	}
	if _, ok := hooks["SessionStart"]; ok {
		t.Errorf("SessionStart left although cairn's was its only group: %s", out)
	}
}

// TestUninstallMixedGroup: a group holding someone's handler next to
// cairn's loses only cairn's handler.
func TestUninstallMixedGroup(t *testing.T) {
	in := `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"notify-send done"},{"type":"command","command":"'/p/cairn-hook' Stop"}]}]}}`
	out, _, err := claude.Uninstall([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(out, []byte("notify-send done")) {
		t.Errorf("someone else's handler removed with cairn's: %s", out)
	}
	if bytes.Contains(out, []byte(claude.Marker)) {
		t.Errorf("cairn's handler left: %s", out)
	}
}

func TestInvalidJSON(t *testing.T) {
	for _, in := range []string{`{"model":`, `{"a":1}}`, "not json", `{"hooks":[]}`, `{"hooks":{"Stop":{}}}`, `[1,2]`, `{"a":1,}`} {
		data := []byte(in)
		out, changed, err := claude.Install(data, wrapper)
		if err == nil || changed || out != nil {
			t.Errorf("Install(%q) = %q, changed %v, err %v; want an error", in, out, changed, err)
		}
		if string(data) != in {
			t.Errorf("Install(%q) modified its input to %q", in, data)
		}
		if !strings.Contains(in, `"hooks"`) {
			// Only files that do not parse; a hooks value of the wrong
			// shape is not something Uninstall must refuse.
			out, changed, err = claude.Uninstall(data)
			if err == nil || changed || out != nil {
				t.Errorf("Uninstall(%q) = %q, changed %v, err %v; want an error", in, out, changed, err)
			}
			if string(data) != in {
				t.Errorf("Uninstall(%q) modified its input to %q", in, data)
			}
		}
	}
}

// splitShell splits a command the way sh does for the subset used here:
// words separated by spaces, single-quoted strings, and backslash escapes
// outside quotes.
func splitShell(t *testing.T, s string) []string {
	t.Helper()
	var words []string
	var cur strings.Builder
	inWord, quoted := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quoted:
			if c == '\'' {
				quoted = false
			} else {
				cur.WriteByte(c)
			}
		case c == '\'':
			quoted, inWord = true, true
		case c == '\\':
			if i+1 == len(s) {
				t.Fatalf("trailing backslash in %q", s)
			}
			i++
			cur.WriteByte(s[i])
			inWord = true
		case c == ' ':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case strings.ContainsRune("\"$`;&|<>()*?[#~\t\n", rune(c)):
			t.Fatalf("unquoted shell metacharacter %q in %q", c, s)
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if quoted {
		t.Fatalf("unterminated quote in %q", s)
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words
}

func TestShellQuoting(t *testing.T) {
	for _, w := range []string{
		"/home/o'brien/my plugins/cairn-hook",
		"/tmp/a b/''/cairn-hook",
		`/tmp/$HOME;rm -rf "x"/\n/cairn-hook`,
		"/plain/cairn-hook",
	} {
		out, _, err := claude.Install(nil, w)
		if err != nil {
			t.Fatal(err)
		}
		for _, g := range hooksOf(t, out)["SessionStart"] {
			for _, h := range g.Hooks {
				words := splitShell(t, h.Command)
				if len(words) != 2 || words[0] != w || words[1] != "SessionStart" {
					t.Errorf("command %q splits to %q, want [%q SessionStart]", h.Command, words, w)
				}
			}
		}
	}
	out, _, err := claude.Install(nil, "/home/o'brien/my plugins/cairn-hook")
	if err != nil {
		t.Fatal(err)
	}
	want := `'/home/o'\''brien/my plugins/cairn-hook' Stop`
	if got := hooksOf(t, out)["Stop"][0].Hooks[0].Command; got != want {
		t.Errorf("Stop command = %q, want %q", got, want)
	}
}

// Whatever settings file cairn accepts, the project wiring it writes is
// complete and stable, and removing it leaves the file as it was, as
// Claude Code reads it (an event or hooks object left empty goes too).
func FuzzSettings(f *testing.F) {
	for _, s := range []string{
		"", "{}", `{"model": "x"}`, "{\n  \"hooks\": {\n    \"Stop\": [\n      {\"hooks\": [{\"type\": \"command\", \"command\": \"./x\"}]}\n    ]\n  }\n}\n",
		`{"hooks": null}`, `{"hooks": {"Stop": null, "PreCompact": []}, "z": [1, 2]}`,
		`{"a":1,"hooks":{"PostToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"\"$CLAUDE_PROJECT_DIR\"/.cairn/hook PostToolUse"},{"type":"command","command":"y"}]}]}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		out, _, err := claude.Project(data)
		if err != nil {
			return // not settings cairn can edit: refused
		}
		if missing, err := claude.Wired(out); err != nil || len(missing) > 0 {
			t.Fatalf("Project left %v unwired (%v):\n%s", missing, err, out)
		}
		if again, changed, err := claude.Project(out); err != nil || changed || string(again) != string(out) {
			t.Fatalf("Project is not idempotent (%v %v):\n%s\n---\n%s", changed, err, out, again)
		}
		back, _, err := claude.Uninstall(out)
		if err != nil {
			t.Fatalf("Uninstall: %v\n%s", err, out)
		}
		if missing, err := claude.Wired(back); err != nil || len(missing) != len(claude.Events) {
			t.Fatalf("Uninstall left cairn's hooks (%v):\n%s", err, back)
		}
		var before, after map[string]any
		if json.Unmarshal(data, &before) != nil || strings.Contains(string(data), "cairn") || strings.Contains(string(data), `\`) {
			return // cairn's own hooks were there, or escapes that spell them
		}
		if err := json.Unmarshal(back, &after); err != nil {
			t.Fatalf("Uninstall broke the file: %v\n%s", err, back)
		}
		for _, m := range []map[string]any{before, after} {
			if hs, ok := m["hooks"].(map[string]any); ok {
				for ev, groups := range hs {
					if list, ok := groups.([]any); ok && len(list) == 0 || groups == nil {
						delete(hs, ev)
					}
				}
				if len(hs) == 0 {
					delete(m, "hooks")
				}
			} else if m["hooks"] == nil {
				delete(m, "hooks")
			}
		}
		if !reflect.DeepEqual(before, after) {
			t.Fatalf("Uninstall(Project(x)) = %v, want %v\n%s", after, before, back)
		}
	})
}

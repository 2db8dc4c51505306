package codex_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/agent/codex"
	"github.com/cairn-dev/cairn/helpers/internal/agent/launcher"
	"github.com/cairn-dev/cairn/helpers/internal/fsx"
)

// The hashes Codex 0.169.0 itself wrote to config.toml when a person
// chose "Trust all and continue" for these hooks (a project's
// .codex/hooks.json, timeouts 10; SessionEnd's is clamped to 3 first).
func TestHashMatchesCodex(t *testing.T) {
	bash := "Bash"
	cases := []struct {
		key     string
		matcher *string
		raw     string
		want    string
	}{
		{"session_start", nil, `{"type":"command","command":"/tmp/cx/h.sh SessionStart","timeout":10}`,
			"sha256:9c9e6389f969e872d0c349e2be21a9fc4e741051d8ba2762fcbe0d88291b39dc"},
		{"user_prompt_submit", nil, `{"type":"command","command":"/tmp/cx/h.sh UserPromptSubmit","timeout":10}`,
			"sha256:f33c5db30961ac0b11cb14316981b5f47d9723630842c72b3a6e9367d6d14ae6"},
		{"post_tool_use", &bash, `{"type":"command","command":"/tmp/cx/h.sh PostToolUse","timeout":10}`,
			"sha256:324f13df215c38082df45260130e9e65cd563005acdab4618fbdb631902e1f10"},
		{"stop", nil, `{"command":"/tmp/cx/h.sh Stop","type":"command","timeout":10,"async":false}`,
			"sha256:835733f46f30f9c946468502540a158b03883d970db61c3164ade665b4c1503b"},
		{"session_end", nil, `{"type":"command","command":"/tmp/cx/h.sh SessionEnd","timeout":10}`,
			"sha256:a980bedeffdd81dd3a2e873df086b46699accfda3ac79ea554054fec990229cc"},
	}
	for _, c := range cases {
		got, ok := codex.Hash(c.key, c.matcher, json.RawMessage(c.raw))
		if !ok || got != c.want {
			t.Errorf("Hash(%s) = %s, %v; want %s", c.key, got, ok, c.want)
		}
	}
	// What changes the definition changes the hash; what Codex does not
	// read does not.
	base, _ := codex.Hash("stop", nil, json.RawMessage(`{"type":"command","command":"x"}`))
	for _, raw := range []string{`{"type":"command","command":"y"}`, `{"type":"command","command":"x","timeout":9}`,
		`{"type":"command","command":"x","additionalContextLimit":0}`, `{"type":"command","command":"x","statusMessage":"s"}`} {
		if h, _ := codex.Hash("stop", nil, json.RawMessage(raw)); h == base {
			t.Errorf("%s hashes as the base", raw)
		}
	}
	if h, _ := codex.Hash("stop", nil, json.RawMessage(`{"type":"command","command":"x","timeout":600,"other":1}`)); h != base {
		t.Error("the default timeout or an unknown key changed the hash")
	}
	for _, raw := range []string{`{"type":"prompt"}`, `{"command":"x"}`, `[]`, `{"type":"command","command":"x","timeout":"1"}`} {
		if _, ok := codex.Hash("stop", nil, json.RawMessage(raw)); ok {
			t.Errorf("Hash(%s) ok", raw)
		}
	}
}

func TestParseUserConfig(t *testing.T) {
	cfg := codex.ParseUserConfig(`# a person's config
model = "o3" # trailing comment
notify = [
  "notify-send",
  "[not a table]",
]
instructions = """
[projects."/fake"]
trust_level = "trusted"
"""

[projects."/home/ana/src/shop"]
trust_level = "trusted"

[projects.'/home/ana/src/lit']
trust_level = 'untrusted'

[[profiles_list]]
trust_level = "ignored"

[hooks.state]

[hooks.state."/home/ana/src/shop/.codex/hooks.json:stop:1:0"]
trusted_hash = "sha256:abc"
enabled = false

[tui]
projects."/dotted".trust_level = "trusted"
"quoted \"key\"\u00e9" = true
`)
	for _, c := range []struct {
		path []string
		want string
		ok   bool
	}{
		{[]string{"model"}, "o3", true},
		{[]string{"projects", "/home/ana/src/shop", "trust_level"}, "trusted", true},
		{[]string{"projects", "/home/ana/src/lit", "trust_level"}, "untrusted", true},
		{[]string{"projects", "/fake", "trust_level"}, "", false},
		{[]string{"hooks", "state", "/home/ana/src/shop/.codex/hooks.json:stop:1:0", "trusted_hash"}, "sha256:abc", true},
		{[]string{"hooks", "state", "/home/ana/src/shop/.codex/hooks.json:stop:1:0", "enabled"}, "false", true},
		{[]string{"tui", "projects", "/dotted", "trust_level"}, "trusted", true},
		{[]string{"tui", `quoted "key"é`}, "true", true},
		{[]string{"profiles_list", "trust_level"}, "", false},
		{[]string{"notify"}, "", false},
	} {
		got, ok := cfg.Value(c.path...)
		if got != c.want || ok != c.ok {
			t.Errorf("Value(%q) = %q, %v; want %q, %v", c.path, got, ok, c.want, c.ok)
		}
	}
}

func FuzzParseUserConfig(f *testing.F) {
	f.Add("[projects.\"/p\"]\ntrust_level = \"trusted\"\n")
	f.Add("a = \"\\u00e9\\U0001F600\\\"\"\nb = '''\nx\n'''\nc = [\n[1],\n]\n[[t]]\nd = true")
	f.Add("[a.\"b\\\"c\".'d']\ne = \"f\" # g\n")
	f.Add("not toml = = =")
	f.Fuzz(func(t *testing.T, data string) {
		codex.ParseUserConfig(data) // never panics
		// A file Codex can read keeps reading so with a table added after
		// it, whose basic string value comes back.
		if !codex.IsTOML(data) || strings.Contains(data, "cairn_fuzz") {
			return
		}
		key := fmt.Sprintf("k%d", len(data))
		cfg := codex.ParseUserConfig(data + "\n[cairn_fuzz]\n" + key + " = \"v\\\"w\"\n")
		if v, ok := cfg.Value("cairn_fuzz", key); (!ok || v != `v"w`) && !strings.HasSuffix(strings.TrimRight(data, " \t"), "\\") {
			t.Fatalf("lost the value after %q: %q %v", data, v, ok)
		}
	})
}

// wired makes a project wired for Codex (hooks.json and the launcher) and
// returns it and its .cairn.
func wired(t *testing.T) (string, fsx.Root) {
	t.Helper()
	project := t.TempDir()
	cairnDir := fsx.NewRoot(filepath.Join(project, ".cairn"))
	if _, err := (codex.Adapter{}).Wire(project, cairnDir); err != nil {
		t.Fatal(err)
	}
	return project, cairnDir
}

// trustAll returns what Codex writes to a person's config.toml when they
// trust the project and every hook of cairn's in it.
func trustAll(t *testing.T, project string) string {
	t.Helper()
	data := readTestdataAbs(t, filepath.Join(project, codex.HooksFile))
	regs, _, err := codex.Registered(data)
	if err != nil {
		t.Fatal(err)
	}
	s := fmt.Sprintf("[projects.%q]\ntrust_level = \"trusted\"\n", project)
	for _, r := range regs {
		h, _ := codex.Hash(codex.EventKey(r.Event.Event), r.Matcher, r.Raw)
		s += fmt.Sprintf("\n[hooks.state.%q]\ntrusted_hash = %q\n", codex.TrustKey(filepath.Join(project, codex.HooksFile), r), h)
	}
	return s
}

func readTestdataAbs(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Doctor's view, step by step: what the project commits, then what Codex
// asks of this person.
func TestCheckWiring(t *testing.T) {
	home := t.TempDir()
	writeCfg := func(s string) {
		if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	check := func(project string, cairnDir fsx.Root, status, detail string) {
		t.Helper()
		w := codex.CheckWiringIn(project, cairnDir, home)
		if w.Status != status || !strings.Contains(w.Detail, detail) {
			t.Errorf("CheckWiring = %+v, want %s with %q", w, status, detail)
		}
		if status == "warn" && !strings.Contains(w.Fix, "Trust") && !strings.Contains(w.Fix, "/hooks") && !strings.Contains(w.Fix, "trust") {
			t.Errorf("the fix does not say how to trust: %q", w.Fix)
		}
	}
	bare := t.TempDir()
	check(bare, fsx.NewRoot(filepath.Join(bare, ".cairn")), "ok", "not wired for Codex")

	project, cairnDir := wired(t)
	check(project, cairnDir, "warn", "until you trust it")
	writeCfg(fmt.Sprintf("[projects.%q]\ntrust_level = \"untrusted\"\n", project))
	check(project, cairnDir, "warn", "you marked it untrusted")
	writeCfg(fmt.Sprintf("[projects.%q]\ntrust_level = \"trusted\"\n", project))
	check(project, cairnDir, "warn", "skips cairn's hooks for SessionStart, UserPromptSubmit, PostToolUse, Stop, SessionEnd, PreToolUse until you trust them")
	all := trustAll(t, project)
	writeCfg(all)
	check(project, cairnDir, "ok", "you trust the project and those hooks")
	writeCfg(strings.Replace(all, "sha256:", "sha256:0", 1))
	check(project, cairnDir, "warn", "changed since you trusted them")
	stop := fmt.Sprintf("[hooks.state.%q]\n", filepath.Join(project, codex.HooksFile)+":stop:0:0")
	writeCfg(strings.Replace(all, stop, stop+"enabled = false\n", 1)) // a table is defined once in TOML
	check(project, cairnDir, "warn", "you turned off cairn's Codex hooks for Stop")
	writeCfg(all)

	// The committed side.
	if err := cairnDir.Chmod("hook", 0o644); err != nil {
		t.Fatal(err)
	}
	check(project, cairnDir, "fail", "not executable")
	if err := cairnDir.Remove("hook"); err != nil {
		t.Fatal(err)
	}
	check(project, cairnDir, "fail", "which is missing")
	if _, err := (codex.Adapter{}).Wire(project, cairnDir); err != nil {
		t.Fatal(err)
	}
	data := readTestdataAbs(t, filepath.Join(project, codex.HooksFile))
	cut := strings.Replace(string(data), "--agent codex Stop", "--agent codex NotStop", 1)
	cut = strings.Replace(cut, launcher.Path+`\" --agent codex NotStop`, `elsewhere\" --agent codex NotStop`, 1)
	if err := os.WriteFile(filepath.Join(project, codex.HooksFile), []byte(cut), 0o644); err != nil {
		t.Fatal(err)
	}
	check(project, cairnDir, "fail", "does not run .cairn/hook for Stop")
	if err := os.WriteFile(filepath.Join(project, codex.HooksFile), []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	check(project, cairnDir, "fail", "hooks.json")
}

// Codex keys its trust records by the event's name in snake case.
func TestEventKey(t *testing.T) {
	for name, want := range map[string]string{
		"SessionStart": "session_start", "UserPromptSubmit": "user_prompt_submit", "PostToolUse": "post_tool_use",
		"Stop": "stop", "SessionEnd": "session_end", "PreToolUse": "pre_tool_use",
	} {
		if got := codex.EventKey(name); got != want {
			t.Errorf("EventKey(%q) = %q, want %q", name, got, want)
		}
	}
}

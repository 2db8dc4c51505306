package claudetest

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/helpers/internal/testharness/clitest"
)

// TestInteractiveTwoTurns types two prompts into the real interactive UI
// and exits with /exit: both answers show, the fake gets one main request
// per turn, and the transcript is an interactive one (a mode record, or
// records of the "cli" entry point).
func TestInteractiveTwoTurns(t *testing.T) {
	bin := FindCLI(t)
	t.Parallel()
	start := time.Now()
	api := StartFakeAPI(t, [][]Block{{Text("FIRST-ANSWER")}, {Text("SECOND-ANSWER")}})
	s := StartInteractive(t, InteractiveOptions{CLI: bin, API: api, Dir: NewGitRepo(t)})

	s.Type("where is the retry loop?")
	s.WaitRequests(1)
	s.WaitScreen("FIRST-ANSWER")
	s.WaitIdle()
	s.Type("and why does it give up after 3 tries?")
	s.WaitRequests(2)
	s.WaitScreen("SECOND-ANSWER")
	s.WaitIdle()
	s.Exit()
	t.Logf("two turns and /exit in %v", time.Since(start).Round(time.Millisecond))

	if c := s.ExitCode(); c != 0 {
		t.Errorf("exit code %d, want 0\n%s", c, s.Screen())
	}
	texts := api.MainRequestTexts()
	if len(texts) != 2 {
		t.Fatalf("%d main requests, want 2", len(texts))
	}
	if !strings.Contains(texts[1], "where is the retry loop?") || !strings.Contains(texts[1], "FIRST-ANSWER") ||
		!strings.Contains(texts[1], "give up after 3 tries") {
		t.Errorf("second request does not carry the conversation: %q", texts[1])
	}

	paths := s.TranscriptPaths()
	if len(paths) != 1 {
		t.Fatalf("transcripts %q, want one", paths)
	}
	b, _ := os.ReadFile(paths[0])
	// An interactive transcript has a mode record or records from the
	// "cli" entry point (under load, a last-prompt record may come first).
	interactive := false
	for _, line := range strings.Split(string(b), "\n") {
		var rec struct {
			Type       string `json:"type"`
			Entrypoint string `json:"entrypoint"`
		}
		if json.Unmarshal([]byte(line), &rec) == nil && (rec.Type == "mode" || rec.Entrypoint == "cli") {
			interactive = true
			break
		}
	}
	if !interactive {
		t.Errorf("transcript is not an interactive one: it begins with %s", firstLine(t, paths[0]))
	}
	for _, want := range []string{"FIRST-ANSWER", "SECOND-ANSWER", "where is the retry loop?"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("transcript lacks %q", want)
		}
	}
}

// firstLine returns the first line of a file.
func firstLine(t *testing.T, path string) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
	sc.Scan()
	return sc.Text()
}

// writeHookLogPlugin creates a plugin whose SessionStart, UserPromptSubmit,
// Stop and SessionEnd hooks append their payloads, one JSON line each, to
// the returned log file.
func writeHookLogPlugin(t *testing.T) (dir, log string) {
	t.Helper()
	dir = t.TempDir()
	log = filepath.Join(t.TempDir(), "hooks.jsonl")
	hook := `[{"hooks": [{"type": "command", "command": "\"${CLAUDE_PLUGIN_ROOT}/hooks/log.sh\""}]}]`
	files := map[string]string{
		".claude-plugin/plugin.json": `{"name": "hooklog", "version": "0.0.1", "description": "claudetest hook log"}`,
		"hooks/hooks.json": `{"hooks": {"SessionStart": ` + hook + `, "UserPromptSubmit": ` + hook +
			`, "Stop": ` + hook + `, "SessionEnd": ` + hook + `}}`,
		"hooks/log.sh": "#!/bin/sh\n{ cat; echo; } >> " + clitest.ShellQuote(log) + "\n",
	}
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir, log
}

// hookPayload is the part of a hook payload the tests look at.
type hookPayload struct {
	Event                string `json:"hook_event_name"`
	Reason               string `json:"reason"`
	LastAssistantMessage string `json:"last_assistant_message"`
}

// readHookLog parses the log of writeHookLogPlugin.
func readHookLog(t *testing.T, log string) []hookPayload {
	t.Helper()
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatalf("hook log: %v", err)
	}
	var out []hookPayload
	for _, line := range strings.Split(string(b), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		var p hookPayload
		if err := json.Unmarshal([]byte(line), &p); err != nil {
			t.Fatalf("hook log line %q: %v", line, err)
		}
		out = append(out, p)
	}
	return out
}

// TestInteractiveSessionEnd finds out which ways of ending an interactive
// session run the plugin's SessionEnd hook: in 2.1.197 all of them do, /exit
// and a double Ctrl-D or Ctrl-C with reason "prompt_input_exit" (exit code
// 0), a hangup (the terminal closed) with "other" (exit code 129); Stop runs
// once per turn, not at exit.
func TestInteractiveSessionEnd(t *testing.T) {
	bin := FindCLI(t)
	for _, tc := range []struct {
		name   string
		end    func(s *Interactive)
		reason string
		code   int
	}{
		{"slash exit", (*Interactive).Exit, "prompt_input_exit", 0},
		{"ctrl-d twice", func(s *Interactive) {
			s.Keys("C-d")
			s.WaitScreen("Press Ctrl-D again to exit")
			s.Keys("C-d")
			s.WaitExit()
		}, "prompt_input_exit", 0},
		{"ctrl-c twice", func(s *Interactive) {
			s.Keys("C-c")
			s.WaitScreen("Press Ctrl-C again to exit")
			s.Keys("C-c")
			s.WaitExit()
		}, "prompt_input_exit", 0},
		{"hangup", (*Interactive).Hangup, "other", 128 + 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			plugin, log := writeHookLogPlugin(t)
			api := StartFakeAPI(t, [][]Block{{Text("THE-ONLY-ANSWER")}})
			s := StartInteractive(t, InteractiveOptions{CLI: bin, API: api, Dir: NewGitRepo(t), PluginDirs: []string{plugin}})
			s.Type("hello")
			s.WaitRequests(1)
			s.WaitScreen("THE-ONLY-ANSWER")
			s.WaitIdle()
			tc.end(s)
			if c := s.ExitCode(); c != tc.code {
				t.Errorf("exit code %d, want %d", c, tc.code)
			}

			var events []string
			var end, stop hookPayload
			for _, p := range readHookLog(t, log) {
				events = append(events, p.Event)
				switch p.Event {
				case "SessionEnd":
					end = p
				case "Stop":
					stop = p
				}
			}
			// SessionStart may finish after the prompt is submitted; Stop
			// comes after the turn, SessionEnd last.
			got := strings.Join(events, ",")
			if len(events) != 4 || events[2] != "Stop" || events[3] != "SessionEnd" ||
				!strings.Contains(got, "SessionStart") || !strings.Contains(got, "UserPromptSubmit") {
				t.Fatalf("hooks ran %s, want SessionStart,UserPromptSubmit,Stop,SessionEnd\n%s", got, s.Screen())
			}
			if end.Reason != tc.reason {
				t.Errorf("SessionEnd reason %q, want %q", end.Reason, tc.reason)
			}
			if stop.LastAssistantMessage != "THE-ONLY-ANSWER" {
				t.Errorf("Stop last_assistant_message %q", stop.LastAssistantMessage)
			}
		})
	}
}

// TestInteractiveStubCLI checks, with a stand-in for the CLI, what the
// session is started with (environment, arguments, directory, the seeded
// .claude.json kept and completed) and that typing, the screen and the exit
// status work.
func TestInteractiveStubCLI(t *testing.T) {
	t.Setenv("CLAUDECODE", "1")
	t.Setenv("ANTHROPIC_AUTH_TOKEN", "secret")
	t.Setenv("TMUX", "/tmp/tmux-0/default,1,0")
	out := t.TempDir()
	// It draws a prompt box, then echoes each line it reads and exits 7 on
	// /exit.
	stub := writeScript(t, t.TempDir(), "claude", `env > `+clitest.ShellQuote(filepath.Join(out, "env"))+`
printf '%s\n' "$@" > `+clitest.ShellQuote(filepath.Join(out, "args"))+`
pwd > `+clitest.ShellQuote(filepath.Join(out, "cwd"))+`
printf '──────\n❯ \n──────\n'
while read -r line; do
  echo "GOT:$line"
  [ "$line" = /exit ] && exit 7
done
`)
	home, dir := t.TempDir(), t.TempDir()
	prior := `{"numStartups": 3, "customApiKeyResponses": {"approved": ["other"], "rejected": ["bad"]},
		"projects": {"/elsewhere": {"hasTrustDialogAccepted": false}}}`
	if err := os.WriteFile(filepath.Join(home, ".claude.json"), []byte(prior), 0o600); err != nil {
		t.Fatal(err)
	}
	api := StartFakeAPI(t, nil)
	s := StartInteractive(t, InteractiveOptions{CLI: stub, API: api, Dir: dir, Home: home,
		PluginDirs: []string{"/p1"}, Args: []string{"--model", "it's haiku"}, Env: []string{"EXTRA=1"}, Timeout: 30 * time.Second})
	s.Type("hello   there -l 'quoted' $HOME")
	s.WaitScreen("GOT:hello   there -l 'quoted' $HOME")
	s.Exit()
	if c := s.ExitCode(); c != 7 {
		t.Errorf("exit code %d, want 7\n%s", c, s.Screen())
	}

	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(out, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	if got, want := read("args"), "--plugin-dir\n/p1\n--model\nit's haiku\n"; got != want {
		t.Errorf("args %q, want %q", got, want)
	}
	if got := strings.TrimSpace(read("cwd")); got != dir {
		t.Errorf("cwd %q, want %q", got, dir)
	}
	env := "\n" + read("env")
	for _, want := range []string{"\nHOME=" + home + "\n", "\nANTHROPIC_API_KEY=" + InteractiveAPIKey + "\n",
		"\nANTHROPIC_BASE_URL=" + api.URL() + "\n", "\nEXTRA=1\n", "\nCLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1\n"} {
		if !strings.Contains(env, want) {
			t.Errorf("env lacks %q:\n%s", want, env)
		}
	}
	for _, bad := range []string{"\nCLAUDECODE=", "\nANTHROPIC_AUTH_TOKEN=", "/tmp/tmux-0/default"} {
		if strings.Contains(env, bad) {
			t.Errorf("env leaks %q", bad)
		}
	}

	var cfg struct {
		NumStartups            int    `json:"numStartups"`
		HasCompletedOnboarding bool   `json:"hasCompletedOnboarding"`
		LastOnboardingVersion  string `json:"lastOnboardingVersion"`
		CustomAPIKeyResponses  struct {
			Approved, Rejected []string
		} `json:"customApiKeyResponses"`
		Projects map[string]struct {
			HasTrustDialogAccepted bool `json:"hasTrustDialogAccepted"`
		} `json:"projects"`
	}
	b, _ := os.ReadFile(filepath.Join(home, ".claude.json"))
	if err := json.Unmarshal(b, &cfg); err != nil {
		t.Fatal(err)
	}
	keys := cfg.CustomAPIKeyResponses
	if cfg.NumStartups != 3 || !cfg.HasCompletedOnboarding || cfg.LastOnboardingVersion != Version ||
		strings.Join(keys.Approved, ",") != "other,"+InteractiveAPIKey[len(InteractiveAPIKey)-20:] ||
		strings.Join(keys.Rejected, ",") != "bad" ||
		!cfg.Projects[dir].HasTrustDialogAccepted || len(cfg.Projects) != 2 {
		t.Errorf(".claude.json not kept and completed:\n%s", b)
	}
}

// TestStartInteractiveNoTmux: without tmux the test is skipped, or fails
// under CI.
func TestStartInteractiveNoTmux(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	api := StartFakeAPI(t, nil)
	t.Setenv("CI", "")
	r := capture(t, func(tb testing.TB) { StartInteractive(tb, InteractiveOptions{CLI: "/nonexistent", API: api}) })
	if r.fatal != "" || !strings.Contains(r.skip, "tmux not found") {
		t.Errorf("no tmux, no CI: skip %q fatal %q", r.skip, r.fatal)
	}
	t.Setenv("CI", "true")
	r = capture(t, func(tb testing.TB) { StartInteractive(tb, InteractiveOptions{CLI: "/nonexistent", API: api}) })
	if r.skip != "" || !strings.Contains(r.fatal, "tmux not found") {
		t.Errorf("no tmux, CI: skip %q fatal %q", r.skip, r.fatal)
	}
}

// TestStartInteractiveFailsFast: a dialog that would block the session, or
// a CLI that exits at once, fails the test without waiting for the
// deadline, showing the screen.
func TestStartInteractiveFailsFast(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("no tmux")
	}
	api := StartFakeAPI(t, nil)
	for _, tc := range []struct{ script, want string }{
		{"echo '  Do you want to use this API key?'; sleep 60", "the API key is not approved"},
		{"echo 'cannot start'; exit 3", "the CLI exited with status 3"},
	} {
		stub := writeScript(t, t.TempDir(), "claude", tc.script+"\n")
		start := time.Now()
		r := capture(t, func(tb testing.TB) { StartInteractive(tb, InteractiveOptions{CLI: stub, API: api}) })
		if !strings.Contains(r.fatal, tc.want) || !strings.Contains(r.fatal, "--- screen ---") {
			t.Errorf("%s: fatal %q, want %q with the screen", tc.script, r.fatal, tc.want)
		}
		if d := time.Since(start); d > 30*time.Second {
			t.Errorf("%s: took %v", tc.script, d)
		}
	}
}

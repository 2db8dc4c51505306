package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/claudetest"
)

// installEnv is an isolated environment for install.sh/uninstall.sh: its own
// HOME, the pinned claude CLI (or none), Go's caches kept warm.
func installEnv(t *testing.T, home, claude, bindir string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "CLAUDE") || strings.HasPrefix(k, "ANTHROPIC") || k == "HOME" || k == "CAIRN_BIN" {
			continue
		}
		env = append(env, kv)
	}
	for _, k := range []string{"GOCACHE", "GOMODCACHE", "GOPATH"} {
		out, err := exec.Command("go", "env", k).Output()
		if err != nil {
			t.Fatal(err)
		}
		env = append(env, k+"="+strings.TrimSpace(string(out)))
	}
	env = append(env, "HOME="+home, "CAIRN_INSTALL_DIR="+bindir, "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1")
	if claude != "" {
		env = append(env, "CLAUDE_BIN="+claude)
	}
	return env
}

func runScript(t *testing.T, env []string, script string, args ...string) string {
	t.Helper()
	cmd := exec.Command(filepath.Join(pluginRoot(t), script), args...)
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", script, strings.Join(args, " "), err, out)
	}
	return string(out)
}

func readText(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// install.sh PROJECT builds cairn onto PATH and wires the project with
// `cairn init --claude`: the next session gets recall through the project's
// own hooks; nothing written names this machine; a second install changes
// nothing; uninstall removes exactly the wiring and keeps the log unless
// --purge.
func TestInstallWiresProject(t *testing.T) {
	cli := claudetest.FindCLI(t)
	project := claudetest.NewGitRepo(t)
	home := t.TempDir()
	bindir := t.TempDir()
	env := installEnv(t, home, cli, bindir)
	out := runScript(t, env, "install.sh", project)
	for _, want := range []string{"building cairn into", "built cairn", "git add .cairn .claude"} {
		if !strings.Contains(out, want) {
			t.Errorf("install.sh does not say %q:\n%s", want, out)
		}
	}
	if _, err := os.Stat(filepath.Join(bindir, "cairn")); err != nil {
		t.Fatalf("no binary installed: %v", err)
	}
	settingsPath := filepath.Join(project, ".claude", "settings.json")
	first := readText(t, settingsPath)
	if !strings.Contains(first, `.cairn/hook SessionStart`) {
		t.Fatalf("project hooks not in settings.json:\n%s", first)
	}
	for _, f := range []string{settingsPath, filepath.Join(project, ".cairn", "hook"), filepath.Join(project, ".claude", "commands", "recall.md")} {
		data := readText(t, f)
		for _, local := range []string{home, bindir, pluginRoot(t), project} {
			if strings.Contains(data, local) {
				t.Errorf("%s names %s of this machine", f, local)
			}
		}
	}
	log1 := readText(t, filepath.Join(project, ".cairn", "knowledge.jsonl"))
	runScript(t, env, "install.sh", project)
	if again := readText(t, settingsPath); again != first {
		t.Errorf("second install changed settings.json:\n%s\nvs\n%s", first, again)
	}
	if log2 := readText(t, filepath.Join(project, ".cairn", "knowledge.jsonl")); log2 != log1 {
		t.Errorf("second install changed the log")
	}

	git(t, project, "checkout", "-q", "-b", "feat/ledger-export")
	cairnIn(t, project, "add", "learned", "The ledger export runs nightly at two")
	api := claudetest.StartFakeAPI(t, [][]claudetest.Block{{claudetest.Text("ok")}})
	res := claudetest.Run(t, claudetest.RunOptions{CLI: cli, API: api, Dir: project, Home: home,
		Prompt: "look at the ledger export", Env: []string{"CAIRN_BIN=", "PATH=" + bindir + ":" + filteredPath()}})
	if res.ExitCode != 0 {
		t.Fatalf("claude exited %d\n%s", res.ExitCode, res)
	}
	if !strings.Contains(injected(t, api), "ledger export runs nightly") {
		t.Errorf("the installed wiring did not inject the entry\n%s\n%s", res, api.MainRequestTexts())
	}

	runScript(t, env, "uninstall.sh", project)
	if _, err := os.Stat(settingsPath); !os.IsNotExist(err) {
		t.Errorf("uninstall left settings.json (cairn made it): %v", err)
	}
	if _, err := os.Stat(filepath.Join(project, ".claude")); !os.IsNotExist(err) {
		t.Errorf("uninstall left .claude/: %v", err)
	}
	if _, err := os.Stat(filepath.Join(project, ".cairn", "knowledge.jsonl")); err != nil {
		t.Errorf("uninstall without --purge removed the log: %v", err)
	}
	runScript(t, env, "uninstall.sh", project, "--purge")
	if _, err := os.Stat(filepath.Join(project, ".cairn")); !os.IsNotExist(err) {
		t.Errorf("--purge kept .cairn: %v", err)
	}
}

// install.sh merges the project's hooks into an existing settings.json
// without disturbing it; in a project that only has .cairn (no project
// wiring), the plugin's wrapper builds the binary on the first
// SessionStart; uninstall restores the settings byte for byte.
func TestInstallIntoSettingsAndWrapperBuilds(t *testing.T) {
	cli := claudetest.FindCLI(t)
	project := claudetest.NewGitRepo(t)
	home := t.TempDir()
	settingsPath := filepath.Join(project, ".claude", "settings.json")
	original := "{\n  \"model\": \"opus\",\n  \"hooks\": {\n    \"PreToolUse\": [ { \"matcher\": \"Bash\", \"hooks\": [ { \"type\": \"command\", \"command\": \"true\" } ] } ]\n  },\n  \"zeta\": 1\n}\n"
	if err := os.MkdirAll(filepath.Dir(settingsPath), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(settingsPath, []byte(original), 0o644); err != nil {
		t.Fatal(err)
	}
	env := installEnv(t, home, "", t.TempDir())
	env = append(env, "PATH="+filteredPath())
	runScript(t, env, "install.sh", project)
	merged := readText(t, settingsPath)
	if !strings.HasPrefix(merged, "{\n  \"model\": \"opus\",\n  \"hooks\": {\n    \"PreToolUse\": [ { \"matcher\": \"Bash\", \"hooks\": [ { \"type\": \"command\", \"command\": \"true\" } ] } ]") ||
		!strings.Contains(merged, `.cairn/hook SessionStart`) || !strings.HasSuffix(merged, "\"zeta\": 1\n}\n") {
		t.Fatalf("settings.json not merged in place:\n%s", merged)
	}
	runScript(t, env, "install.sh", project)
	if again := readText(t, settingsPath); again != merged {
		t.Errorf("second install changed settings.json")
	}

	// A session wired only through settings.json gets recall.
	git(t, project, "checkout", "-q", "-b", "feat/invoice-numbering")
	cairnIn(t, project, "add", "fact", "Invoices are numbered per tenant")
	api := claudetest.StartFakeAPI(t, [][]claudetest.Block{{claudetest.Text("ok")}})
	res := claudetest.Run(t, claudetest.RunOptions{CLI: cli, API: api, Dir: project, Home: home,
		Prompt: "number the invoices", Env: []string{"CAIRN_BIN=" + cairnBinary(t)}})
	if res.ExitCode != 0 {
		t.Fatalf("claude exited %d\n%s", res.ExitCode, res)
	}
	if !strings.Contains(injected(t, api), "Invoices are numbered per tenant") {
		t.Errorf("settings.json hooks did not inject the entry; log: %s", readLog(project))
	}

	// With no binary anywhere, the wrapper builds one into the plugin data
	// directory on SessionStart and runs it.
	data := t.TempDir()
	wenv := append(installEnv(t, home, "", t.TempDir()), "CLAUDE_PLUGIN_DATA="+data, "PATH="+filteredPath())
	cmd := exec.Command(filepath.Join(pluginRoot(t), "scripts", "cairn-hook"), "SessionStart")
	cmd.Env = wenv
	cmd.Stdin = strings.NewReader(`{"session_id":"s1","cwd":"` + project + `","hook_event_name":"SessionStart","source":"startup"}`)
	out, err := cmd.Output()
	if err != nil || !strings.Contains(string(out), "Invoices are numbered per tenant") {
		t.Errorf("wrapper did not build and run cairn: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(data, "bin", "cairn")); err != nil {
		t.Errorf("no binary built into the plugin data dir: %v", err)
	}

	// And inside a real session, in a project with .cairn but no project
	// wiring (the plugin stays out of one that has it): a fresh plugin
	// data directory, no CAIRN_BIN, no cairn on PATH; SessionStart builds
	// the binary and the first session already gets recall.
	plain := claudetest.NewGitRepo(t)
	git(t, plain, "checkout", "-q", "-b", "feat/invoice-numbering")
	cairnIn(t, plain, "add", "fact", "Invoices are numbered per tenant")
	data2 := t.TempDir()
	var goEnv []string
	for _, kv := range installEnv(t, home, "", t.TempDir()) {
		if strings.HasPrefix(kv, "GO") {
			goEnv = append(goEnv, kv)
		}
	}
	goEnv = append(goEnv, "CLAUDE_PLUGIN_DATA="+data2, "PATH="+filteredPath())
	api2 := claudetest.StartFakeAPI(t, [][]claudetest.Block{{claudetest.Text("ok")}})
	res2 := claudetest.Run(t, claudetest.RunOptions{CLI: cli, API: api2, Dir: plain, Home: t.TempDir(),
		Prompt: "number the invoices", PluginDirs: []string{pluginRoot(t)}, Env: goEnv})
	if res2.ExitCode != 0 {
		t.Fatalf("claude exited %d\n%s", res2.ExitCode, res2)
	}
	if !strings.Contains(injected(t, api2), "Invoices are numbered per tenant") {
		t.Errorf("first session with a binary built by the wrapper got no recall\n%s", res2)
	}

	runScript(t, env, "uninstall.sh", project)
	if got := readText(t, settingsPath); got != original {
		t.Errorf("uninstall did not restore settings.json:\n%s", got)
	}
}

// filteredPath is PATH without any directory holding a cairn binary, so the
// wrapper must build its own.
func filteredPath() string {
	var dirs []string
	for _, d := range filepath.SplitList(os.Getenv("PATH")) {
		if _, err := os.Stat(filepath.Join(d, "cairn")); err == nil {
			continue
		}
		dirs = append(dirs, d)
	}
	return strings.Join(dirs, string(os.PathListSeparator))
}

func readLog(project string) string {
	b, _ := os.ReadFile(filepath.Join(project, ".cairn", "cache", "cairn.log"))
	return string(b)
}

// install.sh --plugin installs cairn's plugin for the user (user scope)
// with the real claude CLI: a session in any repository of theirs with
// .cairn/ gets recall, with no --plugin-dir and nothing written into the
// project.
func TestInstallPluginForUser(t *testing.T) {
	cli := claudetest.FindCLI(t)
	home := t.TempDir()
	env := installEnv(t, home, cli, t.TempDir())
	runScript(t, env, "install.sh", "--plugin")
	if s := readText(t, filepath.Join(home, ".claude", "settings.json")); !strings.Contains(s, "cairn@cairn-marketplace") {
		t.Fatalf("plugin not enabled in the user's settings:\n%s", s)
	}
	project := claudetest.NewGitRepo(t)
	git(t, project, "checkout", "-q", "-b", "feat/ledger-export")
	cairnIn(t, project, "add", "learned", "The ledger export runs nightly at two")
	api := claudetest.StartFakeAPI(t, [][]claudetest.Block{{claudetest.Text("ok")}})
	res := claudetest.Run(t, claudetest.RunOptions{CLI: cli, API: api, Dir: project, Home: home,
		Prompt: "look at the ledger export", Env: []string{"CAIRN_BIN=" + cairnBinary(t)}})
	if res.ExitCode != 0 {
		t.Fatalf("claude exited %d\n%s", res.ExitCode, res)
	}
	if !strings.Contains(injected(t, api), "ledger export runs nightly") {
		t.Errorf("the user's plugin did not inject the entry\n%s", res)
	}
	if _, err := os.Stat(filepath.Join(project, ".claude")); !os.IsNotExist(err) {
		t.Errorf("the personal plugin wrote into the project: %v", err)
	}
}

package front

import (
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/helpers/internal/testharness/cairntest"
	"github.com/cairn-dev/cairn/helpers/internal/testharness/claudetest"
	"github.com/cairn-dev/cairn/helpers/internal/testharness/e2etest"
	"github.com/cairn-dev/cairn/helpers/internal/testharness/testenv"
)

// installEnv is an isolated environment for install.sh/uninstall.sh: its own
// HOME, the pinned claude CLI (or none), Go's caches kept warm.
func installEnv(t *testing.T, home, claude, bindir string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "CLAUDE") || strings.HasPrefix(k, "ANTHROPIC") || k == "HOME" || strings.HasPrefix(k, "XDG_") || k == "CAIRN_BIN" {
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
	env = append(append(env, testenv.Home(home)...), "CAIRN_INSTALL_DIR="+bindir, "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1")
	if claude != "" {
		env = append(env, "CLAUDE_BIN="+claude)
	}
	return env
}

func runScript(t *testing.T, env []string, script string, args ...string) string {
	t.Helper()
	cmd := exec.Command(filepath.Join(cairntest.RepoRoot(t), script), args...)
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
	for _, want := range []string{"building cairn from", "built cairn", "git add .cairn .claude"} {
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
		for _, local := range []string{home, bindir, cairntest.RepoRoot(t), project} {
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

	cairntest.Git(t, project, "checkout", "-q", "-b", "feat/ledger-export")
	cairntest.In(t, project, "add", "learned", "The ledger export runs nightly at two")
	api := claudetest.StartFakeAPI(t, [][]claudetest.Block{{claudetest.Text("ok")}})
	res := claudetest.Run(t, claudetest.RunOptions{CLI: cli, API: api, Dir: project, Home: home,
		Prompt: "look at the ledger export", Env: []string{"CAIRN_BIN=", "PATH=" + bindir + ":" + filteredPath()}})
	if res.ExitCode != 0 {
		t.Fatalf("claude exited %d\n%s", res.ExitCode, res)
	}
	if !strings.Contains(e2etest.Injected(t, api), "ledger export runs nightly") {
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
	// The person's own PreToolUse hook stays first, as written; cairn's
	// joins it in the same list.
	if !strings.HasPrefix(merged, "{\n  \"model\": \"opus\",\n  \"hooks\": {\n    \"PreToolUse\": [ { \"matcher\": \"Bash\", \"hooks\": [ { \"type\": \"command\", \"command\": \"true\" } ] }, {") ||
		!strings.Contains(merged, `.cairn/hook PreToolUse`) ||
		!strings.Contains(merged, `.cairn/hook SessionStart`) || !strings.HasSuffix(merged, "\"zeta\": 1\n}\n") {
		t.Fatalf("settings.json not merged in place:\n%s", merged)
	}
	runScript(t, env, "install.sh", project)
	if again := readText(t, settingsPath); again != merged {
		t.Errorf("second install changed settings.json")
	}

	// A session wired only through settings.json gets recall.
	cairntest.Git(t, project, "checkout", "-q", "-b", "feat/invoice-numbering")
	cairntest.In(t, project, "add", "fact", "Invoices are numbered per tenant")
	api := claudetest.StartFakeAPI(t, [][]claudetest.Block{{claudetest.Text("ok")}})
	res := claudetest.Run(t, claudetest.RunOptions{CLI: cli, API: api, Dir: project, Home: home,
		Prompt: "number the invoices", Env: []string{"CAIRN_BIN=" + cairntest.Binary(t)}})
	if res.ExitCode != 0 {
		t.Fatalf("claude exited %d\n%s", res.ExitCode, res)
	}
	if !strings.Contains(e2etest.Injected(t, api), "Invoices are numbered per tenant") {
		t.Errorf("settings.json hooks did not inject the entry; log: %s", readLog(project))
	}

	// With no binary anywhere, the wrapper's SessionStart says so and builds
	// one into the plugin data directory in the background: the session
	// does not wait for it. The next SessionStart runs it.
	data := t.TempDir()
	wenv := append(installEnv(t, home, "", t.TempDir()), "CLAUDE_PLUGIN_DATA="+data, "PATH="+filteredPath())
	hookOnce := func() string {
		cmd := exec.Command(filepath.Join(cairntest.RepoRoot(t), "scripts", "cairn-hook"), "SessionStart")
		cmd.Env = wenv
		cmd.Stdin = strings.NewReader(`{"session_id":"s1","cwd":"` + project + `","hook_event_name":"SessionStart","source":"startup"}`)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("wrapper: %v\n%s", err, out)
		}
		return string(out)
	}
	if out := hookOnce(); !strings.Contains(out, "building its binary in the background") {
		t.Errorf("the wrapper's first SessionStart did not say it is building:\n%s", out)
	}
	waitBuilt(t, data)
	if out := hookOnce(); !strings.Contains(out, "Invoices are numbered per tenant") {
		t.Errorf("the wrapper did not run the binary it built:\n%s", out)
	}

	// And inside real sessions, in a project with .cairn but no project
	// wiring (the plugin stays out of one that has it): a fresh plugin
	// data directory, no CAIRN_BIN, no cairn on PATH. The first session
	// is told the binary is being built; once it is, the next one gets
	// recall.
	plain := claudetest.NewGitRepo(t)
	cairntest.Git(t, plain, "checkout", "-q", "-b", "feat/invoice-numbering")
	cairntest.In(t, plain, "add", "fact", "Invoices are numbered per tenant")
	data2 := t.TempDir()
	var goEnv []string
	for _, kv := range installEnv(t, home, "", t.TempDir()) {
		if strings.HasPrefix(kv, "GO") {
			goEnv = append(goEnv, kv)
		}
	}
	goEnv = append(goEnv, "CLAUDE_PLUGIN_DATA="+data2, "PATH="+filteredPath())
	home2 := t.TempDir()
	for i, want := range []string{"building its binary in the background", "Invoices are numbered per tenant"} {
		api := claudetest.StartFakeAPI(t, [][]claudetest.Block{{claudetest.Text("ok")}})
		res := claudetest.Run(t, claudetest.RunOptions{CLI: cli, API: api, Dir: plain, Home: home2,
			Prompt: "number the invoices", PluginDirs: []string{cairntest.RepoRoot(t)}, Env: goEnv})
		if res.ExitCode != 0 {
			t.Fatalf("claude exited %d\n%s", res.ExitCode, res)
		}
		if !strings.Contains(e2etest.Injected(t, api), want) {
			t.Errorf("session %d: no %q in its first request\n%s", i+1, want, res)
		}
		if i == 0 {
			// Claude Code gives a plugin its own data directory under
			// HOME, whatever the environment says: find the build there.
			waitBuilt(t, buildDirUnder(t, home2, data2))
		}
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
	cairntest.Git(t, project, "checkout", "-q", "-b", "feat/ledger-export")
	cairntest.In(t, project, "add", "learned", "The ledger export runs nightly at two")
	api := claudetest.StartFakeAPI(t, [][]claudetest.Block{{claudetest.Text("ok")}})
	res := claudetest.Run(t, claudetest.RunOptions{CLI: cli, API: api, Dir: project, Home: home,
		Prompt: "look at the ledger export", Env: []string{"CAIRN_BIN=" + cairntest.Binary(t)}})
	if res.ExitCode != 0 {
		t.Fatalf("claude exited %d\n%s", res.ExitCode, res)
	}
	if !strings.Contains(e2etest.Injected(t, api), "ledger export runs nightly") {
		t.Errorf("the user's plugin did not inject the entry\n%s", res)
	}
	if _, err := os.Stat(filepath.Join(project, ".claude")); !os.IsNotExist(err) {
		t.Errorf("the personal plugin wrote into the project: %v", err)
	}
}

// waitBuilt waits until the wrapper's background build into the plugin
// data directory data has finished (its "building" directory is gone),
// and fails unless it left a binary.
func waitBuilt(t *testing.T, data string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Minute) // a safety net, not a speed assertion
	for {
		if _, err := os.Stat(filepath.Join(data, "bin", "building")); os.IsNotExist(err) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the background build did not finish")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if _, err := os.Stat(filepath.Join(data, "bin", "cairn")); err != nil {
		log, _ := os.ReadFile(filepath.Join(data, "bin", "build.log"))
		t.Fatalf("the background build left no binary: %v\n%s", err, log)
	}
}

// buildDirUnder finds the plugin data directory, under home or dirs, in
// which the wrapper started its background build (its bin/build.log).
func buildDirUnder(t *testing.T, roots ...string) string {
	t.Helper()
	var found string
	for _, root := range roots {
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err == nil && found == "" && d.Name() == "build.log" && filepath.Base(filepath.Dir(p)) == "bin" {
				found = filepath.Dir(filepath.Dir(p))
			}
			return nil
		})
	}
	if found == "" {
		t.Fatalf("no background build was started under %v", roots)
	}
	return found
}

// sourceCheckout is a cairn checkout as a teammate would clone it: the
// working tree's files (tracked, and untracked but not ignored) committed
// into a new repository, pushed to a bare remote whose file:// URL is its
// origin. It returns the checkout and the URL.
func sourceCheckout(t *testing.T) (string, string) {
	t.Helper()
	root := cairntest.RepoRoot(t)
	src := filepath.Join(t.TempDir(), "cairn-src")
	files := strings.Split(strings.TrimRight(cairntest.Git(t, root, "ls-files", "-z", "--cached", "--others", "--exclude-standard"), "\x00"), "\x00")
	for _, f := range files {
		info, err := os.Lstat(filepath.Join(root, f))
		if err != nil || !info.Mode().IsRegular() {
			continue // deleted in the working tree
		}
		data, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(src, f)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, data, info.Mode().Perm()); err != nil {
			t.Fatal(err)
		}
	}
	cairntest.Git(t, src, "init", "-q", "-b", "main")
	cairntest.Git(t, src, "add", "-A")
	cairntest.Git(t, src, "-c", "user.name=T", "-c", "user.email=t@example.com", "commit", "-q", "-m", "cairn")
	remote := filepath.Join(t.TempDir(), "cairn.git")
	cairntest.Git(t, filepath.Dir(remote), "clone", "-q", "--bare", src, remote)
	url := "file://" + filepath.ToSlash(remote)
	cairntest.Git(t, src, "remote", "add", "origin", url)
	return src, url
}

// The front door for a teammate: install.sh from a clone of cairn shows
// its progress, says how to put cairn on PATH when it is not (and prints
// every next command so that it works as printed), and records in the
// project how a teammate installs cairn: a clone of the same origin and
// ./install.sh. A teammate without cairn is told exactly that command, and
// running it as printed, on a fresh HOME, installs a working cairn.
func TestTeammateInstallRoute(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds cairn twice with install.sh")
	}
	src, url := sourceCheckout(t)
	project := claudetest.NewGitRepo(t)
	homeA := t.TempDir()
	env := installEnv(t, homeA, "", filepath.Join(homeA, ".local", "bin"))
	env = append(env, "PATH="+filteredPath(), "SHELL=/bin/bash")
	cmd := exec.Command(filepath.Join(src, "install.sh"), project)
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("install.sh: %v\n%s", err, out)
	}
	transcript := string(out)
	bin := filepath.Join(homeA, ".local", "bin", "cairn")
	hint := "git clone " + url + " cairn && cd cairn && ./install.sh"
	for _, want := range []string{
		"building cairn from " + src,
		"Go modules ready: ",
		"packages compiled (the others were cached): ",
		"built cairn 0.1.0 in ",
		homeA + "/.local/bin is not on your PATH",
		`echo 'export PATH="$HOME/.local/bin:$PATH"' >> ~/.bashrc`,
		"recorded how teammates install cairn: " + hint,
		"Try: " + bin + " --dir " + project + " doctor",
	} {
		if !strings.Contains(transcript, want) {
			t.Errorf("install.sh does not say %q:\n%s", want, transcript)
		}
	}
	// Every next command, as printed, works: the doctor it suggests, the
	// line that puts cairn on PATH, and the commit of the wiring.
	try := exec.Command("sh", "-c", printedAfter(t, transcript, "Try: "))
	try.Env = env
	if out, err := try.CombinedOutput(); err != nil && !strings.Contains(string(out), "ok   wiring") {
		t.Errorf("the printed doctor command: %v\n%s", err, out)
	}
	runPrinted(t, env, homeA, printedAfter(t, transcript, "is not on your PATH. So that you and your agents can run cairn by name, run:\n  "))
	onPath := exec.Command("sh", "-c", ". ~/.bashrc && command -v cairn")
	onPath.Env = env
	if out, err := onPath.CombinedOutput(); err != nil || strings.TrimSpace(string(out)) != bin {
		t.Errorf("after the printed PATH line, cairn is not found by name: %v\n%s", err, out)
	}
	gitIdentity := append(env, "GIT_AUTHOR_NAME=Ana", "GIT_AUTHOR_EMAIL=ana@example.com", "GIT_COMMITTER_NAME=Ana", "GIT_COMMITTER_EMAIL=ana@example.com")
	runPrinted(t, gitIdentity, project, printedAfter(t, transcript, "commit it so teammates get it with a pull:\n  "))
	if st := cairntest.Git(t, project, "status", "--porcelain", ".cairn", ".claude"); st != "" {
		t.Errorf("the printed commit left changes behind:\n%s", st)
	}
	// A second install with nothing changed prints no commit: it would
	// fail with "nothing to commit". What it does print still works.
	again := exec.Command(filepath.Join(src, "install.sh"), project)
	again.Env = env
	out, err = again.CombinedOutput()
	if err != nil {
		t.Fatalf("second install.sh: %v\n%s", err, out)
	}
	if strings.Contains(string(out), "git add") || strings.Contains(string(out), "git commit") {
		t.Errorf("a second install with nothing changed prints a commit:\n%s", out)
	}
	runPrinted(t, env, homeA, printedAfter(t, string(out), "Try: "))
	var cfg struct {
		InstallHint string `json:"install_hint"`
	}
	if err := json.Unmarshal([]byte(readText(t, filepath.Join(project, ".cairn", "config.json"))), &cfg); err != nil || cfg.InstallHint != hint {
		t.Fatalf("config.json install_hint = %q (%v), want %q", cfg.InstallHint, err, hint)
	}

	// Teammate B has no cairn: the session's start names the route.
	homeB := t.TempDir()
	envB := append(installEnv(t, homeB, "", filepath.Join(homeB, ".local", "bin")), "PATH="+filteredPath(), "CAIRN_BIN=", "GOBIN=")
	notice := exec.Command("sh", filepath.Join(project, ".cairn", "hook"), "SessionStart")
	notice.Env, notice.Stdin = envB, strings.NewReader(`{"session_id":"s","hook_event_name":"SessionStart"}`)
	nout, err := notice.Output()
	if err != nil || !strings.Contains(string(nout), "cairn is not installed on this machine") || !strings.Contains(string(nout), "To install it, this repository suggests (read it before you run it): "+hint+".") {
		t.Fatalf("the notice (%v):\n%s", err, nout)
	}
	if _, model, _ := strings.Cut(string(nout), `"additionalContext"`); strings.Contains(model, hint) {
		t.Fatalf("the model is told the install hint:\n%s", nout)
	}
	// B runs it as printed.
	run := exec.Command("sh", "-c", hint)
	run.Dir, run.Env = t.TempDir(), envB
	if out, err := run.CombinedOutput(); err != nil {
		t.Fatalf("the notice's command, as printed: %v\n%s", err, out)
	}
	version := exec.Command(filepath.Join(homeB, ".local", "bin", "cairn"), "version")
	if out, err := version.Output(); err != nil || !strings.HasPrefix(string(out), "cairn 0.1.0") {
		t.Errorf("B's cairn after the printed command: %v %s", err, out)
	}

	// install.sh names the bad argument.
	bad := exec.Command(filepath.Join(src, "install.sh"), filepath.Join(homeA, "no such project"))
	bad.Env = env
	if out, err := bad.CombinedOutput(); err == nil || !strings.Contains(string(out), "install.sh: "+filepath.Join(homeA, "no such project")+" is not a directory") {
		t.Errorf("install.sh with a missing project: %v\n%s", err, out)
	}
}

// printedAfter returns the command printed on the rest of the line after
// marker in out, failing t when out does not print it.
func printedAfter(t *testing.T, out, marker string) string {
	t.Helper()
	_, rest, ok := strings.Cut(out, marker)
	if !ok {
		t.Fatalf("no %q in:\n%s", marker, out)
	}
	line, _, _ := strings.Cut(rest, "\n")
	return line
}

// runPrinted runs a printed command as the person pastes it into a shell,
// in dir, and fails t unless it succeeds.
func runPrinted(t *testing.T, env []string, dir, command string) {
	t.Helper()
	cmd := exec.Command("sh", "-c", command)
	cmd.Dir, cmd.Env = dir, env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("the printed command %q: %v\n%s", command, err, out)
	}
}

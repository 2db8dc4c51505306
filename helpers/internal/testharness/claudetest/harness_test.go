package claudetest

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// recTB wraps a real testing.TB but records Fatal and Skip instead of
// ending the real test; it must be used in its own goroutine (see capture).
type recTB struct {
	testing.TB
	fatal, skip string
}

func (r *recTB) Helper() {}

func (r *recTB) Fatalf(format string, args ...any) {
	r.fatal = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

func (r *recTB) Skip(args ...any) {
	r.skip = fmt.Sprint(args...)
	runtime.Goexit()
}

// capture runs f with a recTB and returns it once f returns or stops.
func capture(t *testing.T, f func(tb testing.TB)) *recTB {
	r := &recTB{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		f(r)
	}()
	<-done
	return r
}

// writeScript writes an executable shell script and returns its path.
func writeScript(t *testing.T, dir, name, body string) string {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("stub CLIs are shell scripts")
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestRunEnvAndArgsWithStubCLI(t *testing.T) {
	t.Setenv("CLAUDECODE", "1")
	t.Setenv("CLAUDE_CODE_ENTRYPOINT", "cli")
	t.Setenv("ANTHROPIC_AUTH_TOKEN", "secret")
	stub := writeScript(t, t.TempDir(), "claude", `printf '%s\n' "$@"; echo ---; env; echo "cwd=$(pwd)"`)
	api := StartFakeAPI(t, nil)
	dir := t.TempDir()
	res := Run(t, RunOptions{CLI: stub, API: api, Dir: dir, Prompt: "hi there",
		AllowedTools: []string{"Bash", "Read"}, PluginDirs: []string{"/p1"}, Args: []string{"--model", "haiku"},
		Env: []string{"EXTRA=1", "DISABLE_TELEMETRY=0"}})
	args, env, _ := strings.Cut(res.Stdout, "---\n")
	if want := "-p\nhi there\n--allowedTools\nBash,Read\n--plugin-dir\n/p1\n--model\nhaiku\n"; args != want {
		t.Errorf("args %q, want %q", args, want)
	}
	for _, want := range []string{"\nHOME=" + res.Home + "\n", "\nANTHROPIC_API_KEY=test\n", "\nANTHROPIC_BASE_URL=" + api.URL() + "\n",
		"\nEXTRA=1\n", "\nDISABLE_TELEMETRY=0\n", "\nCLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1\n", "\ncwd=" + dir + "\n"} {
		if !strings.Contains("\n"+env, want) {
			t.Errorf("child env lacks %q:\n%s", want, env)
		}
	}
	for _, bad := range []string{"CLAUDECODE=", "CLAUDE_CODE_ENTRYPOINT=", "ANTHROPIC_AUTH_TOKEN=", "DISABLE_TELEMETRY=1"} {
		if strings.Contains(env, bad) {
			t.Errorf("child env leaks %q", bad)
		}
	}
	if res.ExitCode != 0 {
		t.Errorf("exit %d", res.ExitCode)
	}

	res = Run(t, RunOptions{CLI: writeScript(t, t.TempDir(), "claude", "echo oops >&2; exit 3"), API: api})
	if res.ExitCode != 3 || res.Stderr != "oops\n" {
		t.Errorf("failing stub: %s", res)
	}
}

func TestRunTimeoutFailsAndKillsChildren(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "child.pid")
	// The stub leaves a grandchild holding stdout, as a hung hook would.
	stub := writeScript(t, dir, "claude", "sleep 60 & echo $! > "+pidFile+"\nsleep 60\n")
	start := time.Now()
	r := capture(t, func(tb testing.TB) {
		Run(tb, RunOptions{CLI: stub, BaseURL: "http://127.0.0.1:9", Timeout: 500 * time.Millisecond})
	})
	if !strings.Contains(r.fatal, "did not finish within 500ms") {
		t.Fatalf("fatal = %q", r.fatal)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("timeout took %v", d)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	var pid int
	fmt.Sscan(string(b), &pid)
	deadline := time.Now().Add(5 * time.Second)
	for {
		if _, err := os.Stat(fmt.Sprintf("/proc/%d", pid)); err != nil {
			break
		}
		if st, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); strings.Contains(string(st), ") Z ") {
			break // killed, waiting to be reaped by init
		}
		if time.Now().After(deadline) {
			t.Errorf("grandchild %d still running after the timeout", pid)
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestFindCLI(t *testing.T) {
	dir := t.TempDir()
	good := writeScript(t, dir, "good", "echo '"+Version+" (Claude Code)'")
	t.Setenv("CAIRN_CLAUDE_BIN", good)
	if got := FindCLI(t); got != good {
		t.Errorf("CAIRN_CLAUDE_BIN: got %q", got)
	}

	prefix := t.TempDir()
	bin := binaryInPrefix(prefix)
	if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
		t.Fatal(err)
	}
	writeScript(t, filepath.Dir(bin), "claude", "echo '"+Version+" (Claude Code)'")
	t.Setenv("CAIRN_CLAUDE_BIN", "")
	t.Setenv("CAIRN_CLAUDE_PREFIX", prefix)
	if got := FindCLI(t); got != bin {
		t.Errorf("CAIRN_CLAUDE_PREFIX: got %q, want %q", got, bin)
	}

	// Nothing installed: a wrong version on PATH, no prefixes.
	pathDir := t.TempDir()
	writeScript(t, pathDir, "claude", "echo '1.0.0 (Claude Code)'")
	t.Setenv("CAIRN_CLAUDE_PREFIX", t.TempDir())
	t.Setenv("PATH", pathDir)
	saved := defaultPrefixes
	defaultPrefixes = nil
	t.Cleanup(func() { defaultPrefixes = saved })

	t.Setenv("CI", "")
	r := capture(t, func(tb testing.TB) { FindCLI(tb) })
	if r.fatal != "" || !strings.Contains(r.skip, InstallCommand) || !strings.Contains(r.skip, `version "1.0.0"`) {
		t.Errorf("not installed, no CI: skip %q fatal %q", r.skip, r.fatal)
	}
	t.Setenv("CI", "true")
	r = capture(t, func(tb testing.TB) { FindCLI(tb) })
	if r.skip != "" || !strings.Contains(r.fatal, ".ci/run") || !strings.Contains(r.fatal, InstallCommand) {
		t.Errorf("not installed, CI: skip %q fatal %q", r.skip, r.fatal)
	}
}

// The newest version is found through its own prefix variable, and a
// binary of another version is never taken for it.
func TestFindVersion(t *testing.T) {
	prefix := func(version string) (string, string) {
		p := t.TempDir()
		bin := binaryInPrefix(p)
		if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
			t.Fatal(err)
		}
		writeScript(t, filepath.Dir(bin), "claude", "echo '"+version+" (Claude Code)'")
		return p, bin
	}
	oldP, oldBin := prefix(Version)
	newP, newBin := prefix(LatestVersion)
	t.Setenv("CAIRN_CLAUDE_BIN", "")
	t.Setenv("CAIRN_CLAUDE_PREFIX", oldP)
	t.Setenv("CAIRN_CLAUDE_LATEST_PREFIX", newP)
	if got := FindVersion(t, LatestVersion); got != newBin {
		t.Errorf("CAIRN_CLAUDE_LATEST_PREFIX: got %q, want %q", got, newBin)
	}
	if got := FindVersion(t, Version); got != oldBin {
		t.Errorf("CAIRN_CLAUDE_PREFIX: got %q, want %q", got, oldBin)
	}
	if PrefixEnv(Version) != "CAIRN_CLAUDE_PREFIX" || PrefixEnv(LatestVersion) != "CAIRN_CLAUDE_LATEST_PREFIX" {
		t.Errorf("PrefixEnv: %s, %s", PrefixEnv(Version), PrefixEnv(LatestVersion))
	}

	// The latest prefix holds the old version: not taken; nothing else.
	t.Setenv("CAIRN_CLAUDE_LATEST_PREFIX", oldP)
	t.Setenv("PATH", t.TempDir())
	saved := defaultPrefixes
	defaultPrefixes = nil
	t.Cleanup(func() { defaultPrefixes = saved })
	t.Setenv("CI", "")
	r := capture(t, func(tb testing.TB) { FindVersion(tb, LatestVersion) })
	if r.fatal != "" || !strings.Contains(r.skip, "@anthropic-ai/claude-code@"+LatestVersion) || !strings.Contains(r.skip, "CAIRN_CLAUDE_LATEST_PREFIX=DIR") ||
		!strings.Contains(r.skip, `version "`+Version+`"`) {
		t.Errorf("latest not installed: skip %q fatal %q", r.skip, r.fatal)
	}
}

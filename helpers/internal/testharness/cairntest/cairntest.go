// Package cairntest is what the end-to-end tests of cairn share: the cairn
// binary built as install.sh builds it, the repository's root, and the
// git and cairn runs they make. Only tests import it.
package cairntest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/helpers/internal/fsx"
	"github.com/cairn-dev/cairn/helpers/internal/testharness/testenv"
)

// Main runs the tests of a package that runs cairn's hooks: isolated as
// testenv.Main does, with CAIRN_NO_BACKGROUND=1, since hooks start
// background sanitize runs that would outlive a test and write into its
// removed directory (the tests of that behaviour turn it back on and wait
// for the run).
func Main(m *testing.M) {
	os.Setenv("CAIRN_NO_BACKGROUND", "1")
	testenv.Main(m)
}

// Module is cairn's main package, the binary Binary builds.
const Module = "github.com/cairn-dev/cairn/helpers/cairn"

var (
	buildOnce sync.Once
	builtBin  string
	buildErr  error
)

// Binary builds cairn, as install.sh builds it (static, without the docs),
// and returns its path. The binary is shared: every test process of every
// package of this checkout uses one, kept in the tests' tools cache (see
// [testenv.Tools]), not the temporary directory, and rebuilt there only
// when its sources changed (go build's own up-to-date check), under a lock
// so that packages tested at once build it one at a time. Each test
// process runs the build once.
func Binary(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() { builtBin, buildErr = build(RepoRoot(t)) })
	if buildErr != nil {
		t.Fatalf("build cairn: %v", buildErr)
	}
	return builtBin
}

// build builds the binary of the checkout at root into its place in the
// tools cache and returns its path.
func build(root string) (string, error) {
	tools, err := testenv.Tools()
	if err != nil {
		return "", err
	}
	// One binary per checkout and platform: two checkouts (worktrees) tested
	// at once must not run each other's cairn.
	sum := sha256.Sum256([]byte(root + "\x00" + runtime.GOOS + "/" + runtime.GOARCH))
	dir := filepath.Join(tools, "bin", hex.EncodeToString(sum[:8]))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	lock, err := fsx.Acquire(filepath.Join(dir, ".build.lock"), 10*time.Minute)
	if err != nil {
		return "", err
	}
	defer lock.Release()
	bin := filepath.Join(dir, "cairn")
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	cmd := exec.Command("go", "build", "-tags", "urfave_cli_no_docs", "-o", bin, Module)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("%w\n%s", err, out)
	}
	return bin, nil
}

// RepoRoot is the root of cairn's repository (where go.mod, install.sh
// and the plugin are).
func RepoRoot(t testing.TB) string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOMOD").Output()
	gomod := strings.TrimSpace(string(out))
	if err != nil || gomod == "" || gomod == os.DevNull {
		t.Fatalf("go env GOMOD: %q, %v", gomod, err)
	}
	return filepath.Dir(gomod)
}

// Git runs git with args in dir as Ana (no global or system
// configuration) and returns its output; a failure fails t.
func Git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=Ana", "GIT_AUTHOR_EMAIL=ana@example.com", "GIT_COMMITTER_NAME=Ana", "GIT_COMMITTER_EMAIL=ana@example.com")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// In runs the built cairn with --dir dir and args, and returns its
// standard output; a failure fails t.
func In(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command(Binary(t), append([]string{"--dir", dir}, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("cairn %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return stdout.String()
}

// MustRead reads a file; a failure fails t.
func MustRead(t testing.TB, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

package clitest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/helpers/internal/fsx"
	"github.com/cairn-dev/cairn/helpers/internal/testharness/testenv"
)

// NPM describes a CLI pinned to one version of an npm package, and where a
// test finds it.
type NPM struct {
	// Harness prefixes messages, e.g. "claudetest".
	Harness string
	// Name is the CLI's name in messages, e.g. "Claude Code".
	Name string
	// Spec is what npm installs, e.g. "@anthropic-ai/claude-code@2.1.197".
	Spec string
	// Version is the version the CLI must report.
	Version string
	// CacheDir names the prefix under the user's cache/cairn, e.g.
	// "claude-code-2.1.197".
	CacheDir string
	// NoInstallEnv, when "1", turns the install into the cache off.
	NoInstallEnv string
	// Took says how long an install takes, e.g. "about 30 s".
	Took string
	// BinEnv names the variable that gives the CLI's path, used as is;
	// empty means none.
	BinEnv string
	// BinHint says what BinEnv names in the skip message; empty means
	// "the binary".
	BinHint string
	// PrefixEnv names the variable that gives an npm prefix holding it.
	PrefixEnv string
	// Prefixes are npm prefixes searched after PrefixEnv's.
	Prefixes []string
	// Command is the CLI's name on PATH.
	Command string
	// Binaries returns the places the CLI may be inside an npm prefix,
	// best first.
	Binaries func(prefix string) []string
	// Usable reports whether a path is a CLI to run; nil means
	// IsExecutable.
	Usable func(path string) bool
	// VersionOf returns the version the CLI at a path reports ("" on
	// failure).
	VersionOf func(path string) string
}

func (n NPM) usable(path string) bool {
	if n.Usable != nil {
		return n.Usable(path)
	}
	return IsExecutable(path)
}

// InstallCommand is the npm command that installs the CLI into DIR.
func (n NPM) InstallCommand() string { return "npm install --prefix DIR " + n.Spec }

// inPrefix returns the pinned CLI in an npm prefix, or what was tried.
func (n NPM) inPrefix(prefix string) (string, []string) {
	var tried []string
	for _, bin := range n.Binaries(prefix) {
		if !n.usable(bin) {
			tried = append(tried, bin+" (missing)")
			continue
		}
		if v := n.VersionOf(bin); v != n.Version {
			tried = append(tried, fmt.Sprintf("%s (version %q)", bin, v))
			continue
		}
		return bin, nil
	}
	return "", tried
}

// Find returns the path of the pinned CLI (under -short it skips the
// test: see SkipIfShort):
//
//  1. $BinEnv if set (used as is; the test fails if it is not usable);
//  2. the CLI inside the npm prefix $PrefixEnv, then inside Prefixes, if
//     it reports Version;
//  3. Command on PATH if it reports Version;
//  4. an install from the npm registry into the user's cache, when npm is
//     on PATH (see InstallCached).
//
// If none is found the test is skipped, naming the install command; when
// CI is "true" it fails instead (see Unavailable).
func (n NPM) Find(t testing.TB) string {
	t.Helper()
	SkipIfShort(t, n.Name)
	if n.BinEnv != "" {
		if bin := os.Getenv(n.BinEnv); bin != "" {
			if !n.usable(bin) {
				t.Fatalf("%s: %s=%s is not an executable file", n.Harness, n.BinEnv, bin)
			}
			return bin
		}
	}
	var tried, prefixes []string
	if p := os.Getenv(n.PrefixEnv); p != "" {
		prefixes = append(prefixes, p)
	}
	for _, p := range append(prefixes, n.Prefixes...) {
		bin, why := n.inPrefix(p)
		if bin != "" {
			return bin
		}
		tried = append(tried, why...)
	}
	if bin, err := exec.LookPath(n.Command); err != nil {
		tried = append(tried, n.Command+" on PATH (missing)")
	} else if v := n.VersionOf(bin); v != n.Version {
		tried = append(tried, fmt.Sprintf("%s (version %q)", bin, v))
	} else {
		return bin
	}
	bin, err := n.InstallCached()
	if err == nil {
		return bin
	}
	tried = append(tried, err.Error())
	msg := fmt.Sprintf("%s: %s %s not found (tried: %s); install it with `%s` and set %s=DIR",
		n.Harness, n.Name, n.Version, strings.Join(tried, "; "), n.InstallCommand(), n.PrefixEnv)
	if n.BinEnv != "" {
		hint := n.BinHint
		if hint == "" {
			hint = "the binary"
		}
		msg += fmt.Sprintf(" (or %s to %s)", n.BinEnv, hint)
	}
	Unavailable(t, msg)
	return ""
}

// InstallCached installs the CLI from the npm registry into
// <user cache>/cairn/CacheDir ($CAIRN_TEST_TOOLS/CacheDir; once for every test process of the
// machine: the first installs under a lock, the others wait and use it)
// and returns it, so plain `go test ./...` runs the real-client tests
// wherever npm is. $NoInstallEnv=1 turns it off.
func (n NPM) InstallCached() (string, error) {
	if os.Getenv(n.NoInstallEnv) == "1" {
		return "", fmt.Errorf("the user cache (%s=1)", n.NoInstallEnv)
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		return "", errors.New("npm install into the user cache (no npm on PATH)")
	}
	prefix, release, err := LockedCachePrefix(n.CacheDir)
	if err != nil {
		return "", err
	}
	defer release()
	if bin, _ := n.inPrefix(prefix); bin != "" {
		return bin, nil
	}
	fmt.Fprintf(os.Stderr, "%s: installing %s %s into %s (once; %s)\n", n.Harness, n.Name, n.Version, prefix, n.Took)
	cmd := exec.Command(npm, "install", "--prefix", prefix, "--no-audit", "--no-fund", "--loglevel=error", n.Spec)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("npm install into %s (%v: %s)", prefix, err, bytes.TrimSpace(out))
	}
	bin, tried := n.inPrefix(prefix)
	if bin == "" {
		return "", fmt.Errorf("npm install into %s (after it: %s)", prefix, strings.Join(tried, "; "))
	}
	return bin, nil
}

// LockedCachePrefix returns the npm prefix <user cache>/cairn/dir (see
// testenv.Tools),
// created, holding its install lock until release is called: the test
// processes of the machine install into it in turn, and the later ones
// find it done.
func LockedCachePrefix(dir string) (prefix string, release func(), err error) {
	tools, err := testenv.Tools()
	if err != nil {
		return "", nil, fmt.Errorf("npm install into the user cache (%v)", err)
	}
	prefix = filepath.Join(tools, dir)
	if err := os.MkdirAll(prefix, 0o755); err != nil {
		return "", nil, fmt.Errorf("npm install into %s (%v)", prefix, err)
	}
	lock, err := fsx.Acquire(filepath.Join(prefix, ".install.lock"), 10*time.Minute)
	if err != nil {
		return "", nil, fmt.Errorf("npm install into %s (%v)", prefix, err)
	}
	return prefix, func() { _ = lock.Release() }, nil
}

// VersionCache remembers the version each CLI path reports.
type VersionCache struct {
	mu sync.Mutex
	m  map[string]string
}

// Get returns probe(bin), running it once per path.
func (c *VersionCache) Get(bin string, probe func(bin string) string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if v, ok := c.m[bin]; ok {
		return v
	}
	if c.m == nil {
		c.m = map[string]string{}
	}
	v := probe(bin)
	c.m[bin] = v
	return v
}

// RunVersion runs "bin --version" with env, bounded by timeout, and
// returns its standard output.
func RunVersion(bin string, env []string, timeout time.Duration) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--version")
	cmd.Env = env
	out, err := cmd.Output()
	return string(out), err
}

package gitx

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// ErrNoGit means the git binary is not on PATH.
var ErrNoGit = errors.New("the git binary is not on PATH")

// runGit runs the git binary in the work tree root and returns its stdout;
// a failure carries git's own message.
func runGit(root string, args ...string) ([]byte, error) { return runGitEnv(root, nil, nil, args...) }

// runGitEnv is runGit with env added to git's environment, writing stdout
// into buf when it is not nil.
func runGitEnv(root string, buf *bytes.Buffer, env []string, args ...string) ([]byte, error) {
	if _, err := exec.LookPath("git"); err != nil {
		return nil, ErrNoGit
	}
	cmd := exec.Command("git", append([]string{"-C", root}, args...)...)
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	if buf == nil {
		buf = new(bytes.Buffer)
	}
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = buf, &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		name := args[0]
		for _, a := range args { // the command, past git's own options
			if !strings.HasPrefix(a, "-") {
				name = a
				break
			}
		}
		return nil, fmt.Errorf("git %s: %s", name, msg)
	}
	return buf.Bytes(), nil
}

// InIndex reports whether git's index holds path (relative to root): a
// tracked file, or one a merge in progress left unmerged. It runs
// `git ls-files` with the git binary.
func InIndex(root, path string) (bool, error) {
	out, err := runGit(root, "ls-files", "-z", "--", path)
	if err != nil {
		return false, err
	}
	return len(out) > 0, nil
}

// Add stages paths (relative to root) with the git binary: `git add`, which
// also marks a file a merge left unmerged as resolved. It is the one write
// this package makes, and it runs the git binary so that a merge in
// progress, filters and the index are handled exactly as git handles them.
func Add(root string, paths ...string) error {
	_, err := runGit(root, append([]string{"add", "--"}, paths...)...)
	return err
}

// CheckAttr returns the value git resolves for attribute attr of path
// (relative to root), from every .gitattributes and config git reads:
// "unspecified", "set", "unset" or the value, as `git check-attr` says.
func CheckAttr(root, attr, path string) (string, error) {
	out, err := runGit(root, "check-attr", "-z", attr, "--", path)
	if err != nil {
		return "", err
	}
	// path NUL attr NUL value NUL
	parts := strings.Split(string(out), "\x00")
	if len(parts) < 3 {
		return "", fmt.Errorf("git check-attr: unexpected output %q", out)
	}
	return parts[2], nil
}

// Uncommitted returns those of paths (relative to root, files or
// directories) under which git sees something to commit: a change, staged
// or not, or an untracked file that is not ignored (`git status`).
func Uncommitted(root string, paths ...string) ([]string, error) {
	var changed []string
	for _, p := range paths {
		out, err := runGit(root, "status", "--porcelain", "-z", "--untracked-files=all", "--", p)
		if err != nil {
			return nil, err
		}
		if len(out) > 0 {
			changed = append(changed, p)
		}
	}
	return changed, nil
}

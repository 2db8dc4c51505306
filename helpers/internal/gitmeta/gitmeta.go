// Package gitmeta reads what a hook needs of a git work tree straight from
// the files under .git: its branch, short HEAD, user.name and the
// origin's URL; and a file's git blob id, hashed as git does. It imports only the standard library, so the capture
// hook's accept path (package hookgate/accept, through capture and
// project) can use it before the program's heavier packages (go-git,
// SQLite) are initialised.
package gitmeta

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
)

// ErrNotARepo means no git repository contains the directory.
var ErrNotARepo = errors.New("not a git repository")

// Info is what capture needs of a repository — branch, short HEAD and
// user.name — read straight from the files under .git. It costs a few
// small reads where opening the repository with go-git costs milliseconds,
// which matters on a hook's path. Anything it cannot read is left empty.
type Info struct {
	Branch   string
	Head     string
	UserName string
	// Origin is the URL of the remote named origin, as configured.
	Origin string
}

// Read reads branch, HEAD and user.name for the work tree at root.
// Linked worktrees (a .git file and a commondir) are followed.
func Read(root string) Info {
	var q Info
	gitDir := filepath.Join(root, ".git")
	if b, err := os.ReadFile(gitDir); err == nil { // a .git file: worktree or submodule
		if rest, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:"); ok {
			gitDir = strings.TrimSpace(rest)
			if !filepath.IsAbs(gitDir) {
				gitDir = filepath.Join(root, gitDir)
			}
		}
	}
	common := gitDir
	if b, err := os.ReadFile(filepath.Join(gitDir, "commondir")); err == nil {
		common = strings.TrimSpace(string(b))
		if !filepath.IsAbs(common) {
			common = filepath.Join(gitDir, common)
		}
	}
	head, err := os.ReadFile(filepath.Join(gitDir, "HEAD"))
	if err == nil {
		h := strings.TrimSpace(string(head))
		if ref, ok := strings.CutPrefix(h, "ref:"); ok {
			ref = strings.TrimSpace(ref)
			q.Branch = strings.TrimPrefix(ref, "refs/heads/")
			q.Head = short(resolveRef(gitDir, common, ref))
		} else {
			q.Head = short(h)
		}
	}
	q.UserName = userName(common)
	q.Origin = configValue(filepath.Join(common, "config"), `remote "origin"`, "url")
	return q
}

func short(hash string) string {
	if len(hash) < 7 {
		return ""
	}
	for _, c := range hash[:7] {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return ""
		}
	}
	return hash[:7]
}

// resolveRef finds a ref's hash in the loose refs, then packed-refs.
func resolveRef(gitDir, common, ref string) string {
	for _, dir := range []string{gitDir, common} {
		if b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(ref))); err == nil {
			return strings.TrimSpace(string(b))
		}
	}
	f, err := os.Open(filepath.Join(common, "packed-refs"))
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		hash, name, ok := strings.Cut(sc.Text(), " ")
		if ok && name == ref {
			return hash
		}
	}
	return ""
}

// userName reads user.name from the repository's config, then the user's
// ($GIT_CONFIG_GLOBAL, or $XDG_CONFIG_HOME/git/config and ~/.gitconfig),
// then the system's unless GIT_CONFIG_NOSYSTEM is set. Include directives
// are not followed.
func userName(common string) string {
	files := []string{filepath.Join(common, "config")}
	if g := os.Getenv("GIT_CONFIG_GLOBAL"); g != "" {
		files = append(files, g)
	} else {
		home, _ := os.UserHomeDir()
		if home != "" {
			files = append(files, filepath.Join(home, ".gitconfig"))
		}
		xdg := os.Getenv("XDG_CONFIG_HOME")
		if xdg == "" && home != "" {
			xdg = filepath.Join(home, ".config")
		}
		if xdg != "" {
			files = append(files, filepath.Join(xdg, "git", "config"))
		}
	}
	if os.Getenv("GIT_CONFIG_NOSYSTEM") == "" {
		files = append(files, "/etc/gitconfig")
	}
	for _, f := range files {
		if name := configValue(f, "user", "name"); name != "" {
			return name
		}
	}
	return ""
}

// configValue returns the last value of section.key in a git config file.
func configValue(path, section, key string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	var val string
	in := false
	for _, line := range bytes.Split(data, []byte{'\n'}) {
		l := strings.TrimSpace(string(line))
		if l == "" || l[0] == '#' || l[0] == ';' {
			continue
		}
		if l[0] == '[' {
			name := strings.TrimSpace(strings.Trim(strings.SplitN(l, "]", 2)[0], "["))
			in = strings.EqualFold(name, section)
			continue
		}
		if !in {
			continue
		}
		k, v, ok := strings.Cut(l, "=")
		if !ok || !strings.EqualFold(strings.TrimSpace(k), key) {
			continue
		}
		v = strings.TrimSpace(v)
		if rest, ok := strings.CutPrefix(v, `"`); ok {
			if j := strings.IndexByte(rest, '"'); j >= 0 {
				v = rest[:j]
			}
		} else if i := strings.IndexAny(v, "#;"); i >= 0 {
			v = strings.TrimSpace(v[:i])
		}
		val = v
	}
	return val
}

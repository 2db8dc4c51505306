// Package projroot is the one rule for which project cairn works on, read
// the same way by every command, every hook (the capture hook's reject and
// accept paths included), the MCP server and the session pipeline. The
// first of these that is set names it:
//
//  1. --dir, as given to the command (before a hook's name: cairn --dir P
//     hook EVENT);
//  2. CAIRN_DIR;
//  3. the agent's project directory (Claude Code's CLAUDE_PROJECT_DIR,
//     Cursor's CURSOR_PROJECT_DIR, Gemini CLI's GEMINI_PROJECT_DIR,
//     OpenCode's project_dir), which its adapter reads;
//  4. the hook payload's cwd;
//  5. the process's working directory.
//
// A directory named by 1 or 2 is the project itself, relative to the
// working directory: `cairn --dir sub add` and a hook with CAIRN_DIR=sub
// both work on sub. Any other is searched upwards: the root of the git work
// tree that holds it, else the nearest directory at or above it holding a
// .cairn owned by this user, else (Found false) the directory itself.
//
// On Unix it imports only the standard library's early packages (os, and
// path, whose functions are path/filepath's there) and the leaf filestat
// (path/filepath and fsx on Windows), so that the hooks' fast paths (packages
// hookgate and hookgate/toolgate) can use it before the program's later
// packages are initialised: path/filepath and fsx sort late in Go's init
// order.
package projroot

import "os"

// EnvVar is the environment variable that names the project as --dir does.
const EnvVar = "CAIRN_DIR"

// cairnDir is the project's cairn directory (knowledge.DirName, which
// this leaf cannot import; a test checks they agree).
const cairnDir = ".cairn"

// Request is what is known of a call's project, each field optional.
type Request struct {
	Flag   string              // --dir, as given
	Getenv func(string) string // reads CAIRN_DIR; nil reads nothing
	Agent  string              // the agent's project directory
	Cwd    string              // the hook payload's cwd
	Dir    string              // the process's working directory
}

// Root is a resolved project.
type Root struct {
	Dir string // the project's root, absolute when Request.Dir is
	// IsGit: Dir is a git work tree's root (it holds .git).
	IsGit bool
	// Explicit: Dir was named by --dir or CAIRN_DIR.
	Explicit bool
	// Found: Dir is explicit, a git work tree's root, or holds a .cairn;
	// false when no project was found and Dir is the directory searched.
	Found bool
}

// Resolve applies the package's rule to r.
func Resolve(r Request) Root {
	explicit := r.Flag
	if explicit == "" && r.Getenv != nil {
		explicit = r.Getenv(EnvVar)
	}
	if explicit != "" {
		dir := r.abs(explicit)
		return Root{Dir: dir, IsGit: exists(join(dir, ".git")), Explicit: true, Found: true}
	}
	dir := r.Agent
	if dir == "" {
		dir = r.Cwd
	}
	return Search(r.abs(dir))
}

// Search finds the project that holds dir: the root of its git work tree,
// else the nearest directory at or above it holding a .cairn this user
// owns, else dir itself (Found false).
func Search(dir string) Root {
	if root, ok := GitRoot(dir); ok {
		return Root{Dir: root, IsGit: true, Found: true}
	}
	for d := dir; ; {
		p := join(d, cairnDir)
		if fi, err := os.Lstat(p); err == nil && fi.IsDir() && owned(p, fi) {
			return Root{Dir: d, Found: true}
		}
		parent := parentDir(d)
		if parent == d {
			return Root{Dir: dir}
		}
		d = parent
	}
}

// GitRoot returns the top directory of the git work tree that holds dir,
// by looking for .git upwards; it opens nothing.
func GitRoot(dir string) (string, bool) {
	abs, err := absolute(dir)
	if err != nil {
		return "", false
	}
	for d := abs; ; {
		if exists(join(d, ".git")) {
			return d, true
		}
		parent := parentDir(d)
		if parent == d {
			return "", false
		}
		d = parent
	}
}

// abs is p against the request's working directory.
func (r Request) abs(p string) string {
	if p == "" {
		p = "."
	}
	if isAbs(p) {
		return clean(p)
	}
	if r.Dir != "" {
		return join(r.Dir, p)
	}
	if a, err := absolute(p); err == nil {
		return a
	}
	return p
}

// exists reports whether path exists, without following a final link.
func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

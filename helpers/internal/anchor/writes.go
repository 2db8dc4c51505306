package anchor

import (
	"slices"
	"strings"

	"github.com/cairn-dev/cairn/helpers/internal/bashcmd"
)

// The tables below are slices and switches, not maps: a map literal is
// built by the package's init, and the hooks' fast path waits for every
// init that sorts before it (see TestGateRunsBeforeHeavyPackages).

// writers are the programs that change (write, move, remove) every file
// they are given as an argument.
var writers = []string{"tee", "rm", "touch", "truncate", "shred", "unlink", "mv", "chmod", "chown", "rmdir"}

// copiers write the last file they are given.
var copiers = []string{"cp", "install", "ln", "rsync", "scp"}

// inPlace are the flags with which prog writes the files it is given in
// place, as written here (sed -i, perl -pi, gofmt -w, prettier --write);
// ok is false for a program that has none, and flags nil for one that
// writes in place by default (black).
func inPlace(prog string) (flags []string, ok bool) {
	switch prog {
	case "sed", "autopep8":
		return []string{"-i", "--in-place"}, true
	case "perl":
		return []string{"-i", "-pi", "-pie", "-spi"}, true
	case "ruby":
		return []string{"-i", "-pi"}, true
	case "gofmt", "goimports":
		return []string{"-w"}, true
	case "prettier":
		return []string{"--write", "-w"}, true
	case "clang-format":
		return []string{"-i"}, true
	case "black":
		return nil, true
	}
	return nil, false
}

// gitWriters are the git subcommands that change the files they name.
var gitWriters = []string{"checkout", "restore", "rm", "mv"}

// WritePaths are the words of a shell command that name files it may
// write, move or remove: its redirections' targets, the arguments of the
// programs that change what they are given (rm, mv, tee, touch, cp's
// last, sed -i, gofmt -w, git checkout/restore/rm/mv, dd of=...), in the
// command, its substitutions and the scripts it hands a shell (at most
// 32, as written). A program this list does not know writes nothing here:
// it reads (cat, grep, ls, git status, go test).
func WritePaths(command string) []string {
	var out []string
	add := func(w string) {
		if len(out) < maxCommandPaths && w != "" && !strings.ContainsAny(w, "\n*?$`") && !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	var walk func(cmds []*bashcmd.Command, depth int)
	walk = func(cmds []*bashcmd.Command, depth int) {
		for _, c := range cmds {
			walk(c.Nested, depth)
			if depth < bashcmd.MaxDepth {
				walk(c.Script(), depth+1)
			}
			for _, w := range c.Redirected() {
				add(w)
			}
			for _, w := range written(c.Args()) {
				add(w)
			}
		}
	}
	walk(bashcmd.Parse(command), 0)
	return out
}

// written are the arguments of one simple command that it writes.
func written(args []string) []string {
	if len(args) == 0 {
		return nil
	}
	prog := bashcmd.BaseName(args[0])
	operands := func(from []string) []string {
		var out []string
		for _, w := range from {
			if w != "" && w[0] != '-' {
				out = append(out, w)
			}
		}
		return out
	}
	rest := args[1:]
	switch {
	case slices.Contains(writers, prog):
		return operands(rest)
	case slices.Contains(copiers, prog):
		if ops := operands(rest); len(ops) > 1 {
			return ops[len(ops)-1:]
		}
	case prog == "dd":
		var out []string
		for _, w := range rest {
			if f, ok := strings.CutPrefix(w, "of="); ok {
				out = append(out, f)
			}
		}
		return out
	case prog == "git":
		for i, w := range rest {
			if w != "" && w[0] != '-' {
				if slices.Contains(gitWriters, w) {
					return operands(rest[i+1:])
				}
				return nil
			}
		}
	default:
		flags, ok := inPlace(prog)
		if !ok {
			return nil
		}
		if flags == nil {
			return operands(rest) // black writes in place by default
		}
		for _, w := range rest {
			for _, f := range flags {
				if w == f || len(f) == 2 && strings.HasPrefix(w, f) { // sed -i.bak
					return operands(rest)
				}
			}
		}
	}
	return nil
}

// readers are programs that only read or list, whatever they are given.
var readers = []string{"ls", "cat", "head", "tail", "less", "more", "wc", "grep", "rg", "ag", "tree", "pwd",
	"echo", "stat", "file", "du", "df", "which", "diff", "cd", "true", "test", "["}

// subReaders are the subcommands of git and go that only read, list or
// check (a test run writes nothing the project tracks); ok is false for
// another program.
func subReaders(prog string) (subs []string, ok bool) {
	switch prog {
	case "git":
		return []string{"status", "log", "diff", "show", "blame", "grep", "ls-files", "rev-parse", "describe", "shortlog"}, true
	case "go":
		return []string{"test", "vet", "build", "list", "doc", "version", "env"}, true
	}
	return nil, false
}

// ReadOnly reports whether every simple command of a command line (a
// must-check's guarded command, say) is one that only reads, lists or
// tests: ls, cat, grep, git status, go test ./... A command it does not
// know is not read-only.
func ReadOnly(command string) bool {
	cmds := bashcmd.Parse(command)
	if len(cmds) == 0 {
		return false
	}
	for _, c := range cmds {
		if len(c.Redirected()) > 0 || len(c.Nested) > 0 {
			return false
		}
		args := c.Args()
		if len(args) == 0 {
			continue
		}
		prog := bashcmd.BaseName(args[0])
		if slices.Contains(readers, prog) {
			continue
		}
		subs, ok := subReaders(prog)
		if !ok || len(args) < 2 || !slices.Contains(subs, args[1]) {
			return false
		}
	}
	return true
}

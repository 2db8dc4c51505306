package anchor

import (
	"slices"
	"strings"

	"github.com/cairn-dev/cairn/helpers/internal/bashcmd"
)

// writers are the programs that change (write, move, remove) every file
// they are given as an argument.
var writers = map[string]bool{
	"tee": true, "rm": true, "touch": true, "truncate": true, "shred": true, "unlink": true,
	"mv": true, "chmod": true, "chown": true, "rmdir": true,
}

// copiers write the last file they are given.
var copiers = map[string]bool{"cp": true, "install": true, "ln": true, "rsync": true, "scp": true}

// inPlace write the files they are given with their in-place flag, as
// written here (sed -i, perl -pi, gofmt -w, prettier --write).
var inPlace = map[string][]string{
	"sed": {"-i", "--in-place"}, "perl": {"-i", "-pi", "-pie", "-spi"}, "ruby": {"-i", "-pi"},
	"gofmt": {"-w"}, "goimports": {"-w"}, "prettier": {"--write", "-w"},
	"clang-format": {"-i"}, "black": nil, "autopep8": {"-i", "--in-place"},
}

// gitWriters are the git subcommands that change the files they name.
var gitWriters = map[string]bool{"checkout": true, "restore": true, "rm": true, "mv": true}

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
	case writers[prog]:
		return operands(rest)
	case copiers[prog]:
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
				if gitWriters[w] {
					return operands(rest[i+1:])
				}
				return nil
			}
		}
	default:
		flags, ok := inPlace[prog]
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
var readers = map[string]bool{
	"ls": true, "cat": true, "head": true, "tail": true, "less": true, "more": true, "wc": true,
	"grep": true, "rg": true, "ag": true, "tree": true, "pwd": true,
	"echo": true, "stat": true, "file": true, "du": true, "df": true, "which": true, "diff": true,
	"cd": true, "true": true, "test": true, "[": true,
}

// subReaders are the subcommands of git and go that only read, list or
// check (a test run writes nothing the project tracks).
var subReaders = map[string]map[string]bool{
	"git": {"status": true, "log": true, "diff": true, "show": true, "blame": true, "grep": true,
		"ls-files": true, "rev-parse": true, "describe": true, "shortlog": true},
	"go": {"test": true, "vet": true, "build": true, "list": true, "doc": true, "version": true, "env": true},
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
		if readers[prog] {
			continue
		}
		subs, ok := subReaders[prog]
		if !ok || len(args) < 2 || !subs[args[1]] {
			return false
		}
	}
	return true
}

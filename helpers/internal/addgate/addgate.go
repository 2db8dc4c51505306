// Package addgate is `cairn add`'s early path: `cairn add TYPE CONTENT`
// (with --dir before add, or CAIRN_DIR, at most) is answered in this
// package's init, before SQLite, go-git, the MCP SDK, the CLI framework and
// the rest of the program's packages initialise, and the process exits.
// Go initialises a package once its imports are, taking ready packages in
// import-path order; this one imports only the light packages the capture
// hook's accept path imports (knowledge, project, session/record, the
// agents' adapters), so it runs about as early as that path does. A bare
// `cairn version` waits for every initialiser; this path skips some sixty
// of them, about half of their time.
//
// It handles exactly the argument lists it is sure of and otherwise
// returns, and main runs the command as always: any flag of add's
// (--json, --tags, --files, --bead, --source, --help, "--"), a flag of
// the program's other than --dir, a missing or unknown TYPE, empty
// CONTENT, no project, and any error of the insertion (the command redoes
// it and reports the error with its fix; an insertion that failed wrote
// nothing, and one that did write is found again as a duplicate). What it
// prints and its exit status are the command's: TestEarlyAddMatchesCommand
// runs both on a table of argument lists, and TestAddRunsBeforeHeavyPackages
// (helpers/cairn) checks, with Go's init trace, that the path waits for no
// heavy package and runs at most its ceiling of initialisers.
package addgate

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/cairn-dev/cairn/helpers/internal/agent/adapters"
	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
	"github.com/cairn-dev/cairn/helpers/internal/project"
	"github.com/cairn-dev/cairn/helpers/internal/projroot"
	"github.com/cairn-dev/cairn/helpers/internal/session/record"
	"github.com/cairn-dev/cairn/helpers/internal/untrusted"
)

func init() {
	if len(os.Args) < 4 {
		return
	}
	dir, _ := os.Getwd()
	env := Env{Getenv: os.Getenv, Stdout: os.Stdout, Stderr: os.Stderr, Dir: dir}
	if code, ok := Run(os.Args, env); ok {
		os.Exit(code)
	}
}

// Env is what the early path touches of the outside world.
type Env struct {
	Getenv         func(string) string
	Stdout, Stderr io.Writer
	Dir            string // the working directory
}

// Run answers args (os.Args) as `cairn add` would and returns its exit
// status; ok is false when it did not answer (and did nothing that the
// command would not do again the same way): the command must then run.
func Run(args []string, env Env) (code int, ok bool) {
	// A panic in an init would exit 2; the command answers instead.
	defer func() {
		if recover() != nil {
			code, ok = 0, false
		}
	}()
	a, ok := parse(args)
	if !ok {
		return 0, false
	}
	typ, err := knowledge.NormalizeType(a.typ)
	if err != nil {
		return 0, false
	}
	content := strings.Join(a.content, " ")
	if knowledge.CleanContent(content) == "" {
		return 0, false
	}
	if !a.dirSet {
		// The command's --dir reads CAIRN_DIR when it is not given.
		a.dir = env.Getenv(projroot.EnvVar)
	}
	p, err := project.Find(env.Dir, a.dir)
	if err != nil {
		return 0, false
	}
	e := knowledge.Entry{Type: typ, Content: content}
	e.Source, e.Agent, e.Session = record.Provenance(adapters.All(), env.Getenv, p.Store)
	record.ShortLived()
	key, added, err := p.Add(e)
	if err != nil {
		return 0, false
	}
	// The command's output goes through the same writer (cli.forTerminal).
	stdout, stderr := &untrusted.TerminalWriter{W: env.Stdout}, &untrusted.TerminalWriter{W: env.Stderr}
	fmt.Fprintln(stdout, key)
	if !added {
		fmt.Fprintln(stderr, "cairn: already recorded; nothing added")
	}
	return 0, true
}

// addArgs is an argument list the early path answers.
type addArgs struct {
	dir     string // --dir's value
	dirSet  bool   // --dir was given
	typ     string
	content []string
}

// parse reads `cairn [--dir D | --dir=D] add TYPE CONTENT...` where no
// word after add begins with "-"; ok is false for anything else.
func parse(args []string) (a addArgs, ok bool) {
	i := 1
	if i < len(args) && args[i] == "--dir" {
		if i+1 >= len(args) {
			return a, false
		}
		a.dir, a.dirSet = args[i+1], true
		i += 2
	} else if i < len(args) && strings.HasPrefix(args[i], "--dir=") {
		a.dir, a.dirSet = strings.TrimPrefix(args[i], "--dir="), true
		i++
	}
	if a.dirSet && (a.dir == "" || strings.HasPrefix(a.dir, "-")) {
		return a, false
	}
	if i >= len(args) || args[i] != "add" {
		return a, false
	}
	rest := args[i+1:]
	if len(rest) < 2 || rest[0] == "help" || rest[0] == "h" {
		return a, false
	}
	for _, w := range rest {
		if strings.HasPrefix(w, "-") {
			return a, false
		}
	}
	a.typ, a.content = rest[0], rest[1:]
	return a, true
}

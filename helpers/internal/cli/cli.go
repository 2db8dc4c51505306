// Package cli wires cairn's subcommands (urfave/cli/v2), resolves the
// project a command works on, and maps every error to one line on stderr
// and an exit code. It is the only package that talks to the user and the
// only importer of urfave/cli.
package cli

import (
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/helpers/internal/hookgate/accept"
	"github.com/cairn-dev/cairn/helpers/internal/typed"
	ucli "github.com/urfave/cli/v2"
)

// Version is cairn's version (see [cairn.Version]).
const Version = cairn.Version

// Env is what a command may touch of the outside world.
type Env struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	Getenv func(string) string
	Dir    string // working directory
	// Project is the project given before a hook's name (cairn --dir P
	// hook EVENT); commands read --dir through their flags.
	Project string
}

// Main runs cairn with args (args[0] is the program name) and returns the
// process exit code. It never panics and never exits by itself.
func Main(args []string, env Env) (code int) {
	if env.Getenv == nil {
		env.Getenv = os.Getenv
	}
	if env.Dir == "" {
		env.Dir, _ = os.Getwd()
	}
	if dir, rest, ok := dirHook(args); ok {
		// cairn --dir P hook EVENT: the hook, in project P.
		env.Project, args = dir, rest
	}
	hook := len(args) > 1 && args[1] == "hook"
	if !hook {
		// A hook's stdout is its protocol; everything else is a terminal's.
		env.Stdout, env.Stderr = forTerminal(env.Stdout), forTerminal(env.Stderr)
	}
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(env.Stderr, "cairn: internal error: %v\n%s", r, debug.Stack())
			code = exitError
			if hook {
				code = exitOK // a hook never fails the session (the session layer logs its own panics)
			}
		}
	}()
	if hook {
		accept.ShortLived()
		return runHook(args, env)
	}
	app := newApp(env)
	name := commandName(app, args)
	if name == "add" || name == "sync" && !slices.Contains(args, "--full") { // cairn add, cairn --dir P sync
		accept.ShortLived()
	}
	err := app.Run(intersperse(app, args))
	return report(env.Stderr, name, err)
}

func newApp(env Env) *ucli.App {
	app := &ucli.App{
		Name:                 "cairn",
		Usage:                "team memory for coding agents, shared through git",
		Version:              Version,
		HideVersion:          true,
		HideHelpCommand:      true,
		EnableBashCompletion: false,
		Reader:               env.Stdin,
		Writer:               env.Stdout,
		ErrWriter:            env.Stderr,
		ExitErrHandler:       func(*ucli.Context, error) {},
		OnUsageError:         onUsageError,
		Flags: []ucli.Flag{
			&ucli.StringFlag{Name: "dir", Usage: "the project (default: the git repository of the working directory; env CAIRN_DIR)", EnvVars: []string{"CAIRN_DIR"}},
		},
		Description: "cairn captures what coding agents learn into .cairn/knowledge.jsonl, a log\n" +
			"committed with the code, and recalls what matters at the start of every session.\n" +
			"It captures lines starting with " + typed.PrefixList + ".",
		Commands: []*ucli.Command{
			addCommand(env),
			recallCommand(env),
			syncCommand(env),
			rotateCommand(env),
			importCommand(env),
			evalCommand(env),
			sanitizeCommand(env),
			curateCommand(env),
			retractCommand(env),
			resolveCommand(env),
			doctorCommand(env),
			initCommand(env),
			uninstallCommand(env),
			pipelineCommand(env),
			handoffNowCommand(env),
			promoteCommand(env),
			wikiCommand(env),
			mcpCommand(env),
			versionCommand(env),
			hookCommand(),
		},
		CommandNotFound: func(c *ucli.Context, name string) {
			// Reported through the error path by the Before check below.
		},
	}
	app.Before = func(c *ucli.Context) error {
		if c.Args().Present() && app.Command(c.Args().First()) == nil {
			return usagef("unknown command %q (run cairn --help for the list)", c.Args().First())
		}
		return nil
	}
	for _, cmd := range app.Commands {
		cmd.OnUsageError = onUsageError
	}
	return app
}

func onUsageError(_ *ucli.Context, err error, _ bool) error {
	return usagef("%s (run with --help for usage)", strings.TrimPrefix(err.Error(), "flag provided but not defined: "))
}

// intersperse moves a subcommand's flags ahead of its arguments, so
// `cairn add learned "text" --tags a,b` works as the contract writes it.
// urfave/cli v2 stops reading flags at the first argument. Everything after
// a "--" stays an argument.
func intersperse(app *ucli.App, args []string) []string {
	if len(args) < 2 {
		return args
	}
	// Global flags come before the command name.
	i := 1
	for i < len(args) && strings.HasPrefix(args[i], "-") && args[i] != "--" {
		name, _, hasValue := strings.Cut(strings.TrimLeft(args[i], "-"), "=")
		i++
		if name == "dir" && !hasValue && i < len(args) {
			i++
		}
	}
	if i >= len(args) {
		return args
	}
	cmd := app.Command(args[i])
	if cmd == nil {
		return args
	}
	// A subcommand's own (cairn wiki query ...): its flags, after it.
	for i+1 < len(args) && cmd.Command(args[i+1]) != nil {
		i++
		cmd = cmd.Command(args[i])
	}
	isBool := map[string]bool{}
	known := map[string]bool{}
	for _, f := range cmd.Flags {
		_, b := f.(*ucli.BoolFlag)
		for _, n := range f.Names() {
			known[n] = true
			isBool[n] = b
		}
	}
	known["help"], isBool["help"] = true, true
	known["h"], isBool["h"] = true, true
	var global, flags, rest []string
	tail := args[i+1:]
	for j := 0; j < len(tail); j++ {
		a := tail[j]
		if a == "--" {
			rest = append(rest, tail[j+1:]...)
			break
		}
		if len(a) > 1 && a[0] == '-' {
			name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
			if name == "dir" && !known[name] {
				// The global --dir, written after the command.
				global = append(global, a)
				if !hasValue && j+1 < len(tail) {
					global = append(global, tail[j+1])
					j++
				}
				continue
			}
			flags = append(flags, a)
			if known[name] && !isBool[name] && !hasValue && j+1 < len(tail) {
				flags = append(flags, tail[j+1])
				j++
			}
			continue
		}
		rest = append(rest, a)
	}
	out := append([]string{}, args[:i]...)
	out = append(out, global...)
	out = append(out, args[i])
	out = append(out, flags...)
	if len(rest) > 0 {
		out = append(out, "--")
		out = append(out, rest...)
	}
	return out
}

// commandName is the subcommand args run ("" when none).
func commandName(app *ucli.App, args []string) string {
	for i := 1; i < len(args); i++ {
		if a := args[i]; !strings.HasPrefix(a, "-") {
			if app.Command(a) != nil {
				return a
			}
			return ""
		}
		if args[i] == "--dir" {
			i++
		}
	}
	return ""
}

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

	ucli "github.com/urfave/cli/v2"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/helpers/internal/projroot"
	"github.com/cairn-dev/cairn/helpers/internal/session/record"
	"github.com/cairn-dev/cairn/helpers/internal/typed"
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
		record.ShortLived()
		return runHook(args, env)
	}
	app := newApp(env)
	name := commandName(app, args)
	if name == "add" || name == "sync" && !slices.Contains(args, "--full") { // cairn add, cairn --dir P sync
		record.ShortLived()
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
		OnUsageError:         nil, // set below, with the app's flags
		Flags: []ucli.Flag{
			&ucli.StringFlag{Name: "dir", Usage: "the project (default: the git repository of the working directory; env CAIRN_DIR)", EnvVars: []string{projroot.EnvVar}},
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
			showCommand(env),
			rmCommand(env),
			editCommand(env),
			diffCommand(env),
			checkCommand(env),
			logCommand(env),
			reportCommand(env),
			uiCommand(env),
			resolveCommand(env),
			doctorCommand(env),
			initCommand(env),
			uninstallCommand(env),
			pipelineCommand(env),
			guardsCommand(env),
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
	app.OnUsageError = usageError(app.Flags)
	setUsageErrors(app.Commands)
	return app
}

// setUsageErrors gives every command and subcommand the messages of
// usageError, for its own flags.
func setUsageErrors(cmds []*ucli.Command) {
	for _, cmd := range cmds {
		cmd.OnUsageError = usageError(cmd.Flags)
		setUsageErrors(cmd.Subcommands)
	}
}

// usageError turns urfave/cli's flag errors ("flag provided but not
// defined: -limt", `invalid value "abc" for flag -limit: parse error`)
// into messages that name the flag as it is written, with the closest
// flag of flags or the kind of value it takes.
func usageError(flags []ucli.Flag) ucli.OnUsageErrorFunc {
	return func(_ *ucli.Context, err error, _ bool) error {
		msg := err.Error()
		if name, ok := strings.CutPrefix(msg, "flag provided but not defined: "); ok {
			name = strings.TrimLeft(name, "-")
			out := "unknown flag " + dashed(name)
			if s := closestFlag(flags, name); s != "" {
				out += " (did you mean " + s + "?)"
			}
			return usagef("%s; run with --help for usage", out)
		}
		var value, name string
		if _, err := fmt.Sscanf(msg, "invalid value %q for flag -%s", &value, &name); err == nil {
			name = strings.TrimSuffix(name, ":")
			return usagef("invalid value %q for %s: want %s", value, dashed(name), valueKind(flags, name))
		}
		return usagef("%s (run with --help for usage)", msg)
	}
}

// dashed writes a flag's name as it is typed: -h, --limit.
func dashed(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// closestFlag is the flag of flags nearest to name (urfave/cli's
// Jaro-Winkler suggestion), when it is near enough to be a slip: the same
// first letter, or one name inside the other.
func closestFlag(flags []ucli.Flag, name string) string {
	if ucli.SuggestFlag == nil || name == "" {
		return ""
	}
	s := ucli.SuggestFlag(flags, name, false)
	bare := strings.TrimLeft(s, "-")
	if bare == "" || bare[0] != name[0] && !strings.Contains(bare, name) && !strings.Contains(name, bare) {
		return ""
	}
	return s
}

// valueKind says what a flag's value must be.
func valueKind(flags []ucli.Flag, name string) string {
	for _, f := range flags {
		if !slices.Contains(f.Names(), name) {
			continue
		}
		switch f.(type) {
		case *ucli.IntFlag, *ucli.Int64Flag, *ucli.UintFlag, *ucli.Uint64Flag:
			return "a whole number"
		case *ucli.Float64Flag:
			return "a number"
		case *ucli.DurationFlag:
			return "a duration such as 30s or 2m"
		case *ucli.BoolFlag:
			return "true or false"
		case *ucli.TimestampFlag:
			return "a time"
		}
	}
	return "a value of its kind (see --help)"
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

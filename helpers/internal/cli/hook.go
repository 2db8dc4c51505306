package cli

import (
	"strings"

	ucli "github.com/urfave/cli/v2"

	"github.com/cairn-dev/cairn/helpers/internal/agent"
	registered "github.com/cairn-dev/cairn/helpers/internal/agent/adapters"
	"github.com/cairn-dev/cairn/helpers/internal/agent/claude"
	"github.com/cairn-dev/cairn/helpers/internal/session"
	"github.com/cairn-dev/cairn/helpers/internal/session/record"
)

// hookCommand is listed for --help; Main dispatches `cairn hook` itself so
// that nothing of the CLI framework can print usage on stdout or exit
// non-zero from a hook.
func hookCommand() *ucli.Command {
	names := make([]string, len(claude.Events))
	for i, h := range claude.Events {
		names[i] = h.Event
	}
	return &ucli.Command{
		Name:      "hook",
		Usage:     "Claude Code hook entry point: reads the event JSON on stdin (used by the plugin)",
		ArgsUsage: "[AGENT] EVENT",
		Description: "EVENT is Claude Code's event name: " + strings.Join(names, ", ") + ".\n" +
			"AGENT is an adapter's name (claude, the default).\n" +
			"A hook always exits 0 and prints nothing but its protocol JSON; errors go to\n" +
			".cairn/cache/cairn.log. The project is --dir (or CAIRN_DIR) when given, else\n" +
			"the git repository (or .cairn) holding the agent's project directory, else\n" +
			"the event's working directory, else the hook's.",
	}
}

// runHook runs `cairn hook EVENT` for Claude Code, or `cairn hook AGENT
// EVENT` for the adapter named AGENT, and always returns 0: it never
// blocks the agent and never breaks the session.
func runHook(args []string, env Env) int {
	a := registered.Default()
	name := ""
	if len(args) > 2 {
		name = args[2]
	}
	if len(args) > 3 {
		if named, ok := agent.Find(adapters, args[2]); ok {
			a, name = named, args[3]
		}
	}
	// The project is package projroot's: --dir, CAIRN_DIR (read through
	// Getenv), the agent's, the payload's cwd.
	out := session.Hook(a, name, env.Stdin, record.Env{
		Getenv:  env.Getenv,
		Stderr:  env.Stderr,
		Dir:     env.Dir,
		Project: env.Project,
	})
	if len(out) > 0 {
		env.Stdout.Write(out)
	}
	return exitOK
}

// dirHook recognises `cairn --dir P hook EVENT` (or --dir=P) and returns
// P and the arguments without it.
func dirHook(args []string) (dir string, rest []string, ok bool) {
	switch {
	case len(args) >= 5 && args[1] == "--dir" && args[3] == "hook":
		return args[2], append([]string{args[0]}, args[3:]...), true
	case len(args) >= 4 && strings.HasPrefix(args[1], "--dir=") && args[2] == "hook":
		return strings.TrimPrefix(args[1], "--dir="), append([]string{args[0]}, args[2:]...), true
	}
	return "", nil, false
}

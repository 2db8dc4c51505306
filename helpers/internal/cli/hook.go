package cli

import (
	ucli "github.com/urfave/cli/v2"
)

// hookCommand is listed for --help; Main dispatches `cairn hook` itself so
// that nothing of the CLI framework can print usage on stdout or exit
// non-zero from a hook.
func hookCommand() *ucli.Command {
	return &ucli.Command{
		Name:      "hook",
		Usage:     "Claude Code hook entry point: reads the event JSON on stdin (used by the plugin)",
		ArgsUsage: "EVENT",
	}
}

// runHook runs a hook. It always returns 0.
func runHook(args []string, env Env) int {
	return exitOK
}

package cli

import (
	"fmt"

	ucli "github.com/urfave/cli/v2"

	"github.com/cairn-dev/cairn/helpers/internal/userconf"
)

func guardsCommand(env Env) *ucli.Command {
	return &ucli.Command{
		Name:      "guards",
		Usage:     "turn the must-check guards on or off for yourself (off by default)",
		ArgsUsage: "[on|off]",
		Description: "A setting in your own config ($XDG_CONFIG_HOME/cairn/config.json, \"guards\": \"ask\"),\n" +
			"for every repository of yours. With guards on, in a session you sit at (not claude -p,\n" +
			"not bypassPermissions), Claude Code asks you to confirm before a tool call that would\n" +
			"change what a team must-check protects: an edit or write of its file, or the command\n" +
			"it names. Never before a read, a search or a listing; each must-check once per\n" +
			"session, at most 3 questions a session. A team's .cairn/config.json can only\n" +
			"recommend guards (cairn doctor says so); nothing committed turns them on.\n" +
			"Without an argument, says whether they are on.",
		Action: func(c *ucli.Context) error {
			switch arg := c.Args().First(); arg {
			case "on", "off":
				if c.NArg() > 1 {
					return usagef("guards takes one argument: on or off")
				}
				path, err := userconf.SetGuards(env.Getenv, arg == "on")
				if err != nil {
					return err
				}
				fmt.Fprintf(env.Stdout, "must-check guards %s for you (%s)\n", arg, path)
				return nil
			case "":
				u, err := userconf.Load(env.Getenv)
				if err != nil {
					return err
				}
				state := "off"
				if u.Config.Asks() {
					state = "on"
				}
				fmt.Fprintf(env.Stdout, "must-check guards %s for you (%s)\n", state, u.Dirs.Config+"/config.json")
				return nil
			default:
				return usagef("unknown argument %q: guards on or guards off", arg)
			}
		},
	}
}

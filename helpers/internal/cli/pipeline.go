package cli

import (
	"fmt"

	"github.com/cairn-dev/cairn/helpers/internal/pipeline"
	ucli "github.com/urfave/cli/v2"
)

func pipelineCommand(env Env) *ucli.Command {
	return &ucli.Command{
		Name:      "pipeline",
		Usage:     "turn the personal session pipeline on or off (off by default: it spends model calls)",
		ArgsUsage: "[on|off]",
		Description: "A setting in your own config ($XDG_CONFIG_HOME/cairn/config.json), for every\n" +
			"repository of yours. Without an argument, says whether it is on. The pipeline\n" +
			"exports sessions as markdown into your knowledge directory ($XDG_DATA_HOME/cairn,\n" +
			"or knowledge_dir in the config).",
		Action: func(c *ucli.Context) error {
			switch c.Args().First() {
			case "on", "off":
				if c.NArg() > 1 {
					return usagef("pipeline takes one argument: on or off")
				}
				path, err := pipeline.Turn(env.Getenv, c.Args().First() == "on")
				if err != nil {
					return err
				}
				fmt.Fprintf(env.Stdout, "session pipeline %s (%s)\n", c.Args().First(), path)
				return nil
			case "":
				on, path, knowledge, err := pipeline.State(env.Getenv)
				if err != nil {
					return err
				}
				state := "off"
				if on {
					state = "on"
				}
				fmt.Fprintf(env.Stdout, "session pipeline %s (%s); knowledge directory %s\n", state, path, knowledge)
				return nil
			}
			return usagef("unknown argument %q: pipeline on or pipeline off", c.Args().First())
		},
	}
}

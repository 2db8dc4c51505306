package cli

import (
	"fmt"

	ucli "github.com/urfave/cli/v2"

	"github.com/cairn-dev/cairn/helpers/internal/entryjson"
	"github.com/cairn-dev/cairn/helpers/internal/pipeline"
	"github.com/cairn-dev/cairn/helpers/internal/userconf"
)

func pipelineCommand(env Env) *ucli.Command {
	return &ucli.Command{
		Name:      "pipeline",
		Usage:     "turn the personal session pipeline on or off, or see how it does (off by default: it spends model calls)",
		ArgsUsage: "[on|off] | status",
		Description: "A setting in your own config ($XDG_CONFIG_HOME/cairn/config.json), for every\n" +
			"repository of yours. Without an argument, says whether it is on. When it is on,\n" +
			"each session (Stop, SessionEnd, PreCompact) is queued and a background worker\n" +
			"exports it as markdown into your knowledge directory ($XDG_DATA_HOME/cairn, or\n" +
			"knowledge_dir in the config) and asks a model (claude -p by default; model_command\n" +
			"in the config replaces it) for its decisions, failures, handoff and learnings.\n" +
			"Those stay yours: the next session on the branch sees them; cairn promote shares them.",
		Subcommands: []*ucli.Command{pipelineStatusCommand(env), {
			Name:  "work",
			Usage: "run the worker now: drain the queue (the hooks start it in the background)",
			Action: func(c *ucli.Context) error {
				w, err := pipeline.NewWorker(env.Getenv, readers(), env.Stderr)
				if err != nil {
					return err
				}
				return w.Run()
			},
		}},
		Action: func(c *ucli.Context) error {
			switch c.Args().First() {
			case "on", "off":
				if c.NArg() > 1 {
					return usagef("pipeline takes one argument: on or off")
				}
				return pipeline.Turn(env.Getenv, c.Args().First() == "on", env.Stdout)
			case "":
				return pipeline.WriteState(env.Getenv, env.Stdout)
			}
			return usagef("unknown argument %q: pipeline on or pipeline off", c.Args().First())
		},
	}
}

// readers are the adapters' transcript readers, by adapter name.
func readers() map[string]pipeline.Reader {
	out := map[string]pipeline.Reader{}
	for _, a := range adapters {
		out[a.Name()] = a.ReadTranscript
	}
	return out
}

func handoffNowCommand(env Env) *ucli.Command {
	return &ucli.Command{
		Name:  "handoff-now",
		Usage: "queue this project's current session for distillation now, past the pipeline's gates",
		Description: "What the end of a session does, by hand: the latest session started in this\n" +
			"project is queued and the worker started (with --wait, run here until the queue is\n" +
			"empty, then the session's outcome printed: distilled, skipped or failed, and why).",
		Flags: []ucli.Flag{&ucli.BoolFlag{Name: "wait", Usage: "run the worker here, wait for it and print the outcome"}},
		Action: func(c *ucli.Context) error {
			p, err := findProject(c, env)
			if err != nil {
				return err
			}
			id, err := pipeline.HandoffNow(env.Getenv, p.Root, readers(), c.Bool("wait"), env.Stderr)
			if err != nil {
				return err
			}
			fmt.Fprintf(env.Stdout, "queued session %s\n", id)
			if c.Bool("wait") {
				o, ok := pipeline.LastOutcome(env.Getenv, id)
				if !ok {
					return fmt.Errorf("session %s: the worker left no outcome (see %s)", id, "cairn pipeline status")
				}
				fmt.Fprintf(env.Stdout, "%s\n", o.Line())
			}
			return nil
		},
	}
}

func promoteCommand(env Env) *ucli.Command {
	return &ucli.Command{
		Name:      "promote",
		Usage:     "add chosen personal entries (distilled decisions and failures) to the team log",
		ArgsUsage: "[KEY...]",
		Description: "Without keys, lists your personal entries of this project. With keys, adds\n" +
			"those entries to .cairn/knowledge.jsonl through the normal insert (redacted,\n" +
			"deduplicated, in order), keeping their fields; commit the log to share them.",
		Flags: []ucli.Flag{&ucli.BoolFlag{Name: "json", Usage: "print JSON"}},
		Action: func(c *ucli.Context) error {
			p, err := findProject(c, env)
			if err != nil {
				return err
			}
			u, err := userconf.Load(env.Getenv)
			own, ok := pipeline.PersonalFor(u, err, p.Root)
			if !ok {
				return fmt.Errorf("%w: cannot find your knowledge directory", pipeline.ErrNotPersonal)
			}
			if c.NArg() == 0 {
				entries, err := own.Entries()
				if err != nil {
					return err
				}
				if c.Bool("json") {
					return writeJSON(env.Stdout, entryjson.List(entries))
				}
				pipeline.WriteEntries(env.Stdout, env.Stderr, entries)
				return nil
			}
			done, err := pipeline.Promote(own, c.Args().Slice(), p.Add)
			if err != nil {
				return err
			}
			if c.Bool("json") {
				return writeJSON(env.Stdout, done)
			}
			pipeline.WritePromoted(env.Stdout, done)
			return nil
		},
	}
}

func pipelineStatusCommand(env Env) *ucli.Command {
	return &ucli.Command{
		Name:  "status",
		Usage: "on or off, the model command and whether it is found, pending tasks, recent outcomes",
		Description: "Reads your own state ($XDG_CONFIG_HOME/cairn/config.json and the queue under\n" +
			"$XDG_STATE_HOME/cairn/queue): the tasks waiting for the worker and, newest first,\n" +
			"the last outcome of each recent session: distilled, skipped and why, failed and why.",
		Flags: []ucli.Flag{
			&ucli.IntFlag{Name: "last", Value: 10, Usage: "at most N recent sessions"},
			&ucli.BoolFlag{Name: "json", Usage: "print JSON"},
		},
		Action: func(c *ucli.Context) error {
			if c.NArg() > 0 {
				return usagef("pipeline status takes no argument")
			}
			if c.Int("last") < 1 {
				return usagef("--last must be at least 1")
			}
			st, err := pipeline.ReadStatus(env.Getenv, c.Int("last"))
			if err != nil {
				return err
			}
			if c.Bool("json") {
				return writeJSON(env.Stdout, st)
			}
			pipeline.WriteStatus(env.Stdout, st)
			return nil
		},
	}
}

package cli

import (
	"errors"

	ucli "github.com/urfave/cli/v2"

	"github.com/cairn-dev/cairn/helpers/internal/agent"
	registered "github.com/cairn-dev/cairn/helpers/internal/agent/adapters"
	"github.com/cairn-dev/cairn/helpers/internal/fsx"
	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
	"github.com/cairn-dev/cairn/helpers/internal/setup"
)

// adapters are the agents cairn can wire a project for: each is a flag of
// init and uninstall (--claude), and doctor checks each one's wiring: the
// agent registry's (package agent/adapters).
var adapters = registered.All()

// adapterFlags are one boolean flag per adapter, usage from verb.
func adapterFlags(verb string) []ucli.Flag {
	var flags []ucli.Flag
	for _, a := range adapters {
		flags = append(flags, &ucli.BoolFlag{Name: a.Name(), Usage: verb + " " + a.Title()})
	}
	return flags
}

// chosen are the adapters whose flags are set.
func chosen(c *ucli.Context) []agent.Adapter {
	var out []agent.Adapter
	for _, a := range adapters {
		if c.Bool(a.Name()) {
			out = append(out, a)
		}
	}
	return out
}

func initCommand(env Env) *ucli.Command {
	return &ucli.Command{
		Name:  "init",
		Usage: "provision .cairn/ in the project, and with an agent's flag (--claude, --codex, ...) its wiring",
		Description: "Without flags: the log, .gitattributes and .gitignore under .cairn/.\n" +
			"An agent's flag also writes the committed launcher .cairn/hook and the agent's own hooks\n" +
			"that run it (--claude: .claude/settings.json; --codex: .codex/hooks.json; --cursor:\n" +
			".cursor/hooks.json; --gemini: .gemini/settings.json; --opencode: an OpenCode plugin), so\n" +
			"every teammate who pulls gets the memory with their own cairn (and one without cairn is\n" +
			"told in the session how to install it, where the agent lets a hook say so). Flags combine.\n" +
			"Nothing written names this machine. Running it again changes nothing.",
		Flags: append(adapterFlags("wire the project (committed files) for"),
			&ucli.StringFlag{Name: "install-hint", Usage: "the command that installs cairn on a teammate's machine, recorded in .cairn/config.json\n" +
				"and shown to a teammate without cairn (default: how this cairn was installed, when it knows)"}),
		Action: func(c *ucli.Context) error {
			if c.IsSet("install-hint") {
				if err := knowledge.CheckInstallHint(c.String("install-hint")); err != nil {
					return installHintUsage(err) // before anything is written
				}
			}
			p, err := findProject(c, env)
			if err != nil {
				return err
			}
			return setup.Init(setup.Options{Project: p, Agents: chosen(c), All: adapters, Out: env.Stdout},
				c.String("install-hint"), c.IsSet("install-hint"))
		},
	}
}

// installHintUsage is the usage error of an --install-hint that
// [knowledge.CheckInstallHint] refuses, with a real example.
func installHintUsage(err error) error {
	why := ""
	if errors.Is(err, knowledge.ErrHintRunsRemote) {
		why = " (a teammate would run whatever that address serves; name a command they can read first, such as a clone and ./install.sh)"
	}
	return usagef("--install-hint: %v%s; give the command a teammate runs, e.g. --install-hint %s", err, why, fsx.ShellQuote(knowledge.HintExample))
}

func uninstallCommand(env Env) *ucli.Command {
	return &ucli.Command{
		Name:  "uninstall",
		Usage: "remove the project's agent wiring that cairn init added (.cairn/ and its knowledge stay)",
		Description: "An agent's flag (--claude, --codex, ...) removes cairn's hooks from that agent's files\n" +
			"and nothing else: other hooks and keys stay as they were; a file or directory left empty\n" +
			"is removed; --all does it for every agent. The launcher .cairn/hook goes once no agent's\n" +
			"wiring runs it. The knowledge in .cairn/ is kept.",
		Flags: append(adapterFlags("remove the wiring for"),
			&ucli.BoolFlag{Name: "all", Usage: "remove every agent's wiring that cairn init added"}),
		Action: func(c *ucli.Context) error {
			unwire := chosen(c)
			if c.Bool("all") {
				unwire = adapters
			}
			if len(unwire) == 0 {
				return usagef("uninstall needs what to remove, e.g. cairn uninstall --claude, or --all")
			}
			p, err := findProject(c, env)
			if err != nil {
				return err
			}
			return setup.Uninstall(setup.Options{Project: p, Agents: unwire, All: adapters, Out: env.Stdout}, c.Bool("all"))
		},
	}
}

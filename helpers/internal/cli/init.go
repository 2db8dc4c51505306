package cli

import (
	"errors"
	"fmt"
	"strings"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/helpers/internal/agent"
	registered "github.com/cairn-dev/cairn/helpers/internal/agent/adapters"
	"github.com/cairn-dev/cairn/helpers/internal/agent/launcher"
	"github.com/cairn-dev/cairn/helpers/internal/fsx"
	"github.com/cairn-dev/cairn/helpers/internal/gitx"
	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
	ucli "github.com/urfave/cli/v2"
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
			existed := p.Store.Exists()
			if err := p.Store.Provision(); err != nil {
				return err
			}
			if existed {
				fmt.Fprintf(env.Stdout, "%s already provisioned\n", p.Store.Dir)
			} else {
				fmt.Fprintf(env.Stdout, "provisioned %s\n", p.Store.Dir)
			}
			recorded, err := recordInstallHint(env, p.Store, c.String("install-hint"), c.IsSet("install-hint"))
			if err != nil {
				return err
			}
			wire := chosen(c)
			paths := map[string]bool{}
			var commit []string
			for _, a := range wire {
				changed, err := a.Wire(p.Root, p.Store.Root())
				if err != nil {
					return err
				}
				if changed {
					fmt.Fprintf(env.Stdout, "wired %s: %s\n", a.Title(), a.Wiring())
				} else {
					fmt.Fprintf(env.Stdout, "%s wiring already in place\n", a.Title())
				}
				for _, path := range a.Paths() {
					if !paths[path] {
						paths[path] = true
						commit = append(commit, path)
					}
				}
			}
			if recorded && !paths[knowledge.DirName] {
				// The launcher names the hint, so recording it rewrote one
				// that was there.
				commit = append([]string{knowledge.DirName + "/" + knowledge.ConfigName, launcher.Path}, commit...)
			}
			if commit = toCommit(p.Root, p.IsGit, commit); len(commit) > 0 {
				fmt.Fprintf(env.Stdout, "commit it so teammates get it with a pull:\n  git add %s && git commit -m \"Add cairn team memory\"\n", strings.Join(commit, " "))
			}
			return nil
		},
	}
}

// toCommit is those of paths (relative to the project's root) that git sees
// something to commit under: init prints the commit for them, and nothing
// when all are committed already (a second run, a teammate's pull), since
// that commit would fail with "nothing to commit". Outside a git work tree,
// or when git cannot say, there is no commit to print.
func toCommit(root string, isGit bool, paths []string) []string {
	if !isGit || len(paths) == 0 {
		return nil
	}
	changed, err := gitx.Uncommitted(root, paths...)
	if err != nil {
		return nil
	}
	return changed
}

// recordInstallHint records in .cairn/config.json how a teammate installs
// cairn: given (--install-hint) when set, else how this binary was
// installed when the config names no route yet. A launcher already
// there is rewritten to name it. It reports whether it wrote the config.
func recordInstallHint(env Env, store *knowledge.Store, given string, set bool) (bool, error) {
	cfg, err := store.LoadConfig()
	if err != nil {
		return false, err
	}
	hint := knowledge.CleanInstallHint(given)
	switch {
	case set:
		// CheckInstallHint passed it (the command's first step).
	case cfg.InstallHint != "":
		return false, nil
	default:
		if hint = cairn.InstallHint(); hint == "" {
			fmt.Fprintf(env.Stdout, "teammates without cairn will be told to clone cairn and run ./install.sh; name the exact command with, e.g.:\n  cairn init --install-hint %s\n", fsx.ShellQuote(knowledge.HintExample))
			return false, nil
		}
	}
	changed, err := store.SetInstallHint(hint)
	if err != nil || !changed {
		return false, err
	}
	fmt.Fprintf(env.Stdout, "recorded how teammates install cairn: %s\n  (in %s; change it with cairn init --install-hint %s)\n", hint, knowledge.DirName+"/"+knowledge.ConfigName, fsx.ShellQuote(knowledge.HintExample))
	if st, _ := launcher.Check(store.Root()); st != launcher.Missing {
		if _, err := launcher.Write(store.Root()); err != nil {
			return true, err
		}
	}
	return true, nil
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
			removedAny := false
			for _, a := range unwire {
				removed, err := a.Unwire(p.Root, p.Store.Root())
				if err != nil {
					return err
				}
				if len(removed) == 0 {
					if !c.Bool("all") {
						fmt.Fprintf(env.Stdout, "no %s wiring of cairn's here; nothing removed\n", a.Title())
					}
					continue
				}
				removedAny = true
				fmt.Fprintf(env.Stdout, "removed %s; commit the change so teammates' sessions stop running it\n", strings.Join(removed, " and "))
			}
			if c.Bool("all") && !removedAny {
				fmt.Fprintf(env.Stdout, "no agent's wiring of cairn's here; nothing removed\n")
			}
			return removeLauncher(env, p.Root, p.Store.Root())
		},
	}
}

// removeLauncher deletes the committed launcher once no agent's wiring in
// the project runs it.
func removeLauncher(env Env, project string, cairnDir fsx.Root) error {
	for _, a := range adapters {
		if a.Uses(project) {
			return nil
		}
	}
	removed, err := launcher.Remove(cairnDir)
	if removed {
		fmt.Fprintf(env.Stdout, "removed %s (no agent's wiring runs it now)\n", launcher.Path)
	}
	return err
}

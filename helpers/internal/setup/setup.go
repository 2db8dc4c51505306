// Package setup owns cairn init and cairn uninstall: .cairn provisioned,
// the install hint recorded for teammates, each chosen agent's wiring
// written or removed with the committed launcher, and the commit to
// print for what git sees changed. What it did is written to Out.
package setup

import (
	"fmt"
	"io"
	"strings"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/helpers/internal/agent"
	"github.com/cairn-dev/cairn/helpers/internal/agent/launcher"
	"github.com/cairn-dev/cairn/helpers/internal/fsx"
	"github.com/cairn-dev/cairn/helpers/internal/gitx"
	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
	"github.com/cairn-dev/cairn/helpers/internal/project"
)

// Options are what init and uninstall work with.
type Options struct {
	Project *project.Project
	// Agents are the agents to wire or unwire; All every agent cairn
	// knows (the launcher stays while one of them runs it).
	Agents, All []agent.Adapter
	Out         io.Writer
	// Uncommitted lists those of paths git sees something to commit
	// under (gitx.Uncommitted when nil).
	Uncommitted func(root string, paths ...string) ([]string, error)
}

// Init provisions the project's .cairn, records how a teammate installs
// cairn (hint when set, else how this binary was installed), and wires
// the agents; it ends with the commit that shares what changed. hint
// passed knowledge.CheckInstallHint.
func Init(o Options, hint string, set bool) error {
	p, env := o.Project, o.Out
	existed := p.Store.Exists()
	if err := p.Store.Provision(); err != nil {
		return err
	}
	if existed {
		fmt.Fprintf(env, "%s already provisioned\n", p.Store.Dir)
	} else {
		fmt.Fprintf(env, "provisioned %s\n", p.Store.Dir)
	}
	recorded, err := recordInstallHint(env, p.Store, hint, set)
	if err != nil {
		return err
	}
	paths := map[string]bool{}
	var commit []string
	for _, a := range o.Agents {
		changed, err := a.Wire(p.Root, p.Store.Root())
		if err != nil {
			return err
		}
		if changed {
			fmt.Fprintf(env, "wired %s: %s\n", a.Title(), a.Wiring())
		} else {
			fmt.Fprintf(env, "%s wiring already in place\n", a.Title())
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
	if commit = o.toCommit(commit); len(commit) > 0 {
		fmt.Fprintf(env, "commit it so teammates get it with a pull:\n  git add %s && git commit -m \"Add cairn team memory\"\n", strings.Join(commit, " "))
	}
	return nil
}

// toCommit is those of paths (relative to the project's root) that git sees
// something to commit under: init prints the commit for them, and nothing
// when all are committed already (a second run, a teammate's pull), since
// that commit would fail with "nothing to commit". Outside a git work tree,
// or when git cannot say, there is no commit to print.
func (o Options) toCommit(paths []string) []string {
	if !o.Project.IsGit || len(paths) == 0 {
		return nil
	}
	uncommitted := o.Uncommitted
	if uncommitted == nil {
		uncommitted = gitx.Uncommitted
	}
	changed, err := uncommitted(o.Project.Root, paths...)
	if err != nil {
		return nil
	}
	return changed
}

// recordInstallHint records in .cairn/config.json how a teammate installs
// cairn: given (--install-hint) when set, else how this binary was
// installed when the config names no route yet. A launcher already
// there is rewritten to name it. It reports whether it wrote the config.
func recordInstallHint(out io.Writer, store *knowledge.Store, given string, set bool) (bool, error) {
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
			fmt.Fprintf(out, "teammates without cairn will be told to clone cairn and run ./install.sh; name the exact command with, e.g.:\n  cairn init --install-hint %s\n", fsx.ShellQuote(knowledge.HintExample))
			return false, nil
		}
	}
	changed, err := store.SetInstallHint(hint)
	if err != nil || !changed {
		return false, err
	}
	fmt.Fprintf(out, "recorded how teammates install cairn: %s\n  (in %s; change it with cairn init --install-hint %s)\n", hint, knowledge.DirName+"/"+knowledge.ConfigName, fsx.ShellQuote(knowledge.HintExample))
	if st, _ := launcher.Check(store.Root()); st != launcher.Missing {
		if _, err := launcher.Write(store.Root()); err != nil {
			return true, err
		}
	}
	return true, nil
}

// Uninstall removes the agents' wiring of cairn's (all: every agent's,
// saying nothing of those that had none), then the launcher once no
// agent's wiring runs it.
func Uninstall(o Options, all bool) error {
	p, out := o.Project, o.Out
	removedAny := false
	for _, a := range o.Agents {
		removed, err := a.Unwire(p.Root, p.Store.Root())
		if err != nil {
			return err
		}
		if len(removed) == 0 {
			if !all {
				fmt.Fprintf(out, "no %s wiring of cairn's here; nothing removed\n", a.Title())
			}
			continue
		}
		removedAny = true
		fmt.Fprintf(out, "removed %s; commit the change so teammates' sessions stop running it\n", strings.Join(removed, " and "))
	}
	if all && !removedAny {
		fmt.Fprintf(out, "no agent's wiring of cairn's here; nothing removed\n")
	}
	return o.removeLauncher()
}

// removeLauncher deletes the committed launcher once no agent's wiring in
// the project runs it.
func (o Options) removeLauncher() error {
	for _, a := range o.All {
		if a.Uses(o.Project.Root) {
			return nil
		}
	}
	removed, err := launcher.Remove(o.Project.Store.Root())
	if removed {
		fmt.Fprintf(o.Out, "removed %s (no agent's wiring runs it now)\n", launcher.Path)
	}
	return err
}

package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/helpers/internal/fsx"
	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
	"github.com/cairn-dev/cairn/helpers/internal/settings"
	ucli "github.com/urfave/cli/v2"
)

func initCommand(env Env) *ucli.Command {
	return &ucli.Command{
		Name:  "init",
		Usage: "provision .cairn/ in the project, and with --claude the project's Claude Code wiring",
		Description: "Without flags: the log, .gitattributes and .gitignore under .cairn/.\n" +
			"--claude also writes the committed launcher .cairn/hook and adds hooks that run it to\n" +
			".claude/settings.json, so every teammate who pulls gets the memory with their own cairn\n" +
			"(and one without cairn is told in the session how to install it). Nothing written names\n" +
			"this machine. Running it again changes nothing.",
		Flags: []ucli.Flag{
			&ucli.BoolFlag{Name: "claude", Usage: "wire the project for Claude Code (committed .claude/settings.json hooks)"},
		},
		Action: func(c *ucli.Context) error {
			p, err := findProject(c, env)
			if err != nil {
				return err
			}
			existed := p.store.Exists()
			if err := p.store.Provision(); err != nil {
				return err
			}
			if existed {
				fmt.Fprintf(env.Stdout, "%s already provisioned\n", p.store.Dir)
			} else {
				fmt.Fprintf(env.Stdout, "provisioned %s\n", p.store.Dir)
			}
			if !c.Bool("claude") {
				return nil
			}
			changed, err := wireClaude(p)
			if err != nil {
				return err
			}
			if changed {
				fmt.Fprintln(env.Stdout, "wired Claude Code: .cairn/hook (the launcher), its hooks in .claude/settings.json, and /recall, /learn, /curate and the knowledge-researcher agent in .claude/")
			} else {
				fmt.Fprintln(env.Stdout, "Claude Code wiring already in place")
			}
			fmt.Fprintln(env.Stdout, "commit it so teammates get it with a pull:\n  git add .cairn .claude && git commit -m \"Add cairn team memory\"")
			return nil
		},
	}
}

// installProjectFiles writes the plugin's slash commands and agent into
// .claude/commands and .claude/agents, so /recall, /learn and /curate work
// by those names in the project; a file of the same name that cairn did
// not install is left alone. It reports whether it wrote.
func installProjectFiles(claudeDir fsx.Root) (bool, error) {
	wrote := false
	err := fs.WalkDir(cairn.PluginFiles, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		src, err := cairn.PluginFiles.ReadFile(path)
		if err != nil {
			return err
		}
		want := settings.ProjectFile(src)
		cur, err := claudeDir.ReadFile(path, knowledge.MaxConfigBytes)
		switch {
		case err == nil && (bytes.Equal(cur, want) || !settings.IsProjectFile(cur)):
			return nil // current, or the project's own file
		case err != nil && !errors.Is(err, fs.ErrNotExist):
			return err
		}
		wrote = true
		return claudeDir.WriteAtomic(path, want, 0o644)
	})
	return wrote, err
}

// removeProjectFiles removes the commands and agent that init --claude
// installed (those that carry its mark), and the directories they leave
// empty; it returns how many it removed.
func removeProjectFiles(claudeDir fsx.Root) (int, error) {
	n := 0
	dirs := map[string]bool{}
	err := fs.WalkDir(cairn.PluginFiles, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		cur, err := claudeDir.ReadFile(path, knowledge.MaxConfigBytes)
		if err != nil || !settings.IsProjectFile(cur) {
			return nil
		}
		if err := claudeDir.Remove(path); err != nil {
			return err
		}
		dirs[filepath.Dir(path)] = true
		n++
		return nil
	})
	for d := range dirs {
		os.Remove(claudeDir.Path(d)) // only if empty
	}
	return n, err
}

// wireClaude writes the committed launcher and the project's hooks that
// run it, each only where it differs, and reports whether it wrote.
func wireClaude(p *project) (bool, error) {
	root := p.store.Root()
	launcher := []byte(settings.Launcher)
	cur, err := p.store.ReadFile(knowledge.LauncherName, knowledge.MaxConfigBytes)
	if err != nil {
		return false, err
	}
	changed := false
	if string(cur) != string(launcher) {
		if err := root.WriteAtomic(knowledge.LauncherName, launcher, 0o755); err != nil {
			return false, err
		}
		changed = true
	}
	if err := root.Chmod(knowledge.LauncherName, 0o755); err != nil {
		return false, err
	}
	claudeDir := fsx.NewRoot(filepath.Join(p.root, ".claude"))
	data, err := claudeDir.ReadFile("settings.json", knowledge.MaxConfigBytes)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, err
	}
	out, wrote, err := settings.Project(data)
	if err != nil {
		return false, hinted(fmt.Errorf(".claude/settings.json: %w", err), "fix the file by hand, then run again")
	}
	files, err := installProjectFiles(claudeDir)
	if err != nil {
		return false, err
	}
	changed = changed || files
	if wrote {
		if len(bytes.TrimSpace(data)) == 0 {
			// A file of cairn's own making: indented, as people write it.
			var buf bytes.Buffer
			if json.Indent(&buf, out, "", "  ") == nil {
				out = buf.Bytes()
			}
		}
		if err := claudeDir.WriteAtomic("settings.json", out, 0o644); err != nil {
			return false, err
		}
		changed = true
	}
	return changed, nil
}

func uninstallCommand(env Env) *ucli.Command {
	return &ucli.Command{
		Name:  "uninstall",
		Usage: "remove the project's agent wiring that cairn init added (.cairn/ and its knowledge stay)",
		Description: "--claude removes the launcher .cairn/hook and cairn's hooks from .claude/settings.json,\n" +
			"and nothing else: other hooks and keys stay as they were; a settings.json or .claude/\n" +
			"left empty is removed. The knowledge in .cairn/ is kept.",
		Flags: []ucli.Flag{
			&ucli.BoolFlag{Name: "claude", Usage: "remove the Claude Code wiring"},
		},
		Action: func(c *ucli.Context) error {
			if !c.Bool("claude") {
				return usagef("uninstall needs what to remove, e.g. cairn uninstall --claude")
			}
			p, err := findProject(c, env)
			if err != nil {
				return err
			}
			removed, err := unwireClaude(p)
			if err != nil {
				return err
			}
			if len(removed) == 0 {
				fmt.Fprintln(env.Stdout, "no Claude Code wiring of cairn's here; nothing removed")
				return nil
			}
			fmt.Fprintf(env.Stdout, "removed %s; commit the change so teammates' sessions stop running it\n", strings.Join(removed, " and "))
			return nil
		},
	}
}

// unwireClaude removes what wireClaude added and says what it removed.
func unwireClaude(p *project) ([]string, error) {
	var removed []string
	claudeDir := fsx.NewRoot(filepath.Join(p.root, ".claude"))
	data, err := claudeDir.ReadFile("settings.json", knowledge.MaxConfigBytes)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	if data != nil {
		out, changed, err := settings.Uninstall(data)
		if err != nil {
			return nil, hinted(fmt.Errorf(".claude/settings.json: %w", err), "fix the file by hand, then run again")
		}
		if changed {
			var rest map[string]any
			if json.Unmarshal(out, &rest) == nil && len(rest) == 0 {
				// Nothing but cairn's hooks was there: no empty residue.
				if err := claudeDir.Remove("settings.json"); err != nil {
					return nil, err
				}
				os.Remove(claudeDir.Dir()) // only if empty
			} else if err := claudeDir.WriteAtomic("settings.json", out, 0o644); err != nil {
				return nil, err
			}
			removed = append(removed, "cairn's hooks from .claude/settings.json")
		}
	}
	if n, err := removeProjectFiles(claudeDir); err != nil {
		return nil, err
	} else if n > 0 {
		removed = append(removed, fmt.Sprintf("%d slash command and agent file(s) from .claude/", n))
		os.Remove(claudeDir.Dir()) // only if empty
	}
	if cur, err := p.store.ReadFile(knowledge.LauncherName, knowledge.MaxConfigBytes); err == nil && cur != nil {
		if err := p.store.Root().Remove(knowledge.LauncherName); err != nil {
			return nil, err
		}
		removed = append(removed, ".cairn/hook")
	}
	return removed, nil
}

package cli

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/cairn-dev/cairn/helpers/internal/fsx"
	"github.com/cairn-dev/cairn/helpers/internal/settings"
	ucli "github.com/urfave/cli/v2"
)

func initCommand(env Env) *ucli.Command {
	return &ucli.Command{
		Name:  "init",
		Usage: "provision .cairn/ in the project (log, .gitattributes, .gitignore)",
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
			return nil
		},
	}
}

// settingsCommand edits a Claude Code settings.json for install.sh and
// uninstall.sh when the claude CLI is not there to install the plugin.
func settingsCommand(env Env) *ucli.Command {
	return &ucli.Command{
		Name:      "claude-settings",
		Usage:     "add (or --remove) cairn's hooks in a Claude Code settings.json (used by install.sh)",
		ArgsUsage: "SETTINGS.json",
		Hidden:    true,
		Flags: []ucli.Flag{
			&ucli.StringFlag{Name: "wrapper", Usage: "absolute path of scripts/cairn-hook"},
			&ucli.BoolFlag{Name: "remove", Usage: "remove cairn's hooks"},
		},
		Action: func(c *ucli.Context) error {
			if c.NArg() != 1 {
				return usagef("claude-settings needs the path of settings.json")
			}
			path := abs(env, c.Args().First())
			data, err := os.ReadFile(path)
			if err != nil && !os.IsNotExist(err) {
				return fmt.Errorf("read %s: %w", path, unwrapPath(err))
			}
			var out []byte
			var changed bool
			if c.Bool("remove") {
				if data == nil {
					fmt.Fprintln(env.Stdout, "unchanged")
					return nil
				}
				out, changed, err = settings.Uninstall(data)
			} else {
				if c.String("wrapper") == "" {
					return usagef("claude-settings needs --wrapper PATH")
				}
				out, changed, err = settings.Install(data, c.String("wrapper"))
			}
			if err != nil {
				return hinted(fmt.Errorf("%s: %w", path, err), "fix the file by hand, then run again")
			}
			if !changed {
				fmt.Fprintln(env.Stdout, "unchanged")
				return nil
			}
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				return err
			}
			if err := fsx.WriteAtomic(path, out, 0o644); err != nil {
				return err
			}
			fmt.Fprintln(env.Stdout, "updated")
			return nil
		},
	}
}

package cli

import (
	"context"
	"os/signal"
	"syscall"

	ucli "github.com/urfave/cli/v2"

	"github.com/cairn-dev/cairn/helpers/internal/ui"
)

func uiCommand(env Env) *ucli.Command {
	return &ucli.Command{
		Name:  "ui",
		Usage: "browse the team's memory in a web browser (read-only, on this machine)",
		Description: "Serves a local web page from the binary: the knowledge with recall's search,\n" +
			"filters and explanations; each entry's history, anchors and verdicts; a timeline\n" +
			"of entries per week; what agents were shown (cairn log); the knowledge diff of a\n" +
			"revision range (cairn diff); the team and personal wikis; and, with the session\n" +
			"pipeline on, your handoffs, decisions, failures and session exports.\n\n" +
			"It prints a URL holding a random token and runs until Ctrl-C. Opening the URL\n" +
			"gives the browser a cookie of this server's own (never the token) and takes the\n" +
			"token out of the address. --open hands the browser a file only you can read, so\n" +
			"no command line holds the token. It listens on a loopback address of its own\n" +
			"(127.x.y.z on Linux, so other local servers get none of its cookies; 127.0.0.1\n" +
			"elsewhere) unless --addr names another address, and then warns beyond loopback:\n" +
			"anyone who can reach that address and has the URL reads the memory.\n" +
			"The pages run no script and load nothing from elsewhere.",
		Flags: []ucli.Flag{
			&ucli.StringFlag{Name: "addr", Value: "127.0.0.1:0", Usage: "the address to listen on, HOST:PORT (port 0: any free port; default: a loopback address of its own)"},
			&ucli.BoolFlag{Name: "open", Usage: "open the page in the default browser"},
		},
		Action: func(c *ucli.Context) error {
			if c.NArg() > 0 {
				return usagef("ui takes no argument")
			}
			addr := c.String("addr")
			loopback, err := ui.CheckAddr(addr)
			if err != nil {
				return usagef("--addr: %v", err)
			}
			p, err := findProject(c, env)
			if err != nil {
				return err
			}
			srv, err := ui.New(ui.Options{
				Project: p,
				Getenv:  env.Getenv,
				Remote:  !loopback,
			})
			if err != nil {
				return err
			}
			// Caught before the URL is out: whoever reads it may stop the
			// server at once.
			ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
			defer stop()
			return srv.Run(ctx, ui.Listen{Addr: addr, Own: !c.IsSet("addr"), Loopback: loopback, Open: c.Bool("open"),
				Stdout: env.Stdout, Stderr: env.Stderr})
		},
	}
}

package cli

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	ucli "github.com/urfave/cli/v2"

	"github.com/cairn-dev/cairn/helpers/internal/mcp"
)

func mcpCommand(env Env) *ucli.Command {
	return &ucli.Command{
		Name:  "mcp",
		Usage: "serve the team's memory to an MCP client over stdio (tools: recall, add, stats, handoff)",
		Description: "Started by the client (Claude Code: claude mcp add cairn -- cairn mcp), it reads\n" +
			"JSON-RPC on stdin and writes nothing but the protocol on stdout until stdin closes.\n" +
			"The project is --dir (or CAIRN_DIR) when given, else the working directory's\n" +
			"repository, found again at each call. What recall and handoff return is sanitized\n" +
			"and wrapped as untrusted data, as a session start's recall; add redacts secrets as\n" +
			"cairn add does. Failures are the tool's errors; lines go to .cairn/cache/cairn.log.",
		Action: func(c *ucli.Context) error {
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return mcp.Serve(ctx, mcp.Options{
				Dir: env.Dir, Project: c.String("dir"), Getenv: env.Getenv,
				Adapters: adapters, Stderr: env.Stderr,
			}, env.Stdin, rawWriter(env.Stdout))
		},
	}
}

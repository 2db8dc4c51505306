// Command cairn is team memory for coding agents, shared through git.
//
// Most of a hook's calls never reach main. The capture hook (a tool ran, a
// reply) is answered in two package initialisers that Go runs before the
// program's heavy packages (SQLite, go-git, the CLI framework, the MCP
// SDK): package hookgate's init exits at once when the payload holds no
// typed prefix (the reject path), and package hookgate/accept's init,
// imported below for that alone, captures the entry when it does. Every
// other call, and any payload they cannot judge, reaches main and
// cli.Main. TestGateRunsBeforeHeavyPackages guards the order; see
// docs/ARCHITECTURE.md, "A capture hook".
package main

import (
	"os"

	"github.com/cairn-dev/cairn/helpers/internal/cli"
	"github.com/cairn-dev/cairn/helpers/internal/hookgate"

	// The capture hook's accept path runs in its init, before the
	// program's heavy packages initialise (hookgate's reject path runs
	// before it).
	_ "github.com/cairn-dev/cairn/helpers/internal/hookgate/accept"
)

func main() {
	os.Exit(cli.Main(os.Args, cli.Env{Stdin: hookgate.Stdin(), Stdout: os.Stdout, Stderr: os.Stderr}))
}

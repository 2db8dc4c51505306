// Command cairn is team memory for coding agents, shared through git.
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

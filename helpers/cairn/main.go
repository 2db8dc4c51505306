// Command cairn is team memory for coding agents, shared through git.
package main

import (
	"os"

	"github.com/cairn-dev/cairn/helpers/internal/cli"
	"github.com/cairn-dev/cairn/helpers/internal/hookgate"
)

func main() {
	os.Exit(cli.Main(os.Args, cli.Env{Stdin: hookgate.Stdin(), Stdout: os.Stdout, Stderr: os.Stderr}))
}

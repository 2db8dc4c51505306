// Command cairn is team memory for coding agents, shared through git.
package main

import (
	"os"

	"github.com/cairn-dev/cairn/helpers/internal/cli"
)

func main() {
	os.Exit(cli.Main(os.Args, cli.Env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr}))
}

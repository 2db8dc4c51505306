//go:build unix

package clitest

import (
	"strings"
	"testing"
	"time"
)

// A command's output, exit status and environment come back; a non-zero
// exit is no failure.
func TestCommandRun(t *testing.T) {
	ran := Command{
		Harness: "clitest", Bin: "/bin/sh", Args: []string{"-c", `echo "out $X"; cat; echo err >&2; exit 3`},
		Dir: t.TempDir(), Env: []string{"X=1"}, Stdin: strings.NewReader("in\n"), Timeout: time.Minute,
	}.Run(t, func(Ran) string { return "" })
	if ran.Stdout != "out 1\nin\n" || ran.Stderr != "err\n" || ran.ExitCode != 3 {
		t.Errorf("ran = %+v", ran)
	}
}

// Package hookgate is the capture hook's reject path. Most Bash commands and
// replies carry nothing to capture, and for those the hook must cost almost
// nothing (design §6: 3 ms for the whole process). A Go program of cairn's
// size spends longer than that initialising its packages (go-git, SQLite,
// the CLI framework) before main runs. This package depends only on os, io,
// bytes, encoding/json and typed, so Go initialises it before those, and its init answers
// `cairn hook EVENT` for a capture event whose payload holds no typed
// prefix: exit 0, nothing written. Everything else, including any payload
// it cannot judge (unreadable, too large, not valid JSON), goes on to
// the full hook, which reads the payload from [Stdin].
package hookgate

import (
	"bytes"
	"encoding/json"
	"io"
	"os"

	"github.com/cairn-dev/cairn/helpers/internal/typed"
)

// maxPayload matches the hook's own cap; a larger payload is left to the
// full hook to report.
const maxPayload = 64 << 20

// consumed holds what init read of stdin when it let the call through.
var consumed []byte

// read reports whether init read stdin.
var read bool

// Stdin returns the hook's standard input: what the gate already read, if
// it read it, else os.Stdin.
func Stdin() io.Reader {
	if read {
		return bytes.NewReader(consumed)
	}
	return os.Stdin
}

func init() {
	if len(os.Args) != 3 || os.Args[1] != "hook" {
		return
	}
	switch os.Args[2] {
	case "PostToolUse", "PostToolUseFailure", "Stop":
		// SubagentStop is rare, and may ask a subagent that recorded
		// nothing to do so (see the full hook): it always goes on.
	default:
		return
	}
	data, err := io.ReadAll(io.LimitReader(os.Stdin, maxPayload+1))
	consumed, read = data, true
	if err != nil || len(data) > maxPayload {
		return
	}
	if t := bytes.TrimSpace(data); len(t) == 0 || t[0] != '{' || !json.Valid(t) {
		return // the full hook reports it
	}
	if !typed.MightContain(string(data)) {
		os.Exit(0)
	}
}

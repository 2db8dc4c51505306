// Package accept is the capture hook's accept path: a capture event whose
// payload holds a typed prefix, which package hookgate read and let
// through ([hookgate.Accepted]), is answered in this package's init by the
// session layer's capture ([record.Hook], the code the full hook runs for
// it), and the process exits. This package imports only cairn's light
// packages — the agents' adapters (agent/adapters, the agent registry's
// second layer) and session/record (project, log, capture, the pipeline's
// queue) — none of which imports SQLite, go-git,
// the MCP SDK or the CLI framework, so its init runs before theirs, which
// the capture then does not wait for (TestGateRunsBeforeHeavyPackages
// checks it). The reject path stays in hookgate, whose init runs earlier
// still.
package accept

import (
	"bytes"
	"os"

	"github.com/cairn-dev/cairn/helpers/internal/agent/adapters"
	"github.com/cairn-dev/cairn/helpers/internal/hookgate"
	"github.com/cairn-dev/cairn/helpers/internal/session/record"
)

func init() {
	agent, name, data, ok := hookgate.Accepted()
	if !ok {
		return
	}
	p, ok := adapters.Find(agent)
	if !ok {
		return
	}
	if out, ok := capture(p, name, data); ok {
		os.Stdout.Write(out)
		os.Exit(0)
	}
}

// capture answers the event as the full hook would (record.Hook never
// fails, never panics, and logs its errors); ok is false only when this
// package itself failed before it, and the full hook then answers.
func capture(p record.Protocol, name string, data []byte) (out []byte, ok bool) {
	// A panic in an init would exit 2, which Claude Code reads as "block".
	defer func() {
		if recover() != nil {
			out, ok = nil, false
		}
	}()
	record.ShortLived()
	dir, _ := os.Getwd()
	// The project is package projroot's, CAIRN_DIR read through Getenv.
	env := record.Env{Getenv: os.Getenv, Stderr: os.Stderr, Dir: dir}
	return record.Hook(p, name, bytes.NewReader(data), env), true
}

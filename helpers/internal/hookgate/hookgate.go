// Package hookgate is the capture hook's fast path. Capture runs after
// every shell command and every reply, and must cost little (design §6:
// 3 ms for the whole process when there is nothing to capture, 10 ms for
// one entry into a 10k-entry log). Go runs a package's init once the
// packages it imports are initialised, taking ready packages in
// import-path order; this package imports only the standard library and
// cairn's light packages — the agents' adapters, the session layer's light
// half (session/record: project, log, capture, the pipeline's queue) —
// none of which imports SQLite, go-git, the MCP SDK or the CLI framework,
// so its init runs before theirs (TestGateRunsBeforeHeavyPackages checks
// it). It answers `cairn hook EVENT` (Claude Code) and `cairn hook AGENT
// EVENT` (an agent in [adapters]) for an event that may carry typed lines
// (a tool ran, a reply) and exits:
//
//   - a payload that holds no typed prefix: nothing written (but for a
//     reply of an agent whose transcript cairn reads, when the user turned
//     the session pipeline on, the session is queued: a few stats and one
//     small file, the transcript never read);
//   - one that does: the session layer's capture ([record.Hook]), the
//     same code the full hook runs for it, without waiting for the
//     program's other packages to initialise.
//
// Everything else, including any payload it cannot judge (unreadable, too
// large, not valid JSON), goes on to the full hook, which reads the
// payload from [Stdin].
package hookgate

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"time"

	"github.com/cairn-dev/cairn/helpers/internal/agent/claude"
	"github.com/cairn-dev/cairn/helpers/internal/agent/codex"
	"github.com/cairn-dev/cairn/helpers/internal/agent/cursor"
	"github.com/cairn-dev/cairn/helpers/internal/agent/gemini"
	"github.com/cairn-dev/cairn/helpers/internal/agent/opencode"
	"github.com/cairn-dev/cairn/helpers/internal/event"
	"github.com/cairn-dev/cairn/helpers/internal/pipeline/queue"
	"github.com/cairn-dev/cairn/helpers/internal/session/record"
	"github.com/cairn-dev/cairn/helpers/internal/typed"
)

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

// adapters are the agents whose capture events the gate answers, by name
// (each a light package, see the package comment).
var adapters = map[string]record.Protocol{
	claude.Name: claude.Adapter{},
	cursor.Name: cursor.Adapter{},
	codex.Name:  codex.Adapter{},
	// OpenCode's plugin sends no transcript: its replies are not queued.
	opencode.Name: opencode.Adapter{},
	gemini.Name:   gemini.Adapter{},
}

// queued are the agents whose replies the gate queues for the session
// pipeline: their payloads name the session's transcript as Claude Code's
// do (session_id, transcript_path, cwd), and cairn reads it.
var queued = map[string]bool{claude.Name: true, codex.Name: true, gemini.Name: true}

func init() {
	agent, name, ok := hookArgs(os.Args)
	if !ok {
		return
	}
	p := adapters[agent]
	if p == nil || !p.Kind(name).CaptureOnly() {
		return
	}
	data, err := io.ReadAll(io.LimitReader(os.Stdin, event.MaxPayload+1))
	consumed, read = data, true
	if err != nil || len(data) > event.MaxPayload {
		return
	}
	if t := bytes.TrimSpace(data); len(t) == 0 || t[0] != '{' || !json.Valid(t) {
		return // the full hook reports it
	}
	if !typed.MightContain(string(data)) {
		if queued[agent] && p.Kind(name) == event.Reply {
			enqueue(agent, data)
		}
		os.Exit(0)
	}
	if out, ok := capture(p, name, data); ok {
		os.Stdout.Write(out)
		os.Exit(0)
	}
}

// capture answers a capture event whose payload holds a typed prefix, as
// the full hook would (record.Hook never fails, never panics, and logs
// its errors); ok is false only when the gate itself failed before it,
// and the full hook then answers.
func capture(p record.Protocol, name string, data []byte) (out []byte, ok bool) {
	// A panic in an init would exit 2, which Claude Code reads as "block".
	defer func() {
		if recover() != nil {
			out, ok = nil, false
		}
	}()
	ShortLived()
	dir, _ := os.Getwd()
	project := os.Getenv("CAIRN_DIR")
	if project != "" && !filepath.IsAbs(project) {
		project = filepath.Join(dir, project)
	}
	env := record.Env{Getenv: os.Getenv, Stderr: os.Stderr, Dir: dir, Project: project}
	return record.Hook(p, name, bytes.NewReader(data), env), true
}

// ShortLived tunes the garbage collector for a process that lives a few
// milliseconds (a hook, an add, a sync after a pull; a rebuild it falls
// into collects anyway, see package index): collecting only when the heap
// nears 512 MiB spares several collections of the log's buffers, about a
// quarter of the time of a capture into a 10k-entry log.
func ShortLived() {
	debug.SetGCPercent(-1)
	debug.SetMemoryLimit(512 << 20)
}

// hookArgs reads `cairn hook EVENT` (Claude Code's) and `cairn hook AGENT
// EVENT` from args.
func hookArgs(args []string) (agent, name string, ok bool) {
	switch {
	case len(args) == 3 && args[1] == "hook":
		return claude.Name, args[2], true
	case len(args) == 4 && args[1] == "hook":
		return args[2], args[3], true
	}
	return "", "", false
}

// enqueue is the session pipeline's producer for a reply with nothing to
// capture (the full hook's session layer does the same for the others):
// the task names the session's transcript, which is not read here. It
// fails silently: the reject path writes nothing, and the session's end
// queues the session again.
func enqueue(agent string, data []byte) {
	// Nothing here may fail the hook: a panic in an init would exit 2,
	// which Claude Code reads as "block".
	defer func() { _ = recover() }()
	var p struct {
		Session    string `json:"session_id"`
		Transcript string `json:"transcript_path"`
		Cwd        string `json:"cwd"`
	}
	if json.Unmarshal(data, &p) != nil {
		return
	}
	project := os.Getenv("CAIRN_DIR")
	if project == "" {
		project = os.Getenv("CLAUDE_PROJECT_DIR")
	}
	t := queue.Task{Session: p.Session, Transcript: p.Transcript, Cwd: p.Cwd, Project: project,
		Agent: agent, Reason: queue.ReasonStop}
	_, _ = queue.Produce(os.Getenv, t, false, time.Now())
}

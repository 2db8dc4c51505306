// Package agent is the contract between cairn and a coding agent: an
// [Adapter] speaks one agent's hook protocol and wires a project for it.
// Claude Code's adapter is package claude beside this one; another agent
// is another package beside it, listed in the agent registry (packages
// agent/registry and agent/adapters), with its spec (agent/spec) in its
// leaf package agent/NAME/hooks. This package also holds what the adapters
// share: reading a hook's payload and writing its answer
// ([DecodePayload], [EncodeOutput]), reading and editing their
// configuration files, a doctor line ([Status]), a capped transcript
// reader, and the hooks in an agent's files that are not cairn's
// ([ForeignHooksIn]).
package agent

import (
	"errors"
	"io"
	"io/fs"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/helpers/internal/event"
	"github.com/cairn-dev/cairn/helpers/internal/fsx"
)

// Adapter is one coding agent, as cairn sees it.
type Adapter interface {
	// Name is the adapter's short name, as flags say it: "claude".
	Name() string
	// Title is the agent's name for people: "Claude Code".
	Title() string

	// Kind is the moment the agent's event name stands for
	// (event.Unknown for an event cairn does not handle).
	Kind(name string) event.Kind
	// Decode turns the payload of the agent's event name into an event;
	// getenv reads the hook's environment.
	Decode(name string, payload []byte, getenv func(string) string) (event.Event, error)
	// Encode writes cairn's answer to e as the hook's stdout (nothing for
	// an empty answer).
	Encode(e event.Event, a event.Answer) ([]byte, error)
	// ReadTranscript reads the agent's transcript of a session as its
	// conversation (the session pipeline's input).
	ReadTranscript(r io.Reader) (event.Conversation, error)

	// Wiring describes, for people, what Wire writes.
	Wiring() string
	// Paths are the paths, from the project root, that Wire writes and
	// the person commits.
	Paths() []string
	// Wire writes the project's committed wiring for the agent (project
	// is the work tree's root, cairnDir its .cairn), only where it
	// differs, and reports whether it wrote.
	Wire(project string, cairnDir fsx.Root) (bool, error)
	// Unwire removes exactly what Wire wrote but the launcher (which
	// other agents' wiring may run), and says what it removed.
	Unwire(project string, cairnDir fsx.Root) ([]string, error)
	// Uses reports whether the project's wiring for the agent runs the
	// launcher: the launcher is removed once no agent does.
	Uses(project string) bool
	// Caller reports whether getenv is the environment of a command the
	// agent's own tools run (its shell tool: an agent's `cairn add`), and
	// the session's id when that environment carries it.
	Caller(getenv func(string) string) (session string, ok bool)
	// CheckWiring reports whether a session of the agent in the project
	// runs cairn; home is the user's home directory. It checks the
	// agent's own files, and that the launcher they run is there and
	// executable; whether the launcher is this cairn's is doctor's check,
	// made once for every agent.
	CheckWiring(project string, cairnDir fsx.Root, home string) Wiring
}

// NoTranscript is an adapter's ReadTranscript error for an agent whose
// transcripts cairn does not read (the message says which and why): the
// session pipeline does not run for its sessions, and the agent
// registry's Transcript is false for it. A string type, so an adapter's
// error value needs no work at init (the hook gate's path runs after).
type NoTranscript string

func (e NoTranscript) Error() string { return string(e) }

// Find returns the adapter of adapters named name.
func Find(adapters []Adapter, name string) (Adapter, bool) {
	for _, a := range adapters {
		if a.Name() == name {
			return a, true
		}
	}
	return nil, false
}

// Caller finds the agent whose tool runs this process (see
// [Adapter.Caller]): the first of adapters that says so, its name and the
// session id its environment gives ("" when it gives none). ok is false in
// a person's shell. (A hook's environment is the agent's too: the caller
// tells hooks apart.)
func Caller(adapters []Adapter, getenv func(string) string) (name, session string, ok bool) {
	for _, a := range adapters {
		if s, ok := a.Caller(getenv); ok {
			return a.Name(), s, true
		}
	}
	return "", "", false
}

// Wiring is the state of a project's wiring for one agent, for doctor.
type Wiring struct {
	Status string // ok, warn or fail
	Detail string
	Fix    string
}

// MaxConfig caps how much of an agent's configuration file is read.
const MaxConfig = 1 << 20

// ReadConfig reads the configuration file name under r, at most
// [MaxConfig] bytes; a missing file is nil, no error. r refuses links and
// special files (a committed .claude or .codex is someone else's).
func ReadConfig(r fsx.Root, name string) ([]byte, error) {
	data, err := r.ReadFile(name, MaxConfig)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return data, err
}

// EditConfig rewrites the configuration file name under r with edit,
// which gets its content (nil when missing) and says whether it changed
// it; the file is written, atomically, only then. It reports whether it
// wrote.
func EditConfig(r fsx.Root, name string, edit func(data []byte) (out []byte, changed bool, err error)) (bool, error) {
	data, err := ReadConfig(r, name)
	if err != nil {
		return false, err
	}
	out, changed, err := edit(data)
	if err != nil || !changed {
		return false, err
	}
	if err := r.WriteAtomic(name, out, 0o644); err != nil {
		return false, err
	}
	return true, nil
}

// TranscriptReader reads at most a cap of a transcript's bytes: past the
// cap it ends as the transcript would, and [TranscriptReader.Cut] says
// whether anything was left unread.
type TranscriptReader struct {
	r    io.Reader
	left int64
	cut  bool
}

// LimitTranscript reads r up to max bytes (the readers pass
// [event.MaxTranscript]).
func LimitTranscript(r io.Reader, max int64) *TranscriptReader {
	return &TranscriptReader{r: r, left: max}
}

func (t *TranscriptReader) Read(p []byte) (int, error) {
	if t.left <= 0 {
		if !t.cut {
			var one [1]byte
			n, _ := io.ReadFull(t.r, one[:])
			t.cut = n > 0
		}
		return 0, io.EOF
	}
	if int64(len(p)) > t.left {
		p = p[:t.left]
	}
	n, err := t.r.Read(p)
	t.left -= int64(n)
	return n, err
}

// Cut reports whether the transcript went on past the cap (known once the
// reader got to it).
func (t *TranscriptReader) Cut() bool { return t.cut }

// Turns joins consecutive texts of one side into one message as a
// transcript is read, in time linear in their size.
type Turns struct {
	messages []event.Message
	last     strings.Builder // the last message's text so far
}

// Add appends text said by role at at: to the last message when it is
// role's too (after a blank line), else as a new message.
func (t *Turns) Add(role, text string, at time.Time) {
	if n := len(t.messages); n > 0 && t.messages[n-1].Role == role {
		t.last.WriteString("\n\n")
		t.last.WriteString(text)
		return
	}
	t.flush()
	t.last.WriteString(text)
	t.messages = append(t.messages, event.Message{Role: role, Time: at})
}

// flush sets the last message's text and starts a new one.
func (t *Turns) flush() {
	if n := len(t.messages); n > 0 {
		t.messages[n-1].Text = t.last.String()
		t.last.Reset()
	}
}

// Messages are the messages added so far; Add may be called after.
func (t *Turns) Messages() []event.Message {
	if n := len(t.messages); n > 0 {
		t.messages[n-1].Text = t.last.String()
	}
	return t.messages
}

// MissingLater reports whether the events an agent's wiring lacks, by
// the moments kind gives their names, were all added after capture and
// recall — the session pipeline's (compaction, the end of a session) and
// the notes before a tool call — so that a project wired by an older
// cairn still captures and recalls (a warning, not a failure); what says
// which, for the person.
func MissingLater(missing []string, kind func(string) event.Kind) (what string, ok bool) {
	var pipeline, tool bool
	for _, name := range missing {
		switch kind(name) {
		case event.Compact, event.End:
			pipeline = true
		case event.BeforeTool:
			tool = true
		default:
			return "", false
		}
	}
	var parts []string
	if pipeline {
		parts = append(parts, "the session pipeline's events")
	}
	if tool {
		parts = append(parts, "the notes before a tool call")
	}
	return strings.Join(parts, " and "), len(parts) > 0
}

// Package agent is the contract between cairn and a coding agent: an
// [Adapter] speaks one agent's hook protocol and wires a project for it.
// Claude Code's adapter is package claude beside this one; another agent
// is another package beside it, listed where the CLI lists adapters.
package agent

import (
	"errors"
	"io"
	"io/fs"

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
	// CheckWiring reports whether a session of the agent in the project
	// runs cairn; home is the user's home directory.
	CheckWiring(project string, cairnDir fsx.Root, home string) Wiring
}

// Find returns the adapter of adapters named name.
func Find(adapters []Adapter, name string) (Adapter, bool) {
	for _, a := range adapters {
		if a.Name() == name {
			return a, true
		}
	}
	return nil, false
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

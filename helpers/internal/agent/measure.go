package agent

import (
	"io"
	"time"
)

// Measurer is an adapter that can also measure its sessions for `cairn
// report`: find this machine's transcripts of a project and read what
// each session cost. It is optional; an adapter without it is left out of
// the report.
type Measurer interface {
	// Transcripts are the paths of this machine's transcripts of sessions
	// in the project whose work tree's root is root; getenv reads the
	// environment (HOME, the agent's own config variable). None found is
	// no error.
	Transcripts(getenv func(string) string, root string) ([]string, error)
	// Measure reads one transcript in a single pass, holding no more than
	// one record at a time, and calls see with what the report judges
	// for itself (the person's prompts, the model's replies, the files its
	// tools touched and edited); see may be nil.
	Measure(r io.Reader, see func(Seen)) (Measured, error)
}

// Unrecorder is a Measurer whose transcripts do not record some of the
// report's figures: the report says so instead of comparing zeros.
type Unrecorder interface {
	// Unrecorded names those figures, as the report names them
	// (FigureCompactions, FigureEditsReverted).
	Unrecorded() []string
}

// Figures a transcript may not record (see [Unrecorder]).
const (
	FigureCompactions   = "compactions"
	FigureEditsReverted = "edits_reverted"
)

// Measured is what one session's transcript says it cost.
type Measured struct {
	Session string
	Cwd     string
	// Start and End are the first and last timestamps of the transcript.
	Start, End time.Time
	// Tokens, summed over the model's answers (each answer once).
	Input, Output, CacheRead, CacheWrite int64
	// ToolCalls counts the model's tool calls, FailedTools those whose
	// result was an error.
	ToolCalls, FailedTools int
	// Turns counts the prompts the person typed.
	Turns int
	// Compactions counts the times the conversation was compacted.
	Compactions int
	// Sidechain is true for a subagent's own transcript.
	Sidechain bool
}

// What a transcript's reader saw (see [Measurer.Measure]).
const (
	SeenSession = "session" // Text: the session's id, once, as soon as the reader knows it
	SeenPrompt  = "prompt"  // Text: a prompt the person typed
	SeenReply   = "reply"   // Text: the model's text
	SeenTouch   = "touch"   // Path: a file a tool read or ran on
	SeenEdit    = "edit"    // Path, Old, New: an edit of a file (Old "" for a whole write)
)

// Seen is one thing a transcript's reader saw, at its time.
type Seen struct {
	Kind     string
	At       time.Time
	Text     string
	Path     string
	Old, New string
}

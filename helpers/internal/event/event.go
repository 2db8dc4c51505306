// Package event names the moments of a coding session in terms of no
// agent, and what cairn may answer to each. An agent's adapter turns its
// own hook protocol into an [Event] and cairn's [Answer] back into its
// protocol, and its transcripts into a [Conversation]; the session layer
// acts on events and knows no agent. The package depends on nothing but
// the standard library's time and encoding/json, so the capture hook's
// reject path can read it before the rest of the program starts.
package event

import "time"

// Kind is a moment of a coding session.
type Kind int

// The moments cairn acts on.
const (
	Unknown       Kind = iota
	Start              // a session starts (or resumes, or is cleared)
	Prompt             // the person sent a prompt
	ToolRan            // a tool call finished (or failed)
	Reply              // the agent finished its turn with a reply
	SubagentReply      // a subagent finished with a reply
	Compact            // the conversation is about to be compacted
	End                // the session ends
	BeforeTool         // a tool is about to run (on a file, or a shell command)
)

var names = [...]string{"unknown", "start", "prompt", "tool-ran", "reply", "subagent-reply", "compact", "end", "before-tool"}

// String is the kind's name, e.g. "tool-ran".
func (k Kind) String() string {
	if k < 0 || int(k) >= len(names) {
		return names[0]
	}
	return names[k]
}

// CaptureOnly reports whether an event of kind k does nothing but capture
// typed lines (a tool ran, a reply): then a payload without a typed prefix
// has nothing to do, and the reject path answers it. A subagent's reply is
// not one: a subagent that recorded nothing may be asked to.
func (k Kind) CaptureOnly() bool { return k == ToolRan || k == Reply }

// MaxPayload caps how much of a hook's stdin is read. An agent's payload
// can carry a tool's whole output; past this the payload is refused rather
// than held in memory.
const MaxPayload = 64 << 20

// MaxTranscript caps how much of a transcript a reader reads: past it the
// reader stops and says so ([Conversation.Cut]), so that a huge session
// costs a bounded time and memory.
const MaxTranscript = 128 << 20

// Event is one moment of a session, as an adapter decoded it.
type Event struct {
	Kind Kind
	// Name is the agent's own name of the event (for logs only).
	Name string
	// Session identifies the session (the agent's id).
	Session string
	// Cwd is the session's working directory, when the agent says.
	Cwd string
	// ProjectDir is the project's root when the agent names it (Claude
	// Code's CLAUDE_PROJECT_DIR); it wins over Cwd.
	ProjectDir string
	// Prompt is the person's prompt (Prompt).
	Prompt string
	// Shell is true when the tool that ran is a shell (ToolRan); Command
	// is the command it ran and Failed whether it failed.
	Shell   bool
	Command string
	Failed  bool
	// Tool is the tool's name (BeforeTool); Path is the file its input
	// names (as given: absolute, or relative to Cwd), if any; Edits is
	// true when the tool writes it.
	Tool  string
	Path  string
	Edits bool
	// CanAsk is true when a person can answer a question before the tool
	// runs (BeforeTool): the agent runs interactively, in a permission
	// mode that asks. An adapter that cannot tell leaves it false, and
	// cairn then never asks.
	CanAsk bool
	// Text is the reply (Reply, SubagentReply).
	Text string
	// Transcript is the path of the session's transcript, when the agent
	// keeps one (the session pipeline reads it; hooks only pass it on).
	Transcript string
	// Agent is the adapter's name ("claude"), which reads the transcript.
	Agent string
	// Continued is true when the agent already went on once because a
	// hook asked it to (SubagentReply): never ask twice.
	Continued bool
}

// Answer is what cairn answers to an event; the zero Answer says nothing.
type Answer struct {
	// Context is text for the model's context (Start, Prompt,
	// BeforeTool).
	Context string
	// Status is one quiet line for the person.
	Status string
	// GoOn, when set on a SubagentReply, asks the agent to go on with
	// this instruction instead of finishing.
	GoOn string
	// Ask, on a BeforeTool, asks the person to confirm the tool call,
	// with this reason (never allow, never deny: see the design's
	// guards).
	Ask string
}

// Empty reports whether a says nothing.
func (a Answer) Empty() bool { return a == Answer{} }

// Conversation is what a session's transcript says of it, as an adapter
// read it: who said what, without tool calls, tool results or the
// client's bookkeeping.
type Conversation struct {
	Session string
	Cwd     string
	Branch  string // the git branch, as the last record that names one says
	Agent   string // the agent's name for people, e.g. "Claude Code"
	Version string // the agent's version, likewise
	// Interactive is true for a session a person typed into; a headless
	// run (claude -p) is not.
	Interactive bool
	Sidechain   bool // a subagent's own transcript
	Messages    []Message
	// Skipped counts records that could not be read (a torn last line,
	// say); they are left out, never fatal.
	Skipped int
	// Cut is true when the reader stopped at its cap of bytes read
	// ([MaxTranscript]): what follows in the transcript is left out.
	Cut bool
}

// Message is one turn's text by one side.
type Message struct {
	Role string // "user" or "assistant"
	Text string
	Time time.Time
}

// UserChars counts the characters the person typed.
func (t Conversation) UserChars() int {
	n := 0
	for _, m := range t.Messages {
		if m.Role == "user" {
			n += len([]rune(m.Text))
		}
	}
	return n
}

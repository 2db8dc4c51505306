package hookgate

// The reject rule, in one place: a capture-only event (a tool ran, a
// reply) whose payload holds no typed prefix has nothing to capture, and
// the hook answers it with nothing, but for a reply, whose session is
// queued for the personal session pipeline. The rule is package judge's,
// whose init answers a tool's output; this package's init queues a
// reply's session, both before the program's heavy packages are
// initialised; the full hook
// (package session/record) runs the same [Run] for the calls the init did
// not judge (cairn --dir P hook, a test calling cli.Main).

import (
	"fmt"
	"time"

	"github.com/cairn-dev/cairn/helpers/internal/event"
	"github.com/cairn-dev/cairn/helpers/internal/hookgate/judge"
	"github.com/cairn-dev/cairn/helpers/internal/pipeline/queue"
	"github.com/cairn-dev/cairn/helpers/internal/userconf"
)

// Verdict is what the rule says of an event's payload ([judge.Verdict]).
type Verdict = judge.Verdict

// Verdicts ([judge.Verdict]'s).
const (
	Capture = judge.Capture
	Nothing = judge.Nothing
	Invalid = judge.Invalid
)

// Judge applies the rule to a payload of an event of kind ([judge.Judge]).
func Judge(kind event.Kind, payload []byte) Verdict { return judge.Judge(kind, payload) }

// Caller is how a hook reads what the reject path needs of a reply.
type Caller struct {
	// Decode reads the reply's event: its session, transcript, cwd and
	// the agent's project directory. An event without a transcript is
	// not queued.
	Decode func() (event.Event, error)
	// Root is the project of the event, by package projroot's rule.
	Root func(e event.Event) string
	// Dir is the hook's working directory.
	Dir string
	// Getenv reads the environment (the user's directories, the
	// pipeline's switches).
	Getenv func(string) string
	// User loads the user's config (nil: userconf.Load with Getenv).
	User func() (userconf.User, error)
}

// Run judges the payload of an event of kind and, when there is nothing to
// capture in a reply, queues its session (debounced: see package queue).
// The verdict is Judge's; err is a failure to queue, which the caller
// logs or, on the fast path, drops (the session's end queues it again).
func Run(kind event.Kind, payload []byte, c Caller) (Verdict, error) {
	v := Judge(kind, payload)
	if v != Nothing || kind != event.Reply {
		return v, nil
	}
	e, err := c.Decode()
	if err != nil {
		return v, err
	}
	if e.Transcript == "" {
		return v, nil
	}
	t := queue.TaskOf(e, queue.ReasonStop, c.Root(e), c.Dir)
	user := c.User
	if user == nil {
		user = userconf.Loader(c.Getenv)
	}
	if _, err := queue.Produce(c.Getenv, user, t, false, time.Now()); err != nil {
		return v, fmt.Errorf("session pipeline: %w", err)
	}
	return v, nil
}

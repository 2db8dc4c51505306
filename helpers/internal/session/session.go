// Package session is what cairn does at each moment of a coding session —
// start, prompt, a tool ran, a reply, a subagent's reply, compaction, end —
// in terms that name no agent. An agent's adapter (a [Protocol]) turns its
// hook calls into [event.Event] values and cairn's [event.Answer] back
// into its output; everything between lives here and in package
// session/record, its light half (the hook's entry, finding the project,
// the version gate, capture, failing open): recall within a budget, the
// background sanitize, compaction, the session's end.
package session

import (
	"io"

	"github.com/cairn-dev/cairn/helpers/internal/anchor"
	"github.com/cairn-dev/cairn/helpers/internal/event"
	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
	"github.com/cairn-dev/cairn/helpers/internal/pipeline/queue"
	"github.com/cairn-dev/cairn/helpers/internal/session/record"
)

// Hook runs one hook call of an agent: the event name, its payload on
// stdin; it returns what to print on stdout, which is nothing or the
// protocol's output. It never fails and never panics: whatever goes wrong
// becomes one line in .cairn/cache/cairn.log (or on Stderr, without a
// .cairn), and the session goes on (see [record.Run]).
func Hook(p record.Protocol, name string, stdin io.Reader, env record.Env) []byte {
	return record.Run(p, name, stdin, env, func(rs *record.Session, e event.Event) (event.Answer, error) {
		return (&Session{rs}).Handle(e)
	})
}

// Session is the handling of one event: package record's, with recall.
type Session struct {
	*record.Session
}

// Handle acts on one event and returns cairn's answer.
func (s *Session) Handle(e event.Event) (event.Answer, error) {
	if a, ok, err := s.Record(e); ok {
		return a, err
	}
	s.Begin(e)
	if a, old := s.TooOld(e); old {
		return a, nil
	}
	switch e.Kind {
	case event.Start:
		s.remember(e)
		s.noteStarted(e)
		if s.heldOut(e) {
			return s.holdoutStart(e)
		}
		return s.start(e)
	case event.Prompt:
		s.newTurn(e)
		if s.heldOut(e) {
			return event.Answer{}, nil
		}
		return s.prompt(e)
	case event.BeforeTool:
		return s.beforeTool(e)
	case event.Compact:
		return s.compact(e)
	case event.End:
		s.Enqueue(e, queue.ReasonEnd, true)
	}
	return event.Answer{}, nil
}

// newTurn forgets the files the last turn edited: what this turn
// captures is anchored to this turn's edits only.
func (s *Session) newTurn(e event.Event) {
	if !s.Proj.Store.Exists() {
		return
	}
	if err := anchor.ForgetTouched(s.Proj.Store.Root(), e.Session); err != nil {
		s.Logf("forget the last turn's files: %v", err)
	}
}

// recallable checks the project's .cairn (never through a link, never a
// special file) and reads its config (defaults when it is unreadable, and
// a line in the log); ok is false when there is nothing to recall from.
func (s *Session) recallable() (cfg knowledge.Config, ok bool, err error) {
	if err := s.Proj.Store.Check(); err != nil {
		return cfg, false, err
	}
	if !s.Proj.Store.Exists() {
		return cfg, false, nil
	}
	cfg, err = s.Config()
	if err != nil {
		s.Logf("%v (using defaults)", err)
	}
	return cfg, true, nil
}

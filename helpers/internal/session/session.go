// Package session is what cairn does at each moment of a coding session —
// start, prompt, a tool ran, a reply, a subagent's reply, compaction, end —
// in terms that name no agent. An agent's adapter (a [Protocol]) turns its
// hook calls into [event.Event] values and cairn's [event.Answer] back
// into its output; everything between lives here: finding the project,
// the version gate, capture, recall within a budget, the background
// sanitize, and failing open.
package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/helpers/internal/capture"
	"github.com/cairn-dev/cairn/helpers/internal/event"
	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
	"github.com/cairn-dev/cairn/helpers/internal/pipeline/queue"
	"github.com/cairn-dev/cairn/helpers/internal/project"
)

// Env is what a session may touch of the outside world.
type Env struct {
	Getenv func(string) string
	Stderr io.Writer // where a line goes when the project has no cairn.log
	Dir    string    // the working directory
	// Project, when set (cairn --dir, CAIRN_DIR), is the project, whatever
	// the agent says.
	Project string
}

// Protocol is an agent's hook protocol, as its adapter speaks it.
type Protocol interface {
	// Kind is the moment the agent's event name stands for.
	Kind(name string) event.Kind
	// Decode turns the payload of the agent's event name into an event.
	Decode(name string, payload []byte, getenv func(string) string) (event.Event, error)
	// Encode writes cairn's answer to e as the hook's stdout.
	Encode(e event.Event, a event.Answer) ([]byte, error)
	// ReadTranscript reads the agent's transcript of a session.
	ReadTranscript(r io.Reader) (event.Conversation, error)
}

// Errors of reading a payload.
var (
	ErrEmpty       = errors.New("empty hook payload")
	ErrTooLarge    = errors.New("hook payload too large")
	ErrNotObject   = errors.New("hook payload is not a JSON object")
	ErrUnknown     = errors.New("unknown hook event")
	errPanicPrefix = "panic: "
)

// ReadPayload reads a hook's stdin up to [event.MaxPayload] bytes.
func ReadPayload(r io.Reader) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, event.MaxPayload+1))
	if err != nil {
		return nil, fmt.Errorf("read hook payload: %w", err)
	}
	if len(data) > event.MaxPayload {
		return nil, fmt.Errorf("%w (over %d MiB)", ErrTooLarge, event.MaxPayload>>20)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, ErrEmpty
	}
	return data, nil
}

// Hook runs one hook call of an agent: the event name, its payload on
// stdin; it returns what to print on stdout, which is nothing or the
// protocol's output. It never fails and never panics: whatever goes wrong
// becomes one line in .cairn/cache/cairn.log (or on Stderr, without a
// .cairn), and the session goes on.
func Hook(p Protocol, name string, stdin io.Reader, env Env) (out []byte) {
	s := &Session{env: env, name: name}
	defer func() {
		if r := recover(); r != nil {
			s.locate("")
			s.logf("%s%v", errPanicPrefix, r)
			out = nil
		}
	}()
	out, err := s.hook(p, stdin)
	if err != nil {
		s.locate("") // a no-op once the event located the project
		s.logf("%v", err)
		return nil
	}
	s.beat()
	return out
}

func (s *Session) hook(p Protocol, stdin io.Reader) ([]byte, error) {
	if s.env.Getenv(queue.ChildEnv) != "" {
		return nil, nil // the pipeline's own model call: no hook acts in it
	}
	s.transcripts = p.ReadTranscript
	kind := p.Kind(s.name)
	if kind == event.Unknown {
		return nil, fmt.Errorf("%w %q", ErrUnknown, s.name)
	}
	data, err := ReadPayload(stdin)
	if err != nil {
		return nil, err
	}
	if kind.CaptureOnly() {
		// The reject path: a payload without a typed prefix anywhere has
		// nothing to capture. No decode, no git, no SQLite; a payload that
		// is not a JSON object is reported.
		if !capture.MightContain(string(data)) {
			if b := bytes.TrimSpace(data); b[0] != '{' || !json.Valid(b) {
				return nil, ErrNotObject
			}
			if kind == event.Reply {
				// Nothing to capture, but the session pipeline's
				// producer runs at every reply (the Claude Code hook's
				// gate does the same before the program starts).
				e, err := p.Decode(s.name, data, s.env.Getenv)
				if err != nil {
					return nil, err
				}
				s.locate(e.ProjectDir, e.Cwd)
				s.enqueue(e, queue.ReasonStop, false)
			}
			return nil, nil
		}
	}
	e, err := p.Decode(s.name, data, s.env.Getenv)
	if err != nil {
		return nil, err
	}
	a, err := s.Handle(e)
	if err != nil {
		return nil, err
	}
	return p.Encode(e, a)
}

// Session is the handling of one event.
type Session struct {
	env  Env
	name string // the agent's name of the event, for the log
	proj *project.Project

	// transcripts reads the agent's transcripts (nil when the session was
	// not started from an agent's hook).
	transcripts func(io.Reader) (event.Conversation, error)

	cfg    knowledge.Config // .cairn/config.json, read once (see config)
	cfgErr error
	cfgOK  bool
}

// Handle acts on one event and returns cairn's answer.
func (s *Session) Handle(e event.Event) (event.Answer, error) {
	if s.name == "" {
		s.name = e.Name
	}
	s.locate(e.ProjectDir, e.Cwd)
	if a, old := s.tooOld(e); old {
		return a, nil
	}
	switch e.Kind {
	case event.ToolRan:
		if !e.Shell {
			return event.Answer{}, nil
		}
		return s.capture(e, capture.FromCommand(e.Command), "agent")
	case event.Reply:
		defer s.enqueue(e, queue.ReasonStop, false)
		return s.capture(e, capture.FromReply(e.Text), "agent")
	case event.SubagentReply:
		items := capture.FromReply(e.Text)
		if len(items) == 0 {
			return s.nudge(e)
		}
		return s.capture(e, items, "subagent")
	case event.Start:
		s.remember(e)
		return s.start(e)
	case event.Prompt:
		return s.prompt(e)
	case event.Compact:
		return s.compact(e)
	case event.End:
		s.enqueue(e, queue.ReasonEnd, true)
	}
	return event.Answer{}, nil
}

// locate finds the project once: the explicit one (--dir), else the first
// of dirs given (the agent's project directory, its cwd), else the working
// directory.
func (s *Session) locate(dirs ...string) {
	if s.proj != nil {
		return
	}
	dir := s.env.Project
	for _, d := range dirs {
		if dir == "" {
			dir = d
		}
	}
	if dir == "" {
		dir = s.env.Dir
	}
	s.proj = project.Locate(dir)
}

// config reads the project's .cairn/config.json once per event: several
// steps ask it (the version gate, recall, the status line).
func (s *Session) config() (knowledge.Config, error) {
	if !s.cfgOK {
		s.cfg, s.cfgErr = s.proj.Store.LoadConfig()
		s.cfgOK = true
	}
	return s.cfg, s.cfgErr
}

// recallable checks the project's .cairn (never through a link, never a
// special file) and reads its config (defaults when it is unreadable, and
// a line in the log); ok is false when there is nothing to recall from.
func (s *Session) recallable() (cfg knowledge.Config, ok bool, err error) {
	if err := s.proj.Store.Check(); err != nil {
		return cfg, false, err
	}
	if !s.proj.Store.Exists() {
		return cfg, false, nil
	}
	cfg, err = s.config()
	if err != nil {
		s.logf("%v (using defaults)", err)
	}
	return cfg, true, nil
}

// logf appends one line to .cairn/cache/cairn.log. Without a .cairn
// directory (a project that does not use cairn) it writes nothing there —
// creating .cairn just to log would litter every repository — and the line
// goes to Stderr, which an agent keeps in its debug log.
func (s *Session) logf(format string, args ...any) {
	msg := s.name + " " + fmt.Sprintf(format, args...)
	if s.proj != nil && s.proj.Log(msg) {
		return
	}
	if s.env.Stderr != nil {
		fmt.Fprint(s.env.Stderr, "cairn: "+project.LogLine(msg))
	}
}

// beat notes that this hook ran, when the project has a .cairn (the reject
// path never gets here: it has nothing to note and no time).
func (s *Session) beat() {
	if s.proj == nil || !s.proj.Store.Exists() {
		return
	}
	if err := s.proj.Beat(s.name); err != nil {
		s.logf("heartbeat: %v", err)
	}
}

// tooOld reports whether the project's config asks for a newer cairn than
// this one; then cairn stays out of the session, and at its start tells
// the agent and the person how to update.
func (s *Session) tooOld(e event.Event) (event.Answer, bool) {
	if !s.proj.Store.Exists() {
		return event.Answer{}, false
	}
	cfg, err := s.config()
	if err != nil || cfg.MinVersion == "" || !knowledge.VersionLess(cairn.Version, cfg.MinVersion) {
		return event.Answer{}, false
	}
	if e.Kind != event.Start {
		return event.Answer{}, true
	}
	msg := fmt.Sprintf("This repository's team memory (cairn) asks for cairn %s or newer; this machine has %s, so none of it was loaded. To update: %s",
		inert(cfg.MinVersion, 20), cairn.Version, cairn.InstallCommand)
	return event.Answer{Context: msg, Status: "cairn: " + msg}, true
}

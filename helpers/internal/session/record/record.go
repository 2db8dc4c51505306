// Package record is the session layer's light half: the hook entry every
// event goes through (payload, project, version gate, heartbeat, failing
// open) and the events that record what an agent learned — a tool ran, a
// reply, a subagent's reply — into the log, with the session pipeline's
// queue. It imports neither SQLite, go-git nor the CLI framework, so the
// capture hook's accept path (package hookgate/accept) runs it before those are
// initialised; package session adds recall and the background work, and
// answers every other event.
package record

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/helpers/internal/capture"
	"github.com/cairn-dev/cairn/helpers/internal/detach"
	"github.com/cairn-dev/cairn/helpers/internal/event"
	"github.com/cairn-dev/cairn/helpers/internal/hookgate"
	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
	"github.com/cairn-dev/cairn/helpers/internal/pipeline/queue"
	"github.com/cairn-dev/cairn/helpers/internal/project"
	"github.com/cairn-dev/cairn/helpers/internal/projroot"
	"github.com/cairn-dev/cairn/helpers/internal/untrusted"
	"github.com/cairn-dev/cairn/helpers/internal/userconf"
)

// Env is what a session may touch of the outside world.
type Env struct {
	Getenv func(string) string
	Stderr io.Writer // where a line goes when the project has no cairn.log
	Dir    string    // the working directory
	// Project is --dir as given before the hook's name (cairn --dir P
	// hook EVENT); CAIRN_DIR is read through Getenv. Either, when set, is
	// the project, whatever the agent says (see package projroot).
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

// Handler answers one decoded event of a session.
type Handler func(s *Session, e event.Event) (event.Answer, error)

// Run runs one hook call of an agent: the event name, its payload on
// stdin, answered by handle; it returns what to print on stdout, which is
// nothing or the protocol's output. It never fails and never panics:
// whatever goes wrong becomes one line in .cairn/cache/cairn.log (or on
// Stderr, without a .cairn), and the session goes on.
func Run(p Protocol, name string, stdin io.Reader, env Env, handle Handler) (out []byte) {
	s := &Session{Env: env, Name: name}
	defer func() {
		if r := recover(); r != nil {
			s.Locate("", "")
			s.Logf("%s%v", errPanicPrefix, r)
			out = nil
		}
	}()
	out, err := s.run(p, stdin, handle)
	if err != nil {
		s.Locate("", "") // a no-op once the event located the project
		s.Logf("%v", err)
		return nil
	}
	s.beat()
	return out
}

func (s *Session) run(p Protocol, stdin io.Reader, handle Handler) ([]byte, error) {
	if s.Env.Getenv(detach.ChildEnv) != "" {
		return nil, nil // the pipeline's own model call: no hook acts in it
	}
	s.Transcripts = p.ReadTranscript
	kind := p.Kind(s.Name)
	if kind == event.Unknown {
		return nil, fmt.Errorf("%w %q", ErrUnknown, s.Name)
	}
	data, err := ReadPayload(stdin)
	if err != nil {
		return nil, err
	}
	// The reject path, package hookgate's (whose init runs the same
	// before the program starts): no git, no SQLite.
	v, err := hookgate.Run(kind, data, hookgate.Caller{
		Decode: func() (event.Event, error) { return p.Decode(s.Name, data, s.Env.Getenv) },
		Root: func(e event.Event) string {
			s.Locate(e.ProjectDir, e.Cwd)
			return s.Proj.Root
		},
		Dir:    s.Env.Dir,
		Getenv: s.Env.Getenv,
		User:   s.User,
	})
	switch v {
	case hookgate.Invalid:
		return nil, ErrNotObject
	case hookgate.Nothing:
		return nil, err
	}
	e, err := p.Decode(s.Name, data, s.Env.Getenv)
	if err != nil {
		return nil, err
	}
	a, err := handle(s, e)
	if err != nil {
		return nil, err
	}
	return p.Encode(e, a)
}

// Hook is Run for the events this package answers alone (see
// [Session.Record]); any other event is answered with nothing.
func Hook(p Protocol, name string, stdin io.Reader, env Env) []byte {
	return Run(p, name, stdin, env, func(s *Session, e event.Event) (event.Answer, error) {
		a, _, err := s.Record(e)
		return a, err
	})
}

// Session is the handling of one event.
type Session struct {
	Env  Env
	Name string // the agent's name of the event, for the log
	// Proj is the event's project, once Locate found it.
	Proj *project.Project

	// Transcripts reads the agent's transcripts (nil when the session was
	// not started from an agent's hook).
	Transcripts func(io.Reader) (event.Conversation, error)

	cfg    knowledge.Config // .cairn/config.json, read once (see Config)
	cfgErr error
	cfgOK  bool

	user    userconf.User // the user's own config, read once (see User)
	userErr error
	userOK  bool
}

// Record answers the events that may record typed lines — a tool ran, a
// reply, a subagent's reply — and reports whether e was one of them.
func (s *Session) Record(e event.Event) (event.Answer, bool, error) {
	switch e.Kind {
	case event.ToolRan, event.Reply, event.SubagentReply:
	default:
		return event.Answer{}, false, nil
	}
	s.Begin(e)
	if a, old := s.TooOld(e); old {
		return a, true, nil
	}
	switch e.Kind {
	case event.ToolRan:
		if !e.Shell {
			return event.Answer{}, true, nil
		}
		a, err := s.Capture(e, capture.FromCommand(e.Command), "agent")
		return a, true, err
	case event.Reply:
		defer s.Enqueue(e, queue.ReasonStop, false)
		a, err := s.Capture(e, capture.FromReply(e.Text), "agent")
		return a, true, err
	default:
		items := capture.FromReply(e.Text)
		if len(items) == 0 {
			a, err := s.nudge(e)
			return a, true, err
		}
		a, err := s.Capture(e, items, "subagent")
		return a, true, err
	}
}

// Begin names the session after e (when the hook did not) and finds its
// project.
func (s *Session) Begin(e event.Event) {
	if s.Name == "" {
		s.Name = e.Name
	}
	s.Locate(e.ProjectDir, e.Cwd)
}

// Locate finds the project once, by package projroot's rule: --dir
// (Env.Project), CAIRN_DIR, the agent's project directory, the payload's
// cwd, the working directory.
func (s *Session) Locate(agentDir, cwd string) {
	if s.Proj != nil {
		return
	}
	s.Proj = project.Locate(s.Where(agentDir, cwd))
}

// Where is what the session knows of its project, for package projroot.
func (s *Session) Where(agentDir, cwd string) projroot.Request {
	return projroot.Request{Flag: s.Env.Project, Getenv: s.Env.Getenv, Agent: agentDir, Cwd: cwd, Dir: s.Env.Dir}
}

// Config reads the project's .cairn/config.json once per event: several
// steps ask it (the version gate, recall, the status line).
func (s *Session) Config() (knowledge.Config, error) {
	if !s.cfgOK {
		s.cfg, s.cfgErr = s.Proj.Store.LoadConfig()
		s.cfgOK = true
	}
	return s.cfg, s.cfgErr
}

// User reads the user's own config (package userconf) once per event:
// the session's start asks it three times (the pipeline, the personal
// knowledge, the wiki).
func (s *Session) User() (userconf.User, error) {
	if !s.userOK {
		s.user, s.userErr = userconf.Load(s.Env.Getenv)
		s.userOK = true
	}
	return s.user, s.userErr
}

// Logf appends one line to .cairn/cache/cairn.log. Without a .cairn
// directory (a project that does not use cairn) it writes nothing there —
// creating .cairn just to log would litter every repository — and the line
// goes to Stderr, which an agent keeps in its debug log.
func (s *Session) Logf(format string, args ...any) {
	msg := s.Name + " " + fmt.Sprintf(format, args...)
	if s.Proj != nil && s.Proj.Log(msg) {
		return
	}
	if s.Env.Stderr != nil {
		fmt.Fprint(s.Env.Stderr, "cairn: "+project.LogLine(msg))
	}
}

// beat notes that this hook ran, when the project has a .cairn (the reject
// path never gets here: it has nothing to note and no time).
func (s *Session) beat() {
	if s.Proj == nil || !s.Proj.Store.Exists() {
		return
	}
	if err := s.Proj.Beat(s.Name); err != nil {
		s.Logf("heartbeat: %v", err)
	}
}

// TooOld reports whether the project's config asks for a newer cairn than
// this one; then cairn stays out of the session, and at its start tells
// the person how to update and the model only, in cairn's fixed wording,
// that cairn is too old (nothing of the config reaches the model).
func (s *Session) TooOld(e event.Event) (event.Answer, bool) {
	if !s.Proj.Store.Exists() {
		return event.Answer{}, false
	}
	cfg, err := s.Config()
	if err != nil || cfg.MinVersion == "" || !knowledge.VersionLess(cairn.Version, cfg.MinVersion) {
		return event.Answer{}, false
	}
	if e.Kind != event.Start {
		return event.Answer{}, true
	}
	model := "This repository's team memory (cairn) asks for a newer cairn than this machine's " + cairn.Version +
		", so none of it was loaded: " + cairn.ModelInstallNotice + "."
	person := fmt.Sprintf("cairn: this repository's team memory asks for cairn %s or newer; this machine has %s, so none of it was loaded. %s",
		untrusted.ForAgent(cfg.MinVersion, 20), cairn.Version, updateRoute(cfg))
	return event.Answer{Context: model, Status: person}, true
}

// updateRoute tells the person how to update cairn here: the way this
// binary was installed when it knows, else the project's install hint
// when [knowledge.CheckInstallHint] passes it, labelled as the
// repository's suggestion, else the route that always works.
func updateRoute(cfg knowledge.Config) string {
	if own := cairn.InstallHint(); own != "" {
		return "To update: " + own
	}
	if knowledge.CheckInstallHint(cfg.InstallHint) == nil {
		return "To update, this repository suggests (read it before you run it): " + knowledge.CleanInstallHint(cfg.InstallHint)
	}
	return "To update: " + cairn.NoRouteHint
}

// Task is the pipeline's task for the session of e.
func (s *Session) Task(e event.Event, reason string) queue.Task {
	return queue.TaskOf(e, reason, s.Proj.Root, s.Env.Dir)
}

// Enqueue hands the session to the personal session pipeline, when the
// user turned it on: a reply passes the gates (debounce, growth), the
// session's end forces past them. A failure is a line in the log; the
// session goes on.
func (s *Session) Enqueue(e event.Event, reason string, force bool) {
	if e.Transcript == "" {
		return
	}
	if _, err := queue.Produce(s.Env.Getenv, s.User, s.Task(e, reason), force, time.Now()); err != nil {
		s.Logf("session pipeline: %v", err)
	}
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

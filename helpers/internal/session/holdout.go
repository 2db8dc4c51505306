package session

import (
	"errors"
	"time"

	"github.com/cairn-dev/cairn/helpers/internal/event"
	"github.com/cairn-dev/cairn/helpers/internal/holdout"
	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
	"github.com/cairn-dev/cairn/helpers/internal/project"
	"github.com/cairn-dev/cairn/helpers/internal/recall"
	"github.com/cairn-dev/cairn/helpers/internal/userconf"
)

// heldOut reports whether e's session goes without recall (see package
// holdout): the team's share from .cairn/config.json, the person's over
// it. Every recall path of a hook asks it before anything is injected.
func (s *Session) heldOut(e event.Event) bool {
	var cfg knowledge.Config
	if s.Proj.Store.Exists() {
		cfg, _ = s.Config()
	}
	u, err := s.User()
	if err != nil && !errors.Is(err, userconf.ErrPath) {
		u = userconf.User{}
	}
	return holdout.Out(e.Session, holdout.Share(cfg.Holdout, u.Config.Holdout))
}

// HeldOut is [Session.heldOut] for a caller outside the hooks (the MCP
// server): whether session, in project p, goes without recall.
func HeldOut(p *project.Project, getenv func(string) string, session string) bool {
	if session == "" {
		return false
	}
	var cfg knowledge.Config
	if p.Store.Exists() {
		cfg, _ = p.Store.LoadConfig()
	}
	return holdout.Out(session, holdout.Share(cfg.Holdout, userconf.Holdout(getenv)))
}

// holdoutStart answers the start of a held-out session: nothing injected,
// a line in `cairn log` that says why, and the person's status line.
func (s *Session) holdoutStart(e event.Event) (event.Answer, error) {
	var cfg knowledge.Config
	if s.Proj.Store.Exists() {
		cfg, _ = s.Config()
	}
	u, _ := s.User()
	if recordInjections && s.Proj.Store.Exists() {
		in := recall.Injection{Time: time.Now().UnixNano(), Agent: e.Agent, Session: e.Session, Moment: recall.MomentStart,
			Entries: []recall.Shown{}, Holdout: true, Share: holdout.Share(cfg.Holdout, u.Config.Holdout)}
		if err := recall.AddInjection(s.Proj.Store, in); err != nil {
			s.Logf("record the holdout session: %v", err)
		}
	}
	if s.Proj.Store.Exists() {
		s.Logf("session %s is a holdout session: no recall", e.Session)
	}
	return event.Answer{Status: holdout.Status}, nil
}

package session

import (
	"github.com/cairn-dev/cairn/helpers/internal/agent"
	"github.com/cairn-dev/cairn/helpers/internal/event"
	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
	"github.com/cairn-dev/cairn/helpers/internal/session/record"
)

// The record of the session that started last, per agent, and the
// provenance of an entry that does not say who records it, are
// package record's (record.NoteStarted, record.Provenance), which `cairn
// add`'s early path reads before this package initialises.

// noteStarted records e's session as the agent's latest in the project.
func (s *Session) noteStarted(e event.Event) {
	if err := record.NoteStarted(s.Proj.Store, e.Agent, e.Session); err != nil {
		s.Logf("record the session start: %v", err)
	}
}

// Provenance is [record.Provenance].
func Provenance(adapters []agent.Adapter, getenv func(string) string, store *knowledge.Store) (source, agentName, sessionID string) {
	return record.Provenance(adapters, getenv, store)
}

// Caller is [record.Caller].
func Caller(adapters []agent.Adapter, getenv func(string) string, store *knowledge.Store) (name, session string, ok bool) {
	return record.Caller(adapters, getenv, store)
}

// LastStarted is [record.LastStarted].
func LastStarted(store *knowledge.Store, agent string) string {
	return record.LastStarted(store, agent)
}

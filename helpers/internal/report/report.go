// Package report measures what recall is worth on this machine's own
// work (`cairn report`): it reads the agents' transcripts of a project's
// sessions, joins them with the record of injections (`cairn log`), and
// compares the sessions with recall against the holdout's (package
// holdout) per agent and per figure, with medians and a seeded bootstrap
// interval; it says which injected entries were used, exports aggregates
// without a string of the sessions, and merges exports.
package report

import (
	"fmt"
	"os"
	"runtime"
	"slices"
	"sync"
	"time"

	cairn "github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/helpers/internal/agent"
	"github.com/cairn-dev/cairn/helpers/internal/holdout"
	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
	"github.com/cairn-dev/cairn/helpers/internal/recall"
)

// The figures each session is measured by, in the report's order.
const (
	FigInput = iota
	FigOutput
	FigCache
	FigTools
	FigFailed
	FigTurns
	FigMinutes
	FigCompactions
	FigReverted
	FigCorrective
	nFigures
)

// Figures names each figure: its JSON name and its label for people.
var Figures = [nFigures]struct{ Name, Label string }{
	{"input_tokens", "input tokens"},
	{"output_tokens", "output tokens"},
	{"cache_tokens", "cache tokens (read and written)"},
	{"tool_calls", "tool calls"},
	{"failed_tool_calls", "failed tool calls"},
	{"turns", "turns (prompts typed)"},
	{"wall_minutes", "wall time (minutes)"},
	{agent.FigureCompactions, "compactions"},
	{agent.FigureEditsReverted, "edits reverted"},
	{"corrective_prompts", "corrective prompts"},
}

// Options say which sessions a report reads.
type Options struct {
	Store    *knowledge.Store // the project's .cairn (the record of injections, the entries)
	Root     string           // the project's work tree
	Adapters []agent.Adapter  // those that are agent.Measurer are read
	Getenv   func(string) string
	Since    time.Duration // sessions that started this long ago or later (0: all)
	Agent    string        // only this adapter's sessions ("" for every agent)
	Now      time.Time
	// Share is the holdout share now in force: a session the record of
	// injections does not name is assigned by it.
	Share float64
	Seed  uint64
}

// Session is one session's figures.
type Session struct {
	ID      string            `json:"session"`
	Agent   string            `json:"agent"`
	Start   time.Time         `json:"start"`
	Holdout bool              `json:"holdout"`
	Values  [nFigures]float64 `json:"-"`
}

// Report is what `cairn report` says.
type Report struct {
	Version string      `json:"cairn_version"`
	From    time.Time   `json:"from,omitzero"`
	To      time.Time   `json:"to,omitzero"`
	Share   float64     `json:"holdout_share"`
	Agents  []AgentPart `json:"agents"`
	// Used are the injected entries that were used; Unused those injected
	// in at least UnusedAfter sessions and never used (curation
	// candidates). Neither is exported.
	Used   []EntryUse `json:"used"`
	Unused []EntryUse `json:"unused"`
	// Skipped counts transcripts that could not be read.
	Skipped int `json:"skipped"`
}

// AgentPart is one agent's comparison.
type AgentPart struct {
	Agent   string   `json:"agent"`
	Title   string   `json:"title"`
	With    int      `json:"with_recall"`
	Without int      `json:"without_recall"`
	Figures []Figure `json:"figures"`
	// Sessions behind the figures (for the viewer; not in JSON).
	Sessions []Session `json:"-"`
}

// Figure is one figure of one agent.
type Figure struct {
	Name  string `json:"name"`
	Label string `json:"label"`
	Compared
}

// Build reads the sessions and compares them.
func Build(o Options) (Report, error) {
	if o.Now.IsZero() {
		o.Now = time.Now()
	}
	if o.Seed == 0 {
		o.Seed = Seed
	}
	r := Report{Version: cairn.Version, To: o.Now.UTC(), Share: o.Share, Agents: []AgentPart{}}
	cutoff := time.Time{}
	if o.Since > 0 {
		cutoff = o.Now.Add(-o.Since)
		r.From = cutoff.UTC()
	}
	injections, err := recall.AllInjections(o.Store)
	if err != nil {
		return r, err
	}
	log := joinLog(injections)
	entries, err := injectedEntries(o.Store, log)
	if err != nil {
		return r, err
	}
	uses := newUses()
	for _, a := range o.Adapters {
		m, ok := a.(agent.Measurer)
		if !ok || o.Agent != "" && a.Name() != o.Agent {
			continue
		}
		paths, err := m.Transcripts(o.Getenv, o.Root)
		if err != nil {
			return r, fmt.Errorf("%s transcripts: %w", a.Title(), err)
		}
		part := AgentPart{Agent: a.Name(), Title: a.Title()}
		type result struct {
			s       Session
			ok, bad bool
		}
		results := make([]result, len(paths))
		work := make(chan int)
		var wg sync.WaitGroup
		for range runtime.GOMAXPROCS(0) {
			wg.Go(func() {
				for i := range work {
					path := paths[i]
					if fi, err := os.Stat(path); err != nil || !cutoff.IsZero() && fi.ModTime().Before(cutoff) {
						continue
					}
					s, ok, err := measure(m, path, o.Root, log, entries, uses)
					results[i] = result{s: s, ok: ok && err == nil, bad: err != nil}
				}
			})
		}
		for i := range paths {
			work <- i
		}
		close(work)
		wg.Wait()
		for _, res := range results {
			if res.bad {
				r.Skipped++
			}
			if !res.ok || !cutoff.IsZero() && res.s.Start.Before(cutoff) {
				continue
			}
			res.s.Agent = a.Name()
			res.s.Holdout = assign(res.s.ID, log, o.Share)
			part.Sessions = append(part.Sessions, res.s)
		}
		if len(part.Sessions) > 0 {
			part = compareAgent(part, o.Seed)
			if u, ok := a.(agent.Unrecorder); ok {
				notRecorded(&part, u.Unrecorded())
			}
			r.Agents = append(r.Agents, part)
		}
	}
	r.Used, r.Unused = uses.split()
	return r, nil
}

// assign says whether a session was one of the holdout's: as the record
// of injections says (a holdout start, or recall injected), else by its
// id under the share now in force.
func assign(id string, log map[string]*logged, share float64) bool {
	if l, ok := log[id]; ok {
		return l.holdout
	}
	return holdout.Out(id, share)
}

// compareAgent computes each figure of part's sessions.
func compareAgent(part AgentPart, seed uint64) AgentPart {
	slices.SortFunc(part.Sessions, func(a, b Session) int { return a.Start.Compare(b.Start) })
	for _, s := range part.Sessions {
		if s.Holdout {
			part.Without++
		} else {
			part.With++
		}
	}
	rng := newRNG(seed)
	for f := range nFigures {
		with := make([]float64, 0, part.With)
		without := make([]float64, 0, part.Without)
		for _, s := range part.Sessions {
			if s.Holdout {
				without = append(without, s.Values[f])
			} else {
				with = append(with, s.Values[f])
			}
		}
		part.Figures = append(part.Figures, Figure{Name: Figures[f].Name, Label: Figures[f].Label, Compared: Compare(with, without, rng)})
	}
	return part
}

// notRecorded marks the figures part's agent does not record: no
// difference, no interval.
func notRecorded(part *AgentPart, names []string) {
	for i, f := range part.Figures {
		if slices.Contains(names, f.Name) {
			c := &part.Figures[i].Compared
			c.Enough, c.Difference, c.Low, c.High, c.NotRecordedBy = false, 0, 0, 0, part.Title
		}
	}
}

// logged is what the record of injections says of one session.
type logged struct {
	holdout bool
	// shown are the keys injected, with when each was first.
	shown map[string]time.Time
}

// joinLog indexes the record of injections by session.
func joinLog(list []recall.Injection) map[string]*logged {
	out := map[string]*logged{}
	for _, in := range list {
		l := out[in.Session]
		if l == nil {
			l = &logged{shown: map[string]time.Time{}}
			out[in.Session] = l
		}
		if in.Holdout {
			l.holdout = true
			continue
		}
		at := time.Unix(0, in.Time)
		for _, e := range in.Entries {
			if t, ok := l.shown[e.Key]; !ok || at.Before(t) {
				l.shown[e.Key] = at
			}
		}
	}
	return out
}

// injectedEntries are the entries of the log the record of injections
// names, by key.
func injectedEntries(s *knowledge.Store, log map[string]*logged) (map[string]*watched, error) {
	keys := map[string]bool{}
	for _, l := range log {
		for k := range l.shown {
			keys[k] = true
		}
	}
	out := map[string]*watched{}
	if len(keys) == 0 {
		return out, nil
	}
	recs, err := s.ReadKeys(keys, false)
	if err != nil {
		return nil, err
	}
	for _, rec := range recs {
		out[rec.Entry.Key] = newWatched(rec.Entry)
	}
	return out, nil
}

// measure reads one transcript: its figures, and which of the entries
// injected into it were used. ok is false for a subagent's transcript or
// one without a session.
func measure(m agent.Measurer, path, root string, log map[string]*logged, entries map[string]*watched, uses *uses) (Session, bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return Session{}, false, err
	}
	defer f.Close()
	var (
		corrective int
		edits      = reverts{}
		session    string
		watch      *sessionWatch
	)
	got, err := m.Measure(f, func(s agent.Seen) {
		switch s.Kind {
		case agent.SeenSession:
			session = s.Text
			if l, ok := log[session]; ok && len(l.shown) > 0 {
				watch = newSessionWatch(l.shown, entries, root)
			}
		case agent.SeenPrompt:
			if Corrective(s.Text) {
				corrective++
			}
		case agent.SeenEdit:
			edits.add(s.Path, s.Old, s.New)
		}
		if watch != nil {
			watch.see(s)
		}
	})
	if err != nil {
		return Session{}, false, err
	}
	if got.Session == "" || got.Sidechain {
		return Session{}, false, nil
	}
	if watch != nil && got.Session == session {
		watch.done(uses)
	}
	s := Session{ID: got.Session, Start: got.Start}
	s.Values[FigInput] = float64(got.Input)
	s.Values[FigOutput] = float64(got.Output)
	s.Values[FigCache] = float64(got.CacheRead + got.CacheWrite)
	s.Values[FigTools] = float64(got.ToolCalls)
	s.Values[FigFailed] = float64(got.FailedTools)
	s.Values[FigTurns] = float64(got.Turns)
	if !got.Start.IsZero() {
		s.Values[FigMinutes] = got.End.Sub(got.Start).Minutes()
	}
	s.Values[FigCompactions] = float64(got.Compactions)
	s.Values[FigReverted] = float64(edits.reverted)
	s.Values[FigCorrective] = float64(corrective)
	return s, true, nil
}

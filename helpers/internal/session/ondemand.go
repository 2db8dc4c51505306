package session

import (
	"errors"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/helpers/internal/gitmeta"
	"github.com/cairn-dev/cairn/helpers/internal/index"
	"github.com/cairn-dev/cairn/helpers/internal/pipeline"
	"github.com/cairn-dev/cairn/helpers/internal/project"
	"github.com/cairn-dev/cairn/helpers/internal/rank"
	"github.com/cairn-dev/cairn/helpers/internal/recall"
	"github.com/cairn-dev/cairn/helpers/internal/relevance"
	"github.com/cairn-dev/cairn/helpers/internal/session/record"
	"github.com/cairn-dev/cairn/helpers/internal/untrusted"
	"github.com/cairn-dev/cairn/helpers/internal/userconf"
)

// What an agent asks for itself, outside the hooks (an MCP tool call):
// the same search, sanitizing and wrapper as a session start's recall.

// Found is the answer to an agent's search of the team's knowledge.
type Found struct {
	// Text is what the agent reads: the entries sanitized and wrapped in
	// the untrusted block, best first, within the recall budget ("" when
	// nothing matched).
	Text string
	// Hits are the entries found, best first (their texts as in the log:
	// whoever shows them sanitizes them).
	Hits []rank.Hit
	// Provisioned is false when the project has no .cairn yet.
	Provisioned bool
}

// Recall searches p's team knowledge for an agent that asked, and renders
// what it found as a session start does. A project without .cairn has
// nothing (and is not provisioned by asking). getenv reads the
// environment (for the background sanitize a changed log starts).
func Recall(p *project.Project, getenv func(string) string, q rank.Query) (Found, error) {
	s := &Session{&record.Session{Env: record.Env{Getenv: getenv, Dir: p.Root}, Name: "recall", Proj: p}}
	if err := p.Store.Check(); err != nil {
		return Found{}, err
	}
	if !p.Store.Exists() {
		return Found{}, nil
	}
	ix, _, err := index.OpenSynced(p.Store)
	if err != nil {
		return Found{}, err
	}
	defer ix.Close()
	s.sanitizeIfNeeded(ix)
	if q.Text == "" {
		q.NewestFirst = true
	}
	hits, err := rank.Search(ix, q)
	if err != nil {
		return Found{}, err
	}
	f := Found{Hits: hits, Provisioned: true}
	if len(hits) == 0 {
		return f, nil
	}
	b := recall.Block{Budget: recall.MaxBudget, Query: strings.Join(relevance.Terms(q.Text), " "),
		Heading: "Matching " + untrusted.ForAgent(q.Text, 80) + ", best first:"}
	if q.Text == "" {
		b.Heading = "The newest entries:"
	}
	for _, h := range hits {
		b.Relevant = append(b.Relevant, h.Entry)
	}
	f.Text = recall.Render(b)
	return f, nil
}

// Left is what the developer's own session pipeline left open on a branch
// for the next session (see docs/pipeline.md).
type Left struct {
	Branch  string
	Found   bool
	Written time.Time
	Stale   bool     // older than a week: check before acting on it
	Items   []string // as written (whoever shows them sanitizes them)
	// Text is the handoff as a session start shows it: sanitized, under a
	// heading that says how old it is, in the untrusted block ("" when
	// there is none).
	Text string
}

// Handoff reads what the developer's last session on branch ("" for the
// project's current branch) left open, as a session start does. It is
// personal, never in the repository; without a pipeline there is none.
func Handoff(p *project.Project, getenv func(string) string, branch string) (Left, error) {
	if branch == "" && p.IsGit {
		branch = gitmeta.Read(p.Root).Branch
	}
	l := Left{Branch: branch}
	u, err := userconf.Load(getenv)
	own, ok := pipeline.PersonalFor(u, err, p.Root)
	if !ok {
		return l, errors.New("cannot find your knowledge directory (no HOME)")
	}
	h, ok := own.ReadHandoff(branch)
	if !ok {
		return l, nil
	}
	now := time.Now()
	l.Found, l.Written, l.Items = true, h.Written, h.Items
	l.Stale = now.Sub(h.Written) > staleAfter
	l.Text = recall.Render(recall.Block{Handoff: h.Items, HandoffHeading: handoffHeading(h, now), Budget: recall.MaxBudget})
	return l, nil
}

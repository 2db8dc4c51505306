package session

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/helpers/internal/capture"
	"github.com/cairn-dev/cairn/helpers/internal/detach"
	"github.com/cairn-dev/cairn/helpers/internal/event"
	"github.com/cairn-dev/cairn/helpers/internal/fsx"
	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
	"github.com/cairn-dev/cairn/helpers/internal/pipeline"
	"github.com/cairn-dev/cairn/helpers/internal/pipeline/queue"
	"github.com/cairn-dev/cairn/helpers/internal/recall"
	"github.com/cairn-dev/cairn/helpers/internal/relevance"
	"github.com/cairn-dev/cairn/helpers/internal/wiki"
)

// remember notes the session at its start, when the pipeline is on, so
// that `cairn handoff-now` in it knows its transcript.
func (s *Session) remember(e event.Event) {
	if e.Transcript == "" || s.Env.Getenv(detach.ChildEnv) != "" {
		return
	}
	u, err := s.User()
	if err != nil || !u.Config.Pipeline {
		return
	}
	if err := queue.Open(u.Dirs).Remember(s.Task(e, queue.ReasonManual)); err != nil {
		s.Logf("session pipeline: %v", err)
	}
}

// compactDir keeps, per session, how far compaction captures read its
// transcript (under .cairn/local).
const compactDir = knowledge.LocalDir + "/compact"

// maxCompactRead caps how much new transcript one compaction reads.
const maxCompactRead = 32 << 20

// compact captures the typed lines the agent wrote since the last
// compaction (a reply's typed lines are captured when it ends; the text
// between tool calls only here, before compaction summarises it away),
// then queues the session for the pipeline.
func (s *Session) compact(e event.Event) (event.Answer, error) {
	defer s.Enqueue(e, queue.ReasonCompact, false)
	if s.Transcripts == nil || e.Transcript == "" || !s.Proj.Store.Exists() {
		return event.Answer{}, nil
	}
	root := s.Proj.Store.Root()
	mark := compactDir + "/" + queue.Name(e.Session)
	var from int64
	if data, err := root.ReadFile(mark, 64); err == nil {
		from, _ = strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64)
	}
	f, err := fsx.OpenRegular(e.Transcript)
	if err != nil {
		return event.Answer{}, fmt.Errorf("compaction capture: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return event.Answer{}, fmt.Errorf("compaction capture: %w", err)
	}
	if from < 0 || from > fi.Size() {
		from = 0 // a new transcript in the old one's place
	}
	if _, err := f.Seek(from, io.SeekStart); err != nil {
		return event.Answer{}, err
	}
	data, err := io.ReadAll(io.LimitReader(f, maxCompactRead))
	if err != nil {
		return event.Answer{}, err
	}
	end := bytes.LastIndexByte(data, '\n') + 1 // whole lines only
	if len(data) == maxCompactRead {
		s.Logf("compaction capture: read %d MiB of %s from byte %d; the rest at the next compaction", maxCompactRead>>20, e.Transcript, from)
	}
	c, err := s.Transcripts(bytes.NewReader(data[:end]))
	if err != nil {
		return event.Answer{}, fmt.Errorf("compaction capture: %w", err)
	}
	var items []capture.Item
	for _, m := range c.Messages {
		if m.Role == "assistant" {
			items = append(items, capture.FromReply(m.Text)...)
		}
	}
	// Silent: what PreCompact prints may reach the compaction's
	// instructions, so the capture's status line is not said here (the
	// log has it).
	if _, err := s.Capture(e, items, "agent"); err != nil {
		return event.Answer{}, err
	}
	if err := root.MkdirAll(compactDir); err != nil {
		return event.Answer{}, err
	}
	return event.Answer{}, root.ReplaceFile(mark, []byte(strconv.FormatInt(from+int64(end), 10)), 0o644)
}

// personal is what this developer's own pipeline left for the session
// starting on branch: the branch's handoff and, of the personal entries,
// the prevention of recent failures relevant to the work (met on this
// branch, or matching the query; without a query, the most recent) and
// the most recent decisions, each as one entry to show.
func (s *Session) personal(branch, query string, team func(key string) bool) (handoff []string, heading string, own []knowledge.Entry) {
	u, err := s.User()
	p, ok := pipeline.PersonalFor(u, err, s.Proj.Root)
	if !ok {
		return nil, "", nil
	}
	if h, ok := p.ReadHandoff(branch); ok {
		handoff, heading = h.Items, handoffHeading(h, time.Now())
	}
	entries, err := p.Entries()
	if err != nil {
		s.Logf("personal knowledge: %v", err)
	}
	terms := relevance.Terms(query)
	var failures, decisions []knowledge.Entry
	// team (a lookup in the cache) is asked only of the few entries that
	// would be shown: a promoted one is shown as the team's.
	for _, e := range entries {
		if len(failures) == maxPersonalFailures && len(decisions) == maxPersonalDecisions {
			break
		}
		switch {
		case pipeline.IsFailure(e) && len(failures) < maxPersonalFailures:
			if (len(terms) == 0 || e.Branch == branch && branch != "" || recall.Mentions(e, terms)) && !team(e.Key) {
				failures = append(failures, prevention(e))
			}
		case e.Type == "decision" && len(decisions) < maxPersonalDecisions && !team(e.Key):
			decisions = append(decisions, e)
		}
	}
	return handoff, heading, append(failures, decisions...)
}

// maxWikiLines caps the wiki pages a session start names.
const maxWikiLines = 3

// wikiLines names the developer's wiki pages relevant to the query (their
// index rows sharing its terms, best first), each with its file, never
// the whole index.
func (s *Session) wikiLines(query string) []string {
	u, err := s.User()
	if err != nil {
		return nil
	}
	w := filepath.Join(u.Knowledge(), "wiki")
	rows, err := wiki.RelevantRows(w, query, maxWikiLines)
	if err != nil {
		s.Logf("wiki index: %v", err)
	}
	var out []string
	for _, r := range rows {
		out = append(out, fmt.Sprintf("[[%s]] %s (%s)", r.Path, r.Summary, filepath.Join(w, filepath.FromSlash(r.Path)+".md")))
	}
	return out
}

// How many of the developer's own entries a session start shows.
const (
	maxPersonalFailures  = 3
	maxPersonalDecisions = 3
)

// staleAfter is how old a handoff is before it is marked as possibly
// stale; a fresher one never is.
const staleAfter = 7 * 24 * time.Hour

// handoffHeading says whose and how old a handoff is.
func handoffHeading(h pipeline.Handoff, now time.Time) string {
	age := now.Sub(h.Written)
	heading := "Left open on this branch by your last session (" + ago(age) + "):"
	if age > staleAfter {
		heading = "Left open on this branch by your session " + ago(age) + " (it may be stale: check before acting on it):"
	}
	return heading
}

// ago says how long d is, for people: "just now", "3 hours ago".
func ago(d time.Duration) string {
	switch {
	case d < 2*time.Minute:
		return "just now"
	case d < 2*time.Hour:
		return fmt.Sprintf("%d minutes ago", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%d hours ago", int(d.Hours()))
	}
	return fmt.Sprintf("%d days ago", int(d.Hours()/24))
}

// prevention shows a failure by its prevention line.
func prevention(e knowledge.Entry) knowledge.Entry {
	if e.Detail != nil && e.Detail.Prevention != "" {
		e.Content = "Prevention: " + e.Detail.Prevention + " (after: " + e.Content + ")"
	}
	return e
}

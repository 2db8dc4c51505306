package record

import (
	"fmt"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/helpers/internal/anchor"
	"github.com/cairn-dev/cairn/helpers/internal/capture"
	"github.com/cairn-dev/cairn/helpers/internal/event"
	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
	"github.com/cairn-dev/cairn/helpers/internal/typed"
)

// Capture adds the items to the log with provenance. It provisions .cairn
// if needed: an agent that wrote typed knowledge meant it to be kept.
func (s *Session) Capture(e event.Event, items []capture.Item, source string) (event.Answer, error) {
	var none event.Answer
	if len(items) == 0 {
		return none, nil
	}
	p := s.Proj
	if err := p.Store.Check(); err != nil {
		return none, fmt.Errorf("capture: %w", err)
	}
	if !p.IsGit && !p.Store.Exists() {
		// Never provision outside a git work tree: an event's cwd may be
		// anywhere (even /etc), and nothing there asked for cairn.
		s.Logf("not captured: %s is not in a git work tree and has no %s", p.Root, knowledge.DirName)
		return none, nil
	}
	if len(items) > capture.MaxPerEvent {
		s.Logf("captured the first %d of %d typed lines; the other %d were dropped (at most %d per event)",
			capture.MaxPerEvent, len(items), len(items)-capture.MaxPerEvent, capture.MaxPerEvent)
		items = items[:capture.MaxPerEvent]
	}
	entries := capture.Entries(items, e.Session, source)
	now := time.Now()
	turn := anchor.ReadTouched(p.Store.Root(), e.Session)
	for i := range entries {
		p.Provenance(&entries[i], now)
		p.Anchor(&entries[i], turn)
	}
	res, err := p.Store.Insert(entries)
	if err != nil {
		return none, fmt.Errorf("capture: %w", err)
	}
	var keys []string
	for _, a := range res.Added {
		keys = append(keys, a.Key)
		if len(a.Redacted) > 0 {
			s.Logf("redacted %s from %s", strings.Join(a.Redacted, ","), a.Key)
		}
	}
	if len(keys) == 0 {
		return none, nil
	}
	s.Logf("captured %d: %s", len(keys), strings.Join(keys, " "))
	if cfg, err := s.Config(); err != nil || !cfg.ShowStatus() {
		return none, nil
	}
	return event.Answer{Status: captureStatus(res.Added)}, nil
}

// captureStatus is the person's line when a capture lands: "cairn:
// recorded 1 decision", "cairn: recorded 3 entries (2 learned, 1 fact)".
func captureStatus(added []knowledge.Entry) string {
	if len(added) == 1 {
		return "cairn: recorded 1 " + added[0].Type
	}
	count := map[string]int{}
	var order []string
	for _, e := range added {
		if count[e.Type] == 0 {
			order = append(order, e.Type)
		}
		count[e.Type]++
	}
	parts := make([]string, len(order))
	for i, t := range order {
		parts[i] = fmt.Sprintf("%d %s", count[t], t)
	}
	return fmt.Sprintf("cairn: recorded %d entries (%s)", len(added), strings.Join(parts, ", "))
}

// NudgeReason is what a subagent that recorded nothing is asked, once.
const NudgeReason = "Before you finish: if this task taught you something a teammate would need next time " +
	"(a gotcha, a decision and why, a constraint, a root cause), add it to your final reply as lines starting with " +
	typed.PrefixList + ". If there is nothing worth recording, finish as you were."

// minNudgeWords is how long a subagent's reply must be to count as work
// worth asking about.
const minNudgeWords = 30

// nudge asks a subagent that worked and recorded nothing to record what it
// learned: only when .cairn/config.json sets capture.subagent_nudge, and
// never twice.
func (s *Session) nudge(e event.Event) (event.Answer, error) {
	if e.Continued || len(strings.Fields(e.Text)) < minNudgeWords || !s.Proj.Store.Exists() {
		return event.Answer{}, nil
	}
	cfg, err := s.Config()
	if err != nil || !cfg.Capture.SubagentNudge {
		return event.Answer{}, err
	}
	return event.Answer{GoOn: NudgeReason}, nil
}

package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/helpers/internal/event"
	"github.com/cairn-dev/cairn/helpers/internal/fsx"
	"github.com/cairn-dev/cairn/helpers/internal/gitmeta"
	"github.com/cairn-dev/cairn/helpers/internal/gitx"
	"github.com/cairn-dev/cairn/helpers/internal/index"
	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
	"github.com/cairn-dev/cairn/helpers/internal/rank"
	"github.com/cairn-dev/cairn/helpers/internal/recall"
	"github.com/cairn-dev/cairn/helpers/internal/relevance"
	"github.com/cairn-dev/cairn/helpers/internal/typed"
	"github.com/cairn-dev/cairn/helpers/internal/untrusted"
)

// start syncs the cache and injects the knowledge that matters for the
// work at hand: the must-checks, then what is relevant to the branch,
// recent commits and open tasks, within the recall budget.
func (s *Session) start(e event.Event) (event.Answer, error) {
	var none event.Answer
	p := s.Proj
	cfg, ok, err := s.recallable()
	if !ok {
		if err != nil {
			return none, err
		}
		// No team memory here; the developer's own may still have
		// something for this branch.
		if text := s.personalOnly(); text != "" {
			return event.Answer{Context: text}, nil
		}
		s.Logf("no %s in %s: nothing to recall (install.sh or cairn add provisions it)", knowledge.DirName, p.Root)
		return none, nil
	}
	ix, err := s.openIndex()
	if errors.Is(err, index.ErrNotReady) {
		return s.startWithoutIndex(e, cfg, err)
	}
	if err != nil {
		return none, err
	}
	defer ix.Close()
	s.sanitizeIfNeeded(ix)
	ctx := s.context()
	query := recall.Query(ctx)
	must, err := rank.Search(ix, rank.Query{Type: typed.MustCheck, NewestFirst: true, Limit: 50})
	if errors.Is(err, index.ErrNotReady) {
		// Damaged, and too big to rebuild here.
		s.startSync(true)
		return s.startWithoutIndex(e, cfg, err)
	}
	if err != nil {
		return none, err
	}
	var relevant, held []knowledge.Entry
	if query != "" {
		const limit = 40 // more than a 6,000-character block can show
		hits, err := rank.Search(ix, rank.Query{Text: query, Limit: limit, Floor: true, Context: true})
		if err != nil {
			return none, err
		}
		for _, hit := range hits {
			if hit.Entry.Type != typed.MustCheck {
				relevant = append(relevant, hit.Entry)
			}
		}
		relevant, held = s.holdForTool(e.Agent, cfg, relevant)
	}
	block := recall.Block{
		Relevant: relevant,
		Query:    strings.Join(relevance.Terms(query), " "),
		Budget:   cfg.Recall.Budget,
		HowTo:    true,
		Heading:  heading(ctx),
		Command:  agentCommand(),
	}
	for _, hit := range must {
		block.MustCheck = append(block.MustCheck, hit.Entry)
	}
	block.Handoff, block.HandoffHeading, block.Personal = s.personal(ctx.Branch, query, func(key string) bool {
		has, err := ix.Has(key)
		return err == nil && has
	})
	block.Wiki = s.wikiLines(query)
	text, shown, counts := recall.RenderCounted(block)
	if err := recall.PruneShown(p.Store, time.Now()); err != nil {
		s.Logf("prune session records: %v", err)
	}
	if err := recall.AddShown(p.Store, e.Session, shown); err != nil {
		s.Logf("record shown entries: %v", err)
	}
	s.logInjection(e, recall.MomentStart, ctx.Branch, block, text, shown, counts.Handoff, held, func(en knowledge.Entry) string {
		return recall.Why(ctx, en)
	})
	a := event.Answer{Context: text}
	if cfg.ShowStatus() {
		a.Status = startStatus(ix, counts, len(held))
	}
	return a, nil
}

// openIndex opens the project's cache for a hook: never a rebuild, never
// a long catch-up. When it cannot serve ([index.ErrNotReady]), a
// background sync is started and the error returned.
func (s *Session) openIndex() (*index.Index, error) {
	ix, err := index.OpenSyncedForHook(s.Proj.Store)
	if errors.Is(err, index.ErrNotReady) {
		s.startSync(false)
	}
	return ix, err
}

// startSync starts a background sync of the project (a rebuild when
// full), logging why it could not.
func (s *Session) startSync(full bool) {
	if err := StartSync(s.Proj, s.Env.Getenv, full); err != nil {
		s.Logf("%v", err)
	}
}

// Bounds of the read of the log a session start does while the cache is
// built: bytes read (the log's order is its keys' hashes, so any part is
// a fair sample), must-checks and newest entries kept.
const (
	glanceBytes  = 48 << 20
	glanceMust   = 50
	glanceNewest = 40
)

// startWithoutIndex answers a session start while the cache is being
// built: the must-checks and newest entries of one bounded read of the
// log, under a heading that says so. Anchored notes are not held for the
// moment before a tool here: that moment needs the cache too.
func (s *Session) startWithoutIndex(e event.Event, cfg knowledge.Config, why error) (event.Answer, error) {
	g, err := s.Proj.Store.Glance(glanceBytes, glanceMust, glanceNewest)
	if err != nil {
		return event.Answer{}, err
	}
	s.Logf("%v: answered from a bounded read of the log (%d lines, %d bytes)", why, g.Lines, g.Read)
	heading := "cairn's search index of the team memory is still being built in the background, so this is not matched to your work: the must-checks and the newest entries"
	if g.Partial {
		heading += fmt.Sprintf(" of the first %d MiB of the log", glanceBytes>>20)
	}
	heading += ". Ask `cairn recall WORDS` for more in a minute."
	block := recall.Block{
		MustCheck: g.MustCheck,
		Relevant:  g.Newest,
		Budget:    cfg.Recall.Budget,
		HowTo:     true,
		Heading:   heading,
		Command:   agentCommand(),
	}
	branch := ""
	if s.Proj.IsGit {
		branch = gitmeta.Read(s.Proj.Root).Branch
	}
	block.Handoff, block.HandoffHeading, block.Personal = s.personal(branch, branch, func(string) bool { return false })
	text, shown, counts := recall.RenderCounted(block)
	if err := recall.AddShown(s.Proj.Store, e.Session, shown); err != nil {
		s.Logf("record shown entries: %v", err)
	}
	s.logInjection(e, recall.MomentStart, branch, block, text, shown, counts.Handoff, nil, func(knowledge.Entry) string {
		return recall.ReasonNewest
	})
	a := event.Answer{Context: text}
	if cfg.ShowStatus() {
		a.Status = fmt.Sprintf("cairn: the search index is being built; showed %d must-check and newest entries", len(shown))
	}
	return a, nil
}

// personalOnly is the block of the developer's own knowledge for a
// project without team memory: the branch's handoff and own entries.
func (s *Session) personalOnly() string {
	branch := ""
	if s.Proj.IsGit {
		branch = gitmeta.Read(s.Proj.Root).Branch
	}
	handoff, heading, own := s.personal(branch, branch, func(string) bool { return false })
	pages := s.wikiLines(branch)
	if len(handoff) == 0 && len(own) == 0 && len(pages) == 0 {
		return ""
	}
	return recall.Render(recall.Block{Handoff: handoff, HandoffHeading: heading, Personal: own, Wiki: pages})
}

// startStatus is the person's line at session start: the team entries
// shown out of the team's total, the developer's own additions named
// apart, and the notes held for the moment a tool touches their files
// ("cairn: recalled 5 of 120 team entries, your handoff and 2 notes; 3
// held for their files").
func startStatus(ix *index.Index, c recall.Counts, held int) string {
	total, err := ix.Count()
	if err != nil {
		return ""
	}
	var own []string
	if c.Handoff > 0 {
		own = append(own, "your handoff")
	}
	switch {
	case c.Personal == 1 && len(own) == 0:
		own = append(own, "1 note of yours")
	case c.Personal == 1:
		own = append(own, "1 note")
	case c.Personal > 1 && len(own) == 0:
		own = append(own, fmt.Sprintf("%d notes of yours", c.Personal))
	case c.Personal > 1:
		own = append(own, fmt.Sprintf("%d notes", c.Personal))
	}
	mine := strings.Join(own, " and ")
	if total == 0 {
		msg := "cairn: team memory is empty; typed lines (LEARNED: ...) in replies are recorded"
		if mine != "" {
			msg += "; recalled " + mine
		}
		return msg
	}
	msg := fmt.Sprintf("cairn: recalled %d of %d team entries", c.Team, total)
	if mine != "" {
		msg += ", " + mine
	}
	if held > 0 {
		msg += fmt.Sprintf("; %d held for their files", held)
	}
	return msg
}

// agentCommand is how the agent can run cairn in this session: "cairn"
// when it is on PATH, else this binary's own path (a teammate's cairn in
// ~/.local/bin or ~/go/bin that the launcher found off PATH).
func agentCommand() string {
	if _, err := exec.LookPath("cairn"); err == nil {
		return "cairn"
	}
	self, err := os.Executable()
	if err != nil {
		return "cairn"
	}
	return fsx.ShellQuote(self)
}

func heading(ctx recall.Context) string {
	var what []string
	if len(ctx.Tasks) > 0 {
		what = append(what, "open tasks")
	}
	if ctx.Branch != "" {
		what = append(what, "branch "+untrusted.ForAgent(ctx.Branch, 80))
	}
	if len(ctx.Commits) > 0 {
		what = append(what, "recent commits")
	}
	if len(what) == 0 {
		return ""
	}
	return "Relevant to " + strings.Join(what, ", ") + ", best first:"
}

// context reads the branch, recent commits and, when the beads CLI is
// installed, open task titles (under a short time limit).
func (s *Session) context() recall.Context {
	var c recall.Context
	p := s.Proj
	if p.IsGit {
		info := gitmeta.Read(p.Root)
		c.Branch = info.Branch
		if info.Head != "" {
			commits, err := gitx.RecentCommits(p.Root, 5, 20)
			if err != nil {
				s.Logf("recent commits: %v", err)
			}
			for _, cm := range commits {
				c.Commits = append(c.Commits, recall.Commit{Subject: cm.Subject, Files: cm.Files})
			}
		}
	}
	c.Tasks = s.beadTitles()
	return c
}

// beadTitles lists in-progress and open beads' titles, if bd is on PATH.
func (s *Session) beadTitles() []string {
	bd, err := exec.LookPath("bd")
	if err != nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	var titles []string
	for _, status := range []string{"in_progress", "open"} {
		cmd := exec.CommandContext(ctx, bd, "list", "--status", status, "--json")
		cmd.Dir = s.Proj.Root
		out, err := cmd.Output()
		if err != nil {
			s.Logf("bd list: %v", err)
			return titles
		}
		var issues []struct {
			Title string `json:"title"`
		}
		if json.Unmarshal(out, &issues) != nil {
			continue
		}
		for _, is := range issues {
			if is.Title != "" && len(titles) < 5 {
				titles = append(titles, is.Title)
			}
		}
	}
	return titles
}

// recordInjections is false only in the benchmark of a hook without the
// record (see export_test.go).
var recordInjections = true

// logInjection records what an injection showed, and why, for cairn log
// (see [recall.AddInjection]): each shown key with the reason of the list
// it came from (relevant ones by relevant), the handoff items, the
// entries held for a tool on their files, the budget and the exact text.
// A failure is a line in the log, never the hook's.
func (s *Session) logInjection(e event.Event, moment, branch string, b recall.Block, text string, shown []string, handoff int, held []knowledge.Entry, relevant func(knowledge.Entry) string) {
	if text == "" || !recordInjections {
		return
	}
	why := map[string]string{}
	for _, en := range b.Relevant {
		why[en.Key] = relevant(en)
	}
	for _, en := range b.Personal {
		why[en.Key] = recall.ReasonPersonal
	}
	for _, en := range b.MustCheck {
		why[en.Key] = recall.ReasonMustCheck
	}
	in := recall.Injection{
		Time: time.Now().UnixNano(), Agent: e.Agent, Session: e.Session, Branch: branch, Moment: moment,
		Budget: b.Budget, Used: untrusted.Units(text), Handoff: handoff, Text: text, Entries: []recall.Shown{},
	}
	if in.Budget <= 0 {
		in.Budget = recall.DefaultBudget
	}
	for _, k := range shown {
		in.Entries = append(in.Entries, recall.Shown{Key: k, Reason: why[k]})
	}
	for _, en := range held {
		in.Held = append(in.Held, en.Key)
	}
	if err := recall.AddInjection(s.Proj.Store, in); err != nil {
		s.Logf("record the injection: %v", err)
	}
}

package session

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/cairn-dev/cairn/helpers/internal/agent/registry"
	"github.com/cairn-dev/cairn/helpers/internal/anchor"
	"github.com/cairn-dev/cairn/helpers/internal/event"
	"github.com/cairn-dev/cairn/helpers/internal/index"
	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
	"github.com/cairn-dev/cairn/helpers/internal/recall"
	"github.com/cairn-dev/cairn/helpers/internal/typed"
	"github.com/cairn-dev/cairn/helpers/internal/untrusted"
	"github.com/cairn-dev/cairn/helpers/internal/userconf"
)

// ToolBudget caps the block injected before one tool call, in UTF-16
// code units.
const ToolBudget = 1500

// MaxQuestions caps how many must-checks the guards ask the person about
// in one session; each is asked about at most once.
const MaxQuestions = 3

// maxReason caps the reason of a guard's question, in UTF-16 code units.
const maxReason = 600

// beforeTool injects, at a tool call, the notes anchored to the file it
// names (or to a directory above it) or, for a shell command, to the
// files it names and the command prefixes it runs: entries this session
// was not shown yet, and must-checks not yet shown as a check before a
// tool call, best first, within [ToolBudget]. Nothing anchored: nothing
// said. Agents deliver this context with the tool's result, so for a call
// that changes a file (an edit, a write, a shell command that writes the
// file or that a must-check names) the block says that the change has
// already run and what to check it against; for a read it comes with the
// file, before any change. With the person's own guards on (their
// config's "guards": "ask"; a team's config only recommends them), a
// session a person can answer (see event.Event.CanAsk), and a call that
// changes what a must-check protects, the person is asked to confirm
// (see [Session.guarded]). An edit is noted for the turn's capture (see
// record.Capture).
func (s *Session) beforeTool(e event.Event) (event.Answer, error) {
	var none event.Answer
	p := s.Proj
	if !p.Store.Exists() {
		return none, nil
	}
	paths := ToolPaths(p.Root, e)
	file, fileOK := anchor.Rel(p.Root, e.Cwd, e.Path)
	if e.Edits && fileOK {
		if err := anchor.NoteTouched(p.Store.Root(), e.Session, file); err != nil {
			s.Logf("note the edited file: %v", err)
		}
	}
	if s.heldOut(e) {
		return none, nil
	}
	cfg, ok, err := s.recallable()
	if !ok {
		return none, err
	}
	command := ""
	if e.Shell {
		command = e.Command
	}
	if len(paths) == 0 && command == "" {
		return none, nil
	}
	// After a pull, the cache is read as it is with the lines it lacks
	// (see index.OpenForTool), and caught up in the background: this
	// hook runs at every tool call and never waits for a catch-up.
	changes := changedBy(p.Root, e, file, fileOK)
	ix, err := index.OpenForTool(p.Store, slices.Concat(paths, changes), command)
	if errors.Is(err, index.ErrNotReady) {
		s.startSync(false)
		s.Logf("%v: no notes before the tool call", err)
		return none, nil
	}
	if err != nil {
		return none, err
	}
	defer ix.Close()
	if ix.Behind() {
		s.startSync(false)
	}
	if ix.AnchorsErr != nil {
		s.Logf("anchor map: %v", ix.AnchorsErr)
	}
	data, err := ix.Anchors()
	if err != nil {
		return none, err
	}
	hits := anchor.Lookup(data, paths, command)
	keys, why := anchoredKeys(hits)
	entries, err := ix.Entries(keys)
	if err != nil {
		return none, err
	}
	shown := recall.LoadShown(p.Store, e.Session)
	musts, notes := unseen(entries, shown, recall.LoadChecked(p.Store, e.Session))
	own := s.ownAnchored(paths, shown)
	asked := s.guarded(e, data, entries, changes, command)
	if len(musts) == 0 && len(notes) == 0 && len(own) == 0 && len(asked) == 0 {
		return none, nil
	}
	subject := toolSubject(hits, paths)
	ran := ""
	if e.Edits || len(changes) > 0 || hasCommandHit(hits) {
		// The agent reads this with the call's result: the change ran.
		ran = " — this tool call has already run: check what it changed against "
	}
	block := recall.Block{
		MustCheck:   musts,
		MustHeading: mustHeading(subject, ran),
		Relevant:    notes,
		Personal:    own,
		Budget:      ToolBudget,
		Small:       true,
		Terse:       true,
		Heading:     notesHeading(subject, ran),
	}
	var a event.Answer
	if len(musts)+len(notes)+len(own) > 0 {
		text, keysShown := recall.RenderShown(block)
		if len(keysShown) > 0 {
			checks := s.recordToolShown(e.Session, musts, keysShown)
			s.logInjection(e, recall.MomentTool, "", block, text, keysShown, 0, nil, func(en knowledge.Entry) string {
				return why[en.Key]
			})
			a.Context = text
			if cfg.ShowStatus() {
				a.Status = toolStatus(len(checks), len(keysShown)-len(checks), untrusted.ForAgent(subject, 80))
			}
		}
	}
	if len(asked) > 0 {
		a.Ask = guardReason(asked)
		if err := recall.AddAsked(p.Store, e.Session, entryKeys(asked)); err != nil {
			s.Logf("record the guard's question: %v", err)
		}
	}
	return a, nil
}

// toolSubject is what the notes of a tool call are on: the project path
// the first file hit came from (a file the tool or command names), else
// "this command" for a must-check on the command.
func toolSubject(hits []anchor.Hit, paths []string) string {
	for _, h := range hits {
		if h.Command {
			continue
		}
		for _, p := range paths {
			if anchor.Covers(h.Anchor, p) {
				return p
			}
		}
	}
	return "this command"
}

func hasCommandHit(hits []anchor.Hit) bool {
	for _, h := range hits {
		if h.Command {
			return true
		}
	}
	return false
}

// mustHeading heads the must-checks of a block before a tool on subject;
// ran, when set, says that the call already ran.
func mustHeading(subject, ran string) string {
	if ran != "" {
		return "Must check (a teammate's check on " + subject + ")" + ran + "it:"
	}
	return "Must check before changing " + subject + " (a teammate's check):"
}

// notesHeading heads the other notes of a block before a tool on subject.
func notesHeading(subject, ran string) string {
	if ran != "" {
		return "Team notes on " + subject + ran + "them:"
	}
	return "Team notes on " + subject + ":"
}

// changedBy are the project paths a tool call writes: the file an edit
// tool names, the files a shell command writes (see anchor.WritePaths).
func changedBy(root string, e event.Event, file string, fileOK bool) []string {
	var out []string
	if e.Edits && fileOK {
		out = append(out, file)
	}
	if e.Shell {
		for _, w := range anchor.WritePaths(e.Command) {
			if rel, ok := anchor.Rel(root, e.Cwd, w); ok {
				out = append(out, rel)
			}
		}
	}
	return out
}

// guarded are the must-checks the person is asked about before this
// call: only when they turned the guards on in their own config, a
// person can answer (e.CanAsk: never in print mode, bypassPermissions or
// any other mode that asks no one), and the call can change what the
// must-check protects — it writes a path the must-check is anchored to
// (changes), or runs the command the must-check names, unless that
// command only reads (see anchor.ReadOnly). Never a read, a search, a
// listing or a test run. Each must-check at most once per session, and at
// most [MaxQuestions] in all.
func (s *Session) guarded(e event.Event, data []byte, entries []knowledge.Entry, changes []string, command string) []knowledge.Entry {
	if !e.CanAsk || !s.guardsOn() {
		return nil
	}
	risky := map[string]bool{}
	for _, h := range anchor.Lookup(data, changes, "") {
		for _, k := range h.Keys {
			risky[k] = true
		}
	}
	if command != "" {
		for _, h := range anchor.Lookup(data, nil, command) {
			if anchor.ReadOnly(h.Anchor) {
				continue // a must-check may name `git status`: never asked
			}
			for _, k := range h.Keys {
				risky[k] = true
			}
		}
	}
	if len(risky) == 0 {
		return nil
	}
	asked := recall.LoadAsked(s.Proj.Store, e.Session)
	var out []knowledge.Entry
	for _, en := range entries {
		if len(asked)+len(out) >= MaxQuestions {
			break
		}
		if en.Type == typed.MustCheck && risky[en.Key] && !asked[en.Key] {
			out = append(out, en)
		}
	}
	return out
}

// guardReason is the reason a guard's question gives: the must-checks'
// texts, made inert like every recalled text and bounded, named as what
// they are — a teammate's note from the project's knowledge log, not
// cairn's own words.
func guardReason(musts []knowledge.Entry) string {
	var b strings.Builder
	b.WriteString("A teammate's must-check from this project's knowledge log (team data, not an instruction from cairn) applies to this call:")
	for _, en := range musts {
		b.WriteString(" «" + untrusted.ForAgent(en.Content, 240) + "»")
	}
	return untrusted.ForAgent(b.String(), maxReason)
}

func entryKeys(entries []knowledge.Entry) []string {
	out := make([]string, len(entries))
	for i, en := range entries {
		out[i] = en.Key
	}
	return out
}

// anchoredKeys are the keys the anchor map's hits name, in order, each
// once, with why each came: anchored to a file, or to a command.
func anchoredKeys(hits []anchor.Hit) (keys []string, why map[string]string) {
	why = map[string]string{}
	for _, h := range hits {
		for _, k := range h.Keys {
			if why[k] == "" {
				keys = append(keys, k)
				why[k] = recall.ReasonAnchor
				if h.Command {
					why[k] = recall.ReasonCommand
				}
			}
		}
	}
	return keys, why
}

// unseen splits entries into the must-checks not yet shown as a check
// before a tool (checked) and the other notes the session was not shown.
func unseen(entries []knowledge.Entry, shown, checked map[string]bool) (musts, notes []knowledge.Entry) {
	for _, en := range entries {
		switch {
		case en.Type == typed.MustCheck && !checked[en.Key]:
			musts = append(musts, en)
		case en.Type != typed.MustCheck && !shown[en.Key]:
			notes = append(notes, en)
		}
	}
	return musts, notes
}

// recordToolShown records what a block before a tool showed: the
// must-checks among keysShown as checked (returned), the rest as shown to
// the session.
func (s *Session) recordToolShown(session string, musts []knowledge.Entry, keysShown []string) (checks []string) {
	mustKeys := map[string]bool{}
	for _, en := range musts {
		mustKeys[en.Key] = true
	}
	var others []string
	for _, k := range keysShown {
		if mustKeys[k] {
			checks = append(checks, k)
		} else {
			others = append(others, k)
		}
	}
	if err := recall.AddShown(s.Proj.Store, session, others); err != nil {
		s.Logf("record shown entries: %v", err)
	}
	if err := recall.AddChecked(s.Proj.Store, session, checks); err != nil {
		s.Logf("record shown must-checks: %v", err)
	}
	return checks
}

// toolStatus is the person's line when notes arrive before a tool call
// ("cairn: 1 must-check and 2 notes on db/migrations/0001.sql").
func toolStatus(checks, notes int, subject string) string {
	var parts []string
	if checks > 0 {
		parts = append(parts, plural(checks, "must-check", "must-checks"))
	}
	if notes > 0 {
		parts = append(parts, plural(notes, "note", "notes"))
	}
	return "cairn: " + strings.Join(parts, " and ") + " on " + subject
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// ToolPaths are the project-relative paths a tool call names: its file
// and, for a shell command, the words that may be files.
func ToolPaths(root string, e event.Event) []string {
	var raw []string
	if e.Path != "" {
		raw = append(raw, e.Path)
	}
	if e.Shell {
		raw = append(raw, anchor.CommandPaths(e.Command)...)
	}
	var out []string
	for _, r := range raw {
		if rel, ok := anchor.Rel(root, e.Cwd, r); ok {
			out = append(out, rel)
		}
	}
	return out
}

// ownAnchored is up to maxPerPrompt of the developer's own entries
// anchored to one of paths and not shown yet.
func (s *Session) ownAnchored(paths []string, shown map[string]bool) []knowledge.Entry {
	if len(paths) == 0 {
		return nil
	}
	return s.ownEntries(shown, maxPerPrompt, func(en knowledge.Entry) bool {
		for _, f := range en.Files {
			for _, path := range paths {
				if anchor.Covers(f, path) {
					return true
				}
			}
		}
		return false
	})
}

// holdForTool splits the team entries a session start or a prompt found
// into those it shows and those it leaves for the moment before a tool
// touches their files, by [recall.HeldForTool]: held only for an agent
// the registry gives such a moment (its ToolCall reader), when an
// anchored file or directory exists in the project.
func (s *Session) holdForTool(agent string, cfg knowledge.Config, entries []knowledge.Entry) (now, held []knowledge.Entry) {
	a, ok := registry.Find(agent)
	exists := map[string]bool{}
	return recall.HoldForTool(entries, ok && a.HoldForTool && cfg.HoldsForTool(), func(rel string) bool {
		if v, seen := exists[rel]; seen {
			return v
		}
		_, exists[rel] = s.Proj.InProject(rel)
		return exists[rel]
	})
}

// guardsOn reports whether the person turned the must-check guards on in
// their own config ("guards": "ask"). The one place that reads it; a
// team's .cairn/config.json only recommends them (cairn doctor says so).
func (s *Session) guardsOn() bool {
	u, err := s.User()
	if err != nil && !errors.Is(err, userconf.ErrPath) {
		return false
	}
	return u.Config.Asks()
}

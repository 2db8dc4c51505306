package session

import (
	"errors"
	"fmt"
	"io/fs"
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

// GuardsAsk is the value of .cairn/config.json's "guards" that turns the
// must-check guards on.
const GuardsAsk = "ask"

// beforeTool injects, before a tool call, the notes anchored to the file
// it names (or to a directory above it) or, for a shell command, to the
// files it names and the command prefixes it runs: entries this session
// was not shown yet, and must-checks not yet shown as a check before a
// tool call, best first, within [ToolBudget]. Nothing anchored: nothing
// said. With the team's guards on, a must-check asks the person to
// confirm the call. An edit is noted for the turn's capture (see
// record.Capture).
func (s *Session) beforeTool(e event.Event) (event.Answer, error) {
	var none event.Answer
	p := s.Proj
	if !p.Store.Exists() {
		return none, nil
	}
	paths := ToolPaths(p.Root, e)
	if e.Edits && len(paths) > 0 {
		if err := anchor.NoteTouched(p.Store.Root(), e.Session, paths[0]); err != nil {
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
	ix, err := s.openIndex()
	if errors.Is(err, index.ErrNotReady) {
		s.Logf("%v: no notes before the tool call", err)
		return none, nil
	}
	if err != nil {
		return none, err
	}
	defer ix.Close()
	if ix.AnchorsErr != nil {
		s.Logf("anchor map: %v", ix.AnchorsErr)
	}
	data, err := p.Store.Root().ReadFile(anchor.File, anchor.MaxBytes)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
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
	if len(musts) == 0 && len(notes) == 0 && len(own) == 0 {
		return none, nil
	}
	subject := "this command"
	if len(hits) > 0 && !hits[0].Command && e.Path != "" {
		subject = paths[0]
	}
	block := recall.Block{
		MustCheck:   musts,
		MustHeading: "Must check before this tool call (a teammate's check on " + subject + "):",
		Relevant:    notes,
		Personal:    own,
		Budget:      ToolBudget,
		Small:       true,
		Terse:       true,
		Heading:     "Team notes on " + subject + ":",
	}
	text, keysShown := recall.RenderShown(block)
	if len(keysShown) == 0 {
		return none, nil
	}
	checks, reasons := s.recordToolShown(e.Session, musts, keysShown)
	s.logInjection(e, recall.MomentTool, "", block, text, keysShown, 0, nil, func(en knowledge.Entry) string {
		return why[en.Key]
	})
	a := event.Answer{Context: text}
	if cfg.ShowStatus() {
		a.Status = toolStatus(len(checks), len(keysShown)-len(checks), untrusted.ForAgent(subject, 80))
	}
	if len(reasons) > 0 && cfg.Guards == GuardsAsk && !s.guardsOff() {
		a.Ask = "cairn must-check: " + strings.Join(reasons, " | ")
	}
	return a, nil
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
// must-checks among keysShown as checked (returned, with their texts for
// a guard's reason), the rest as shown to the session.
func (s *Session) recordToolShown(session string, musts []knowledge.Entry, keysShown []string) (checks, reasons []string) {
	mustKeys := map[string]knowledge.Entry{}
	for _, en := range musts {
		mustKeys[en.Key] = en
	}
	var others []string
	for _, k := range keysShown {
		if en, ok := mustKeys[k]; ok {
			checks = append(checks, k)
			reasons = append(reasons, untrusted.ForAgent(en.Content, 300))
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
	return checks, reasons
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

// guardsOff reports whether the person turned the team's guards off in
// their own config ("guards": "off"). The one place that reads it.
func (s *Session) guardsOff() bool {
	u, err := s.User()
	if err != nil && !errors.Is(err, userconf.ErrPath) {
		return false
	}
	return u.Config.Guards == "off"
}

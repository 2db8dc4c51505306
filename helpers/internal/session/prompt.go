package session

import (
	"errors"
	"io/fs"
	"slices"
	"strings"

	"github.com/cairn-dev/cairn/helpers/internal/anchor"
	"github.com/cairn-dev/cairn/helpers/internal/event"
	"github.com/cairn-dev/cairn/helpers/internal/gitmeta"
	"github.com/cairn-dev/cairn/helpers/internal/index"
	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
	"github.com/cairn-dev/cairn/helpers/internal/pipeline"
	"github.com/cairn-dev/cairn/helpers/internal/rank"
	"github.com/cairn-dev/cairn/helpers/internal/recall"
	"github.com/cairn-dev/cairn/helpers/internal/relevance"
	"github.com/cairn-dev/cairn/helpers/internal/typed"
)

// ownForPrompt is up to n of the developer's own entries strongly
// relevant to the prompt's terms and not shown yet in the session, a
// failure turned into its prevention.
func (s *Session) ownForPrompt(terms []string, shown map[string]bool, n int) []knowledge.Entry {
	out := s.ownEntries(shown, n, func(e knowledge.Entry) bool { return recall.StronglyRelevant(e, terms) })
	for i, e := range out {
		if pipeline.IsFailure(e) {
			out[i] = prevention(e)
		}
	}
	return out
}

// ownEntries is up to n of the developer's own entries of this project
// that keep accepts and the session was not shown yet, in their order;
// none when the session pipeline is off.
func (s *Session) ownEntries(shown map[string]bool, n int, keep func(knowledge.Entry) bool) []knowledge.Entry {
	u, err := s.User()
	p, ok := pipeline.PersonalFor(u, err, s.Proj.Root)
	if !ok {
		return nil
	}
	entries, err := p.Entries()
	if err != nil {
		s.Logf("personal knowledge: %v", err)
	}
	var out []knowledge.Entry
	for _, e := range entries {
		if len(out) == n {
			break
		}
		if !shown[e.Key] && keep(e) {
			out = append(out, e)
		}
	}
	return out
}

// maxPerPrompt caps how many entries one prompt brings in.
const maxPerPrompt = 3

// prompt injects, for one prompt, the few entries that are strongly
// relevant to it and not yet shown in this session; it is silent
// otherwise, and when .cairn/config.json sets recall.per_prompt to
// false. A note the session start held for a tool on its files (see
// [Session.holdForTool]) comes here too when it ranks on the prompt's
// own words: a question the team already answered gets the answer,
// whether or not a tool ever touches the file. The notes anchored to a
// file the prompt names come first (see [Session.namedNotes]): the
// earliest moment the person shows intent on the file.
func (s *Session) prompt(e event.Event) (event.Answer, error) {
	var none event.Answer
	p := s.Proj
	cfg, ok, err := s.recallable()
	if !ok {
		return none, err
	}
	terms := relevance.Terms(e.Prompt)
	paths := PromptPaths(p.Root, e.Cwd, e.Prompt)
	if cfg.Recall.PerPrompt != nil && !*cfg.Recall.PerPrompt || len(terms) < 2 && len(paths) == 0 {
		// Nothing to recall, so the cache is not opened (which would
		// catch it up): after a pull in a terminal, the catch-up starts
		// here, before the turn's first tool call.
		if index.MapBehind(p.Store) {
			s.startSync(false)
		}
		return none, nil
	}
	ix, err := s.openIndex()
	if errors.Is(err, index.ErrNotReady) {
		// The session start said so; this prompt goes without.
		s.Logf("%v: no per-prompt recall", err)
		return none, nil
	}
	if err != nil {
		return none, err
	}
	defer ix.Close()
	s.sanitizeIfNeeded(ix)
	shown := recall.LoadShown(p.Store, e.Session)
	named, err := s.namedNotes(ix, paths, shown)
	if err != nil {
		s.Logf("notes on the files the prompt names: %v", err)
	}
	var candidates []knowledge.Entry
	if len(terms) >= 2 {
		hits, err := rank.Search(ix, rank.Query{Text: e.Prompt, Limit: 10})
		if err != nil {
			return none, err
		}
		for _, hit := range hits {
			if !shown[hit.Entry.Key] && recall.StronglyRelevant(hit.Entry, terms) && !slices.ContainsFunc(named, func(n knowledge.Entry) bool { return n.Key == hit.Entry.Key }) {
				candidates = append(candidates, hit.Entry)
			}
		}
	}
	fresh := slices.Concat(named, candidates[:min(len(candidates), maxPerPrompt)])
	var own []knowledge.Entry
	if len(fresh) < maxPerPrompt {
		own = s.ownForPrompt(terms, shown, maxPerPrompt-len(fresh))
	}
	if len(fresh) == 0 && len(own) == 0 {
		return none, nil
	}
	block := recall.Block{
		Relevant: fresh,
		Personal: own,
		Budget:   recall.PerPromptBudget,
		Small:    true,
		Heading:  "Relevant to this prompt:",
	}
	text, keys := recall.RenderShown(block)
	if len(keys) == 0 {
		return none, nil
	}
	if err := recall.AddShown(p.Store, e.Session, keys); err != nil {
		s.Logf("record shown entries: %v", err)
	}
	branch := ""
	if p.IsGit {
		branch = gitmeta.Read(p.Root).Branch
	}
	s.logInjection(e, recall.MomentPrompt, branch, block, text, keys, 0, nil, func(en knowledge.Entry) string {
		if slices.ContainsFunc(named, func(n knowledge.Entry) bool { return n.Key == en.Key }) {
			return recall.ReasonAnchor
		}
		return recall.ReasonPrompt
	})
	return event.Answer{Context: text}, nil
}

// maxPromptPaths caps how many words of a prompt are looked up as paths.
const maxPromptPaths = 16

// PromptPaths are the project paths a prompt names: its words that hold a
// slash or a dot (client/retry.go, README.md, db/migrations/), stripped of
// quotes and punctuation, inside the project (at most 16).
func PromptPaths(root, cwd, prompt string) []string {
	var out []string
	for _, w := range strings.Fields(prompt) {
		w = strings.TrimRight(strings.Trim(w, "`'\"()[]{}<>,;:!?*"), ".")
		if w == "" || !strings.ContainsAny(w, "/.") || strings.Contains(w, "://") {
			continue
		}
		if rel, ok := anchor.Rel(root, cwd, w); ok && rel != "." && !slices.Contains(out, rel) {
			out = append(out, rel)
		}
		if len(out) == maxPromptPaths {
			break
		}
	}
	return out
}

// namedNotes are the team notes anchored to the files a prompt names (or
// a directory above them) that the session was not shown: the person
// revealed the file before any tool touched it, so its notes come now,
// before the change (at most maxPerPrompt; must-checks come at the start
// and before the tool).
func (s *Session) namedNotes(ix *index.Index, paths []string, shown map[string]bool) ([]knowledge.Entry, error) {
	if len(paths) == 0 {
		return nil, nil
	}
	data, err := s.Proj.Store.Root().ReadFile(anchor.File, anchor.MaxBytes)
	if errors.Is(err, fs.ErrNotExist) || err == nil && len(data) == 0 {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	keys, _ := anchoredKeys(anchor.Lookup(data, paths, ""))
	entries, err := ix.Entries(keys)
	if err != nil {
		return nil, err
	}
	var out []knowledge.Entry
	for _, en := range entries {
		if len(out) < maxPerPrompt && en.Type != typed.MustCheck && !shown[en.Key] {
			out = append(out, en)
		}
	}
	return out, nil
}

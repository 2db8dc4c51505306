package session

import (
	"errors"

	"github.com/cairn-dev/cairn/helpers/internal/event"
	"github.com/cairn-dev/cairn/helpers/internal/gitmeta"
	"github.com/cairn-dev/cairn/helpers/internal/index"
	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
	"github.com/cairn-dev/cairn/helpers/internal/pipeline"
	"github.com/cairn-dev/cairn/helpers/internal/rank"
	"github.com/cairn-dev/cairn/helpers/internal/recall"
	"github.com/cairn-dev/cairn/helpers/internal/relevance"
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
// whether or not a tool ever touches the file.
func (s *Session) prompt(e event.Event) (event.Answer, error) {
	var none event.Answer
	p := s.Proj
	cfg, ok, err := s.recallable()
	if !ok || cfg.Recall.PerPrompt != nil && !*cfg.Recall.PerPrompt {
		return none, err
	}
	terms := relevance.Terms(e.Prompt)
	if len(terms) < 2 {
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
	hits, err := rank.Search(ix, rank.Query{Text: e.Prompt, Limit: 10})
	if err != nil {
		return none, err
	}
	shown := recall.LoadShown(p.Store, e.Session)
	var candidates []knowledge.Entry
	for _, hit := range hits {
		if !shown[hit.Entry.Key] && recall.StronglyRelevant(hit.Entry, terms) {
			candidates = append(candidates, hit.Entry)
		}
	}
	fresh := candidates[:min(len(candidates), maxPerPrompt)]
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
	s.logInjection(e, recall.MomentPrompt, branch, block, text, keys, 0, nil, func(knowledge.Entry) string {
		return recall.ReasonPrompt
	})
	return event.Answer{Context: text}, nil
}

package session

import (
	"github.com/cairn-dev/cairn/helpers/internal/event"
	"github.com/cairn-dev/cairn/helpers/internal/index"
	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
	"github.com/cairn-dev/cairn/helpers/internal/recall"
	"github.com/cairn-dev/cairn/helpers/internal/relevance"
)

// maxPerPrompt caps how many entries one prompt brings in.
const maxPerPrompt = 3

// prompt injects, for one prompt, the few entries that are strongly
// relevant to it and not yet shown in this session; it is silent
// otherwise, and when .cairn/config.json sets recall.per_prompt to false.
func (s *Session) prompt(e event.Event) (event.Answer, error) {
	var none event.Answer
	p := s.proj
	cfg, ok, err := s.recallable()
	if !ok || cfg.Recall.PerPrompt != nil && !*cfg.Recall.PerPrompt {
		return none, err
	}
	terms := relevance.Terms(e.Prompt)
	if len(terms) < 2 {
		return none, nil
	}
	ix, _, err := p.OpenIndex()
	if err != nil {
		return none, err
	}
	defer ix.Close()
	s.sanitizeIfNeeded(ix)
	hits, err := ix.Search(index.Query{Text: e.Prompt, Limit: 10})
	if err != nil {
		return none, err
	}
	shown := recall.LoadShown(p.Store, e.Session)
	var fresh []knowledge.Entry
	for _, hit := range hits {
		if shown[hit.Entry.Key] || !recall.StronglyRelevant(hit.Entry, terms) {
			continue
		}
		fresh = append(fresh, hit.Entry)
		if len(fresh) == maxPerPrompt {
			break
		}
	}
	if len(fresh) == 0 {
		return none, nil
	}
	text, keys := recall.RenderShown(recall.Block{
		Relevant: fresh,
		Budget:   recall.PerPromptBudget,
		Small:    true,
		Heading:  "Relevant to this prompt:",
	})
	if len(keys) == 0 {
		return none, nil
	}
	if err := recall.AddShown(p.Store, e.Session, keys); err != nil {
		s.logf("record shown entries: %v", err)
	}
	return event.Answer{Context: text}, nil
}

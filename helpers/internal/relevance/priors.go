package relevance

import (
	"github.com/cairn-dev/cairn/helpers/internal/audit"
	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
)

// Priors scale a match's bm25 score by what is known of the entry beyond
// its words. Each is kept only because the evaluation set says it helps
// (see testdata/eval/README.md): the status priors lift the curated
// queries' MRR from 0.877 to 0.917 and lower no overall figure. Measured
// and left out: a boost for newer entries and one for must-check and
// decision entries (both cost recall@5 and answered a negative query).
// Flags are the exception: an entry that sanitize found doubtful ranks
// lower whatever the figures, because showing it first would mislead.
const (
	priorCanonical   = 1.25 // curation kept it for its cluster of duplicates
	priorNeedsReview = 0.7  // every file it names is gone, or sanitize doubts it
)

// MaxPrior is the greatest factor Prior returns: a match whose score times
// MaxPrior is below another's cannot overtake it.
const MaxPrior = priorCanonical

// Prior is the factor for entry e's score, with effect the audit's verdict
// on its line ("" when none; see [audit.EffectFlagged]).
func Prior(e knowledge.Entry, effect string) float64 {
	f := 1.0
	switch e.Status {
	case knowledge.StatusCanonical:
		f *= priorCanonical
	case knowledge.StatusNeedsReview:
		f *= priorNeedsReview
	}
	if effect == audit.EffectFlagged {
		f *= priorNeedsReview
	}
	return f
}

package rank

import (
	"strings"

	"github.com/cairn-dev/cairn/helpers/internal/audit"
	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
)

// Priors scale a match's bm25 score by what is known of the entry beyond
// its words (their values are [Knobs]). Each is kept only because the
// evaluation set says it helps (see testdata/eval/README.md): the status
// priors lift the curated queries' MRR from 0.877 to 0.917 and lower no
// overall figure. Measured and left out: a boost for newer entries and
// one for must-check and decision entries (both cost recall@5 and
// answered a negative query). Flags are the exception: an entry that
// sanitize found doubtful ranks lower whatever the figures, because
// showing it first would mislead.

// MaxPrior is the greatest factor Prior returns: a match whose score times
// MaxPrior is below another's cannot overtake it.
func MaxPrior() float64 { return max(1, Default.PriorCanonical) }

// Prior is the factor for entry e's score, with effect the audit's verdict
// on its line ("" when none; see [audit.EffectFlagged]).
func Prior(e knowledge.Entry, effect string) float64 {
	f := 1.0
	switch e.Status {
	case knowledge.StatusCanonical:
		f *= Default.PriorCanonical
	case knowledge.StatusNeedsReview:
		f *= Default.PriorNeedsReview
	}
	if effect == audit.EffectFlagged {
		f *= Default.PriorFlagged
	}
	return f
}

// Factor is one prior of a match's score: its name, what of the entry it
// looked at, and the factor it applied (1 when it moved nothing).
type Factor struct {
	Name   string  `json:"name"`
	Value  string  `json:"value"`
	Factor float64 `json:"factor"`
	Why    string  `json:"why"`
}

// Factors are the priors [Prior] weighs for e with the audit's verdict
// effect, one by one, including those that moved nothing; their product
// is Prior(e, effect).
func Factors(e knowledge.Entry, effect string) []Factor {
	status := Factor{Name: "status", Value: e.Status, Factor: 1, Why: "no curation status"}
	switch e.Status {
	case knowledge.StatusCanonical:
		status.Factor, status.Why = Default.PriorCanonical, "curation kept it for its cluster of duplicates"
	case knowledge.StatusNeedsReview:
		status.Factor, status.Why = Default.PriorNeedsReview, "curation marked it for review"
	case "":
		status.Value = "active"
	default:
		status.Why = "no prior for this status"
	}
	verdict := Factor{Name: "verdict", Value: "none", Factor: 1, Why: "sanitize has no verdict on its line"}
	if effect != "" {
		verdict.Value, verdict.Why = effect, "sanitize's verdict on this machine"
	}
	if effect == audit.EffectFlagged {
		verdict.Factor, verdict.Why = Default.PriorFlagged, "sanitize doubts it, and a flag ranks lower"
	}
	return []Factor{
		status,
		verdict,
		{Name: "type", Value: e.Type, Factor: 1, Why: "not a prior: a boost for must-check and decision entries cost recall@5"},
		{Name: "recency", Value: "", Factor: 1, Why: "not a prior: a boost for newer entries cost recall@5"},
		{Name: "anchors", Value: strings.Join(e.Files, ", "), Factor: 1, Why: "not a prior of the search (anchors steer when a note arrives: before a tool on its file)"},
	}
}

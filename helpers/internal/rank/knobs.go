package rank

import (
	"fmt"
	"reflect"

	"github.com/cairn-dev/cairn/helpers/internal/index"
)

// Knobs are every number that decides how cairn orders and gates what it
// finds: the column weights of the full-text score, the priors, the
// proximity bonus, the confidence gate and the bar of per-prompt recall.
// They live here and nowhere else; the search cache gets its column
// weights with each read (see [index.Weights]), recall's per-prompt bar
// reads [Default], and `cairn recall --explain` lists them (see
// [Knobs.List]). Each was kept because both evaluation sets say it helps
// (docs/recall.md gives the figures); a change to one is measured there
// first.
type Knobs struct {
	// Columns weigh a match by the field it is in: content most, then
	// tags, the identifiers' split and joined spellings, the type.
	Columns index.Weights `knob:"bm25"`
	// A page of n hits reads the n*CandidatesPer+CandidatesMore best
	// BM25 matches: enough for the priors to lift a lower one into view.
	CandidatesPer  int `knob:"candidates.per-hit"`
	CandidatesMore int `knob:"candidates.more"`

	// The priors scale a match's BM25 by what is known of the entry
	// beyond its words (see [Prior]).
	PriorCanonical   float64 `knob:"prior.canonical"`    // curation kept it for its cluster of duplicates
	PriorNeedsReview float64 `knob:"prior.needs-review"` // every file it names is gone
	PriorFlagged     float64 `knob:"prior.flagged"`      // sanitize doubts its line on this machine

	// The proximity bonus lifts a hit whose content says two of the
	// query's words at most ProximityGap words apart, up to
	// 1+ProximityBonus, over the best ProximityPool matches; and again,
	// up to 1+ProximityPhraseBonus, by how many of the query's words
	// stand within ProximityPhrase words of each other.
	ProximityPool        int     `knob:"proximity.pool"`
	ProximityBonus       float64 `knob:"proximity.bonus"`
	ProximityGap         int     `knob:"proximity.gap"`
	ProximityPhrase      int     `knob:"proximity.phrase"`
	ProximityPhraseBonus float64 `knob:"proximity.phrase-bonus"`

	// The confidence gate (see [Gate]): one of the best GateHits must
	// hold, within GateWindow words, GateShare of the query's word
	// weight; a word's entries are counted up to GateDFCap.
	GateHits   int     `knob:"gate.hits"`
	GateShare  float64 `knob:"gate.share"`
	GateWindow int     `knob:"gate.window"`
	GateDFCap  int     `knob:"gate.df-cap"`
	// GateWords is how many of a query's words a best hit must hold (of
	// a query that has as many); a session's context passes on that alone.
	GateWords int `knob:"gate.words"`
	// A best hit that holds the share but not every word in one window
	// must also say the question in one place or hold words too rare to
	// meet by chance: one sentence of it holds GateSentence of the
	// weight, or at most GateChance entries would be expected to hold
	// the words it holds if words fell into entries at random.
	GateSentence float64 `knob:"gate.sentence"`
	GateChance   float64 `knob:"gate.chance"`

	// Per-prompt recall shows an entry only when it holds PromptTerms of
	// the prompt's terms and PromptShare of them (a prompt is prose).
	PromptTerms int     `knob:"prompt.terms"`
	PromptShare float64 `knob:"prompt.share"`
}

// Default are the knobs cairn ranks with.
var Default = Knobs{
	Columns:              index.Weights{Content: 10, Tags: 5, Type: 2, Idents: 4},
	CandidatesPer:        3,
	CandidatesMore:       20,
	PriorCanonical:       1.25,
	PriorNeedsReview:     0.7,
	PriorFlagged:         0.7,
	ProximityPool:        10,
	ProximityBonus:       0.5,
	ProximityGap:         2,
	ProximityPhrase:      10,
	ProximityPhraseBonus: 0.1,
	GateHits:             3,
	GateShare:            0.16,
	GateWindow:           40,
	GateDFCap:            200,
	GateWords:            2,
	GateSentence:         0.28,
	GateChance:           0.25,
	PromptTerms:          2,
	PromptShare:          0.25,
}

// Knob is one of [Knobs] by name, with its value.
type Knob struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// List is every knob of k, in the order they are declared, named by their
// knob tags (a group's name before its members'): what `cairn recall
// --explain` prints, read from the values themselves.
func (k Knobs) List() []Knob {
	var out []Knob
	var walk func(v reflect.Value, prefix string)
	walk = func(v reflect.Value, prefix string) {
		for i := range v.NumField() {
			f := v.Type().Field(i)
			name := prefix + f.Tag.Get("knob")
			if f.Type.Kind() == reflect.Struct {
				walk(v.Field(i), name+".")
				continue
			}
			out = append(out, Knob{Name: name, Value: fmt.Sprint(v.Field(i).Interface())})
		}
	}
	walk(reflect.ValueOf(k), "")
	return out
}

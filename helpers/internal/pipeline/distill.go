package pipeline

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/cairn-dev/cairn/helpers/internal/model"
	"github.com/cairn-dev/cairn/helpers/internal/redact"
)

// Distillation is what the model returns for one session: one JSON object
// with these fields (the prompt names each of them).
type Distillation struct {
	Decisions []Decision `json:"decisions"`
	Failures  []Failure  `json:"failures"`
	Handoff   List       `json:"handoff"`
	Learnings []Learning `json:"learnings"`
	// Daily is the session's entry of the daily log.
	Daily Daily `json:"daily"`
	// HasHandoff says the answer had a handoff (an empty one clears the
	// branch's); without one, the branch's handoff is kept.
	HasHandoff bool `json:"-"`
}

// Daily is what the model says of the session for the daily log; the
// decisions, lessons and action items come from the rest of the answer.
type Daily struct {
	Title        string `json:"title"`
	Context      string `json:"context"`
	KeyExchanges List   `json:"key_exchanges"`
}

// MaxItems caps each list of a distillation: a model that answers
// hundreds of items is cut, not obeyed.
const MaxItems = 20

// Capped is d with each list cut to MaxItems.
func (d Distillation) Capped() Distillation {
	if len(d.Decisions) > MaxItems {
		d.Decisions = d.Decisions[:MaxItems]
	}
	if len(d.Failures) > MaxItems {
		d.Failures = d.Failures[:MaxItems]
	}
	if len(d.Handoff) > MaxItems {
		d.Handoff = d.Handoff[:MaxItems]
	}
	if len(d.Learnings) > MaxItems {
		d.Learnings = d.Learnings[:MaxItems]
	}
	if len(d.Daily.KeyExchanges) > MaxItems {
		d.Daily.KeyExchanges = d.Daily.KeyExchanges[:MaxItems]
	}
	return d
}

// Decision is a choice made in the session and why.
type Decision struct {
	Summary      string `json:"summary"`
	Context      string `json:"context"`
	Alternatives List   `json:"alternatives"`
	Rationale    string `json:"rationale"`
	Tags         List   `json:"tags"`
}

// Failure is something that went wrong, why, and how not to again.
type Failure struct {
	Summary    string `json:"summary"`
	RootCause  string `json:"root_cause"`
	Resolution string `json:"resolution"`
	Prevention string `json:"prevention"`
	Tags       List   `json:"tags"`
}

// Learning is a lesson worth a page of its own.
type Learning struct {
	Title   string `json:"title"`
	Content string `json:"content"`
	// Learning is read when a model names the content so.
	Learning string `json:"learning"`
	Context  string `json:"context"`
	Scope    string `json:"scope"`
	Tags     List   `json:"tags"`
}

// List is a list of strings as a model writes it: a list, or one string
// (one item); items that are not strings are left out.
type List []string

// UnmarshalJSON reads a list or a string; anything else is no items.
func (l *List) UnmarshalJSON(data []byte) error {
	var one string
	if json.Unmarshal(data, &one) == nil {
		if one != "" {
			*l = List{one}
		}
		return nil
	}
	var many []json.RawMessage
	if json.Unmarshal(data, &many) != nil {
		return nil
	}
	for _, raw := range many {
		if json.Unmarshal(raw, &one) == nil && strings.TrimSpace(one) != "" {
			*l = append(*l, one)
		}
	}
	return nil
}

// ErrNotDistillation: the model's answer holds JSON, but not a
// distillation (an error object, or another shape).
var ErrNotDistillation = errors.New("the model's answer is not a distillation")

// distillationKeys are a distillation's fields and the JSON each must be:
// '[' a list, '{' an object, '"' a string.
var distillationKeys = map[string]string{
	"decisions": "[", "failures": "[", "learnings": "[", "handoff": `["`, "daily": "{",
}

// ParseDistillation reads the model's answer as a Distillation. An answer
// that has none of a distillation's fields, or one of the wrong type (an
// error object such as {"error":{"type":"overloaded_error"}}, an object
// inside a cut answer), is refused with [ErrNotDistillation]: a failed
// call, not an empty distillation.
func ParseDistillation(answer string) (Distillation, error) {
	var d Distillation
	obj, err := model.ExtractJSON(answer)
	if err != nil {
		return d, err
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(obj, &fields); err != nil {
		return d, fmt.Errorf("the model's answer: %w", err)
	}
	known := 0
	for key, kinds := range distillationKeys {
		v := strings.TrimSpace(string(fields[key]))
		if v == "" || v == "null" {
			continue
		}
		if !strings.ContainsRune(kinds, rune(v[0])) {
			return d, fmt.Errorf("%w: its %q is %s", ErrNotDistillation, key, cut(v, 80))
		}
		known++
	}
	if known == 0 {
		return d, fmt.Errorf("%w: it has none of decisions, failures, handoff, learnings, daily (it began %q)", ErrNotDistillation, redact.Excerpt(string(obj), 120))
	}
	if err := json.Unmarshal(obj, &d); err != nil {
		return d, fmt.Errorf("%w: %v", ErrNotDistillation, err)
	}
	d.HasHandoff = fields["handoff"] != nil && strings.TrimSpace(string(fields["handoff"])) != "null"
	return d, nil
}

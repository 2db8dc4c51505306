package pipeline_test

import (
	"errors"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/pipeline"
)

const distilled = `{"decisions":[{"summary":"cap backoff at 30s","context":"CI timeouts","alternatives":["no cap"],"rationale":"the job limit is 60s","tags":["retry"]}],` +
	`"failures":[{"summary":"retry test timed out","root_cause":"uncapped backoff","resolution":"cap it","prevention":"table-test the cap","tags":["ci"]}],` +
	`"handoff":["add jitter to the retry loop"],"learnings":[{"title":"Cap every backoff","content":"...","tags":["retry"]}]}`

func TestParseDistillation(t *testing.T) {
	d, err := pipeline.ParseDistillation("```json\n" + distilled + "\n```")
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Decisions) != 1 || d.Decisions[0].Rationale != "the job limit is 60s" || d.Failures[0].RootCause != "uncapped backoff" ||
		d.Failures[0].Prevention != "table-test the cap" || d.Handoff[0] != "add jitter to the retry loop" || d.Learnings[0].Title != "Cap every backoff" {
		t.Errorf("parsed %+v", d)
	}
	if _, err := pipeline.ParseDistillation(`{"decisions": "not a list"}`); err == nil {
		t.Errorf("a wrong shape parsed")
	}
}

// issue 24: only an answer with a distillation's fields, of the right
// types, is one.
func TestParseDistillationShape(t *testing.T) {
	for _, ok := range []string{`{"handoff": []}`, `{"handoff": "one item"}`, `{"daily": {"title": "t"}}`, `{"learnings": [], "extra": 1}`} {
		if _, err := pipeline.ParseDistillation(ok); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	for _, bad := range []string{`{"error":{"type":"overloaded_error"}}`, `{}`, `{"handoff": null}`, `{"daily": "text"}`,
		`{"failures": {"summary": "x"}}`, `{"learnings": 3}`, `{"summary":"an inner object","context":"of a cut answer"}`} {
		if _, err := pipeline.ParseDistillation(bad); !errors.Is(err, pipeline.ErrNotDistillation) {
			t.Errorf("%s: %v", bad, err)
		}
	}
	if d, _ := pipeline.ParseDistillation(`{"decisions": []}`); d.HasHandoff {
		t.Error("an answer without a handoff has one")
	}
}

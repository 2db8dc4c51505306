package pipeline_test

import (
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

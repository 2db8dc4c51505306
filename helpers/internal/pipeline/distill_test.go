package pipeline_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/pipeline"
)

const distilled = `{"decisions":[{"summary":"cap backoff at 30s","context":"CI timeouts","alternatives":["no cap"],"rationale":"the job limit is 60s","tags":["retry"]}],` +
	`"failures":[{"summary":"retry test timed out","root_cause":"uncapped backoff","resolution":"cap it","prevention":"table-test the cap","tags":["ci"]}],` +
	`"handoff":["add jitter to the retry loop"],"learnings":[{"title":"Cap every backoff","content":"...","tags":["retry"]}]}`

func TestExtractJSON(t *testing.T) {
	for _, tc := range []struct{ name, answer, want string }{
		{"bare", distilled, distilled},
		{"fenced", "Here it is:\n```json\n" + distilled + "\n```\nDone.", distilled},
		{"fence without info", "```\n" + distilled + "\n```", distilled},
		{"prose before and after", "Sure! The distillation: " + distilled + " Hope it helps {really}.", distilled},
		{"braces in strings", `note {not json} then {"handoff":["close the } brace and the \" quote {"]}`, `{"handoff":["close the } brace and the \" quote {"]}`},
		{"a broken fence, a good object after", "```json\n{\"a\": \n```\n" + `{"handoff":[]}`, `{"handoff":[]}`},
		{"unterminated fence", "```json\n" + distilled, distilled},
	} {
		got, err := pipeline.ExtractJSON(tc.answer)
		if err != nil || string(got) != tc.want {
			t.Errorf("%s: ExtractJSON = %s, %v; want %s", tc.name, got, err, tc.want)
		}
	}
	for _, answer := range []string{"", "no object here", "{unbalanced", `{"a": }`, "}{"} {
		if _, err := pipeline.ExtractJSON(answer); !errors.Is(err, pipeline.ErrNoJSON) {
			t.Errorf("ExtractJSON(%q) error = %v, want ErrNoJSON", answer, err)
		}
	}
}

// An answer of many unbalanced braces is refused in linear time (this
// test would take minutes with a quadratic search).
func TestExtractJSONManyBraces(t *testing.T) {
	if _, err := pipeline.ExtractJSON(strings.Repeat("{", 4<<20)); !errors.Is(err, pipeline.ErrNoJSON) {
		t.Errorf("error = %v", err)
	}
}

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

func FuzzExtractJSON(f *testing.F) {
	f.Add(distilled)
	f.Add("text ```json\n{\"a\":\"}\"}\n``` more")
	f.Add(`{"a":{"b":[1,{"c":"\"{"}]}}`)
	f.Fuzz(func(t *testing.T, answer string) {
		obj, err := pipeline.ExtractJSON(answer)
		if err != nil {
			return
		}
		if !json.Valid(obj) || obj[0] != '{' || !strings.Contains(answer, string(obj)) {
			t.Fatalf("ExtractJSON(%q) = %q", answer, obj)
		}
	})
}

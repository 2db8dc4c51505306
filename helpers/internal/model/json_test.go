package model_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/model"
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
		got, err := model.ExtractJSON(tc.answer)
		if err != nil || string(got) != tc.want {
			t.Errorf("%s: ExtractJSON = %s, %v; want %s", tc.name, got, err, tc.want)
		}
	}
	for _, answer := range []string{"", "no object here", "{unbalanced", `{"a": }`, "}{"} {
		if _, err := model.ExtractJSON(answer); !errors.Is(err, model.ErrNoJSON) {
			t.Errorf("ExtractJSON(%q) error = %v, want ErrNoJSON", answer, err)
		}
	}
}

// An answer of many unbalanced braces is refused in linear time (this
// test would take minutes with a quadratic search).
func TestExtractJSONManyBraces(t *testing.T) {
	if _, err := model.ExtractJSON(strings.Repeat("{", 4<<20)); !errors.Is(err, model.ErrNoJSON) {
		t.Errorf("error = %v", err)
	}
}

func FuzzExtractJSON(f *testing.F) {
	f.Add(distilled)
	f.Add("text ```json\n{\"a\":\"}\"}\n``` more")
	f.Add(`{"a":{"b":[1,{"c":"\"{"}]}}`)
	f.Fuzz(func(t *testing.T, answer string) {
		obj, err := model.ExtractJSON(answer)
		if err != nil {
			return
		}
		if !json.Valid(obj) || obj[0] != '{' || !strings.Contains(answer, string(obj)) {
			t.Fatalf("ExtractJSON(%q) = %q", answer, obj)
		}
	})
}

// Claude Code's JSON result is unwrapped with its cost; anything else is
// the answer as printed, a bare JSON answer included.
func TestUnwrap(t *testing.T) {
	for _, tc := range []struct {
		name, out, text string
		cost            float64
		costed, fails   bool
	}{
		{"plain text", "an answer\n", "an answer\n", 0, false, false},
		{"a bare JSON answer", `{"decisions":[]}`, `{"decisions":[]}`, 0, false, false},
		{"claude -p json", `{"type":"result","subtype":"success","is_error":false,"result":"{\"handoff\":[]}","total_cost_usd":0.0123}`, `{"handoff":[]}`, 0.0123, true, false},
		{"no cost", `{"type":"result","is_error":false,"result":"hi"}`, "hi", 0, false, false},
		{"an error result", `{"type":"result","is_error":true,"result":"Invalid API key"}`, "", 0, false, true},
	} {
		r, err := model.Unwrap(tc.out)
		if (err != nil) != tc.fails || r.Text != tc.text || r.CostUSD != tc.cost || r.Costed != tc.costed {
			t.Errorf("%s: Unwrap = %+v, %v", tc.name, r, err)
		}
	}
}

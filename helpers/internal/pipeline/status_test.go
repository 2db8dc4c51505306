package pipeline

import (
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/pipeline/queue"
)

func TestJudge(t *testing.T) {
	for _, tc := range []struct {
		outcome   string
		distilled bool
		result    string
		why       string
	}{
		{"exported to /k/s.md; distilled: 1 decisions", true, ResultDistilled, "exported to /k/s.md; distilled: 1 decisions"},
		// A skip keeps the Distilled mark of the session's earlier task.
		{"skipped: already distilled, the transcript has not changed since", true, ResultSkipped, "already distilled, the transcript has not changed since"},
		{"skipped: transcript: no such file", false, ResultSkipped, "transcript: no such file"},
		{"exported to /k/s.md; too thin to distill (12 characters typed)", false, ResultSkipped, "exported to /k/s.md; too thin to distill (12 characters typed)"},
		{"exported to /k/s.md; the model call failed, not distilled (the next Stop retries): exit status 3", false, ResultFailed, "exported to /k/s.md; the model call failed, not distilled (the next Stop retries): exit status 3"},
		{"failed: export: disk full", false, ResultFailed, "export: disk full"},
		{"poison: a worker stopped on it 2 times; not tried again", true, ResultFailed, "poison: a worker stopped on it 2 times; not tried again"},
	} {
		o := Judge(queue.Done{Task: queue.Task{Session: "s"}, Outcome: tc.outcome, Distilled: tc.distilled})
		if o.Result != tc.result || o.Why != tc.why {
			t.Errorf("Judge(%q, distilled %v) = %s: %q, want %s: %q", tc.outcome, tc.distilled, o.Result, o.Why, tc.result, tc.why)
		}
	}
}

package recall_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
	"github.com/cairn-dev/cairn/helpers/internal/recall"
)

// The record keeps the newest MaxInjections injections, newest first,
// overwriting the oldest.
func TestInjectionsRing(t *testing.T) {
	s := knowledge.Open(t.TempDir())
	if list, err := recall.Injections(s); err != nil || len(list) != 0 {
		t.Fatalf("empty record: %v, %v", list, err)
	}
	n := recall.MaxInjections + 5
	for i := range n {
		in := recall.Injection{Time: int64(1000 + i), Session: fmt.Sprint("s", i), Moment: recall.MomentPrompt, Text: "text"}
		if err := recall.AddInjection(s, in); err != nil {
			t.Fatal(err)
		}
	}
	list, err := recall.Injections(s)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != recall.MaxInjections {
		t.Fatalf("%d injections kept, want %d", len(list), recall.MaxInjections)
	}
	if list[0].Session != fmt.Sprint("s", n-1) || list[len(list)-1].Session != "s5" {
		t.Errorf("kept %s .. %s, want s%d .. s5", list[0].Session, list[len(list)-1].Session, n-1)
	}
}

func TestWhy(t *testing.T) {
	ctx := recall.Context{
		Branch:  "fix/invoice-retries",
		Commits: []recall.Commit{{Subject: "Add jitter to the backoff", Files: []string{"internal/billing/webhook.go"}}},
		Tasks:   []string{"Stripe payouts fail on weekends"},
	}
	for _, tc := range []struct {
		content, want string
	}{
		{"Invoice retries need jitter", "branch, commit"},
		{"Webhook handlers must be idempotent", "commit files"},
		{"Payouts are batched on weekends", "task words"},
		{"Kafka lag alerts", recall.ReasonSearch},
	} {
		if got := recall.Why(ctx, knowledge.Entry{Content: tc.content}); got != tc.want {
			t.Errorf("Why(%q) = %q, want %q", tc.content, got, tc.want)
		}
	}
	// A default branch names no topic.
	if got := recall.Why(recall.Context{Branch: "main"}, knowledge.Entry{Content: "main loop"}); got != recall.ReasonSearch {
		t.Errorf("on main: %q", got)
	}
}

// BenchmarkAddInjection is the record's cost to a hook: one injection of
// a full 6,000-character block.
func BenchmarkAddInjection(b *testing.B) {
	s := knowledge.Open(b.TempDir())
	in := recall.Injection{Session: "s1", Moment: recall.MomentStart, Text: strings.Repeat("x", 6000),
		Entries: []recall.Shown{{Key: "fact-a", Reason: "branch"}, {Key: "must-check-b", Reason: recall.ReasonMustCheck}}}
	for b.Loop() {
		in.Time++
		if err := recall.AddInjection(s, in); err != nil {
			b.Fatal(err)
		}
	}
}

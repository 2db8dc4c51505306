package knowledge

import (
	"strings"
	"testing"
)

// records parses log lines ("A " prefix: the archive's).
func records(t *testing.T, lines ...string) []Record {
	t.Helper()
	var out []Record
	for _, l := range lines {
		arch := strings.HasPrefix(l, "A ")
		Parse([]byte(strings.TrimPrefix(l, "A ")+"\n"), func(r Record) {
			r.Archived = arch
			out = append(out, r)
		})
	}
	return out
}

func TestCompare(t *testing.T) {
	const (
		keep    = `{"key":"fact-keep","type":"fact","content":"kept","ts":1}`
		rot     = `{"key":"fact-rot","type":"fact","content":"rotated","ts":2}`
		old     = `{"key":"decision-old","type":"decision","content":"old way","ts":3}`
		oldSup  = `{"key":"decision-old","type":"decision","content":"old way","ts":9,"status":"superseded","superseded_by":"decision-new"}`
		newer   = `{"key":"decision-new","type":"decision","content":"new way","ts":9,"supersedes":"decision-old"}`
		wrong   = `{"key":"fact-wrong","type":"fact","content":"wrong","ts":4}`
		wrongR  = `{"key":"fact-wrong","type":"fact","content":"wrong","ts":8,"status":"retracted","review_reason":"it was never true"}`
		canon   = `{"key":"fact-canon","type":"fact","content":"c","ts":5}`
		canonC  = `{"key":"fact-canon","type":"fact","content":"c","ts":7,"status":"canonical"}`
		gone    = `{"key":"fact-gone","type":"fact","content":"gone","ts":6}`
		added   = `{"key":"learned-added","type":"learned","content":"new","ts":10,"author":"Ana"}`
		editedA = `{"key":"fact-edit","type":"fact","content":"before","ts":1}`
		editedB = `{"key":"fact-edit","type":"fact","content":"after","ts":1}`
	)
	before := records(t, keep, rot, old, wrong, canon, gone, editedA)
	after := records(t, keep, "A "+rot, old, oldSup, newer, wrong, wrongR, canon, canonC, added, editedB)
	got := Compare(before, after)
	var kinds []string
	for _, c := range got {
		kinds = append(kinds, c.Kind+" "+c.Entry.Key)
	}
	want := []string{
		"added learned-added",
		"retracted fact-wrong",
		"superseded decision-old",
		"status fact-canon",
		"edited fact-edit",
		"archived fact-rot",
		"removed fact-gone",
	}
	if strings.Join(kinds, "\n") != strings.Join(want, "\n") {
		t.Fatalf("Compare:\n%s\nwant:\n%s", strings.Join(kinds, "\n"), strings.Join(want, "\n"))
	}
	if got[1].Reason != "it was never true" {
		t.Errorf("retraction reason %q", got[1].Reason)
	}
	if got[2].New == nil || got[2].New.Key != "decision-new" {
		t.Errorf("superseded without its new entry: %+v", got[2])
	}
	if got[3].FromStatus != "" || got[3].ToStatus != StatusCanonical {
		t.Errorf("status change %q -> %q", got[3].FromStatus, got[3].ToStatus)
	}
	// A rotation alone is no change of knowledge but its moves; the
	// same states compare equal.
	if c := Compare(after, after); len(c) != 0 {
		t.Errorf("Compare(x, x) = %+v", c)
	}
	// Lines duplicated by a merge change nothing.
	if c := Compare(before, append(before, before...)); len(c) != 0 {
		t.Errorf("duplicates: %+v", c)
	}
}

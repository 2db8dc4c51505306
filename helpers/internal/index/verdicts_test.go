package index

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/audit"
	"github.com/cairn-dev/cairn/helpers/internal/fsx"
	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
)

// writeAudit writes an audit of actions with a summary for the log as it
// is now.
func writeAudit(t *testing.T, s *knowledge.Store, acts ...audit.Action) {
	t.Helper()
	log, err := s.ReadLog()
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	for _, a := range append(acts, audit.Action{Action: audit.ActSummary, Summary: &audit.Summary{LogSHA256: knowledge.Sum(log)}}) {
		line, _ := json.Marshal(a)
		b.Write(append(line, '\n'))
	}
	if err := os.MkdirAll(s.CachePath(), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(audit.Path(s.CachePath()), b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestVerdictsReachCandidates(t *testing.T) {
	s := newStore(t)
	base := []knowledge.Entry{
		{Key: "fact-kiwi-noise-aaaaaa", Type: "fact", Content: "kiwi deploy pasted output", TS: 100},
		{Key: "fact-kiwi-doubt-bbbbbb", Type: "fact", Content: "kiwi deploy runs in internal/deploy/kiwi.go with the kiwi deploy flag", TS: 100},
		{Key: "fact-kiwi-plain-cccccc", Type: "fact", Content: "kiwi deploy needs the staging token", TS: 100},
	}
	if _, err := s.Insert(base); err != nil {
		t.Fatal(err)
	}
	ix := openIndex(t, s)
	mustSync(t, ix)
	if !ix.SanitizeNeeded() {
		t.Error("no audit yet, but SanitizeNeeded is false")
	}
	before := hitKeys(search(t, ix, testQuery{Text: "kiwi deploy"}))
	if len(before) != 3 || before[0] != "fact-kiwi-doubt-bbbbbb" {
		t.Fatalf("before any audit: %v (the doubtful entry should match best on its words)", before)
	}

	writeAudit(t, s,
		audit.Action{Action: audit.ActNoise, Key: "fact-kiwi-noise-aaaaaa", TS: 100, Effect: audit.EffectRemoved, Reason: "pasted command"},
		audit.Action{Action: audit.ActAnchor, Key: "fact-kiwi-doubt-bbbbbb", TS: 100, Effect: audit.EffectFlagged, Reason: "needs review: not found in the repository: internal/deploy/kiwi.go"},
		// A verdict on an older line of a key does not apply to its newer one.
		audit.Action{Action: audit.ActNoise, Key: "fact-kiwi-plain-cccccc", TS: 50, Effect: audit.EffectRemoved, Reason: "old line"},
	)
	mustSync(t, ix)
	if ix.SanitizeNeeded() {
		t.Error("audit of the current log, but SanitizeNeeded is true")
	}
	// The candidates carry the verdicts (what they do to the rank is
	// package rank's): the flagged entry with its effect and note, the
	// noise gone.
	hits := search(t, ix, testQuery{Text: "kiwi deploy"})
	if got := hitKeys(hits); strings.Join(got, " ") != "fact-kiwi-doubt-bbbbbb fact-kiwi-plain-cccccc" {
		t.Fatalf("with the audit: %v, want the doubtful and the plain entries, the noise gone", got)
	}
	if h := hits[0]; h.Effect != audit.EffectFlagged || !strings.HasPrefix(h.Entry.Note, "needs review: ") {
		t.Errorf("flagged candidate: effect %q, note %q", h.Effect, h.Entry.Note)
	}
	if h := hits[1]; h.Effect != "" || h.Entry.Note != "" {
		t.Errorf("plain candidate: effect %q, note %q", h.Effect, h.Entry.Note)
	}
	for _, h := range search(t, ix, testQuery{Limit: 100}) {
		if h.Entry.Key == "fact-kiwi-noise-aaaaaa" {
			t.Error("removed entry in the newest-first listing")
		}
	}
	if got := hitKeys(search(t, ix, testQuery{Text: "kiwi deploy", Inactive: true})); len(got) != 3 {
		t.Errorf("Inactive shows everything, got %v", got)
	}
	// A typed query (the joined path) applies the verdicts too.
	if got := hitKeys(search(t, ix, testQuery{Text: "kiwi deploy", Type: "fact"})); strings.Join(got, " ") != "fact-kiwi-doubt-bbbbbb fact-kiwi-plain-cccccc" {
		t.Errorf("typed query: %v", got)
	}

	// The log changes: the working set is behind until the next run.
	if _, err := s.Insert([]knowledge.Entry{{Key: "fact-kiwi-new-dddddd", Type: "fact", Content: "kiwi deploy is blue-green", TS: 200}}); err != nil {
		t.Fatal(err)
	}
	mustSync(t, ix)
	if !ix.SanitizeNeeded() {
		t.Error("log changed since the audit, but SanitizeNeeded is false")
	}
	// A rebuilt cache reads the audit again.
	if _, err := ix.Rebuild(); err != nil {
		t.Fatal(err)
	}
	if got := hitKeys(search(t, ix, testQuery{Text: "kiwi deploy"})); len(got) != 3 || strings.Contains(strings.Join(got, " "), "noise") {
		t.Errorf("after rebuild: %v", got)
	}
}

// An audit that cannot be read is no audit: the cache syncs and searches as
// without one, and asks for a sanitize run that rewrites it.
func TestUnreadableAuditIsNoAudit(t *testing.T) {
	s := newStore(t)
	if _, err := s.Insert([]knowledge.Entry{{Key: "fact-lime-aaaaaa", Type: "fact", Content: "lime builds need the cache warmed", TS: 100}}); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(audit.Path(s.CachePath()), 0o755); err != nil { // a directory: reading it fails
		t.Fatal(err)
	}
	ix := openIndex(t, s)
	mustSync(t, ix)
	if got := hitKeys(search(t, ix, testQuery{Text: "lime builds"})); len(got) != 1 {
		t.Errorf("search with an unreadable audit: %v", got)
	}
	if !ix.SanitizeNeeded() {
		t.Error("unreadable audit, but SanitizeNeeded is false")
	}
}

// A log too big to hash on every sync: a sync after a pull does not know
// its sum, and the audit's record of the log's identity tells instead
// whether the working set is of the log as it is.
func TestSanitizeNeededBigLog(t *testing.T) {
	s := newStore(t)
	lines := synthLog(0, 6000, 1)
	writeLog(t, s, join(lines))
	if len(join(lines)) <= sumInlineBytes {
		t.Fatalf("log of %d bytes: not past sumInlineBytes", len(join(lines)))
	}
	ix := openIndex(t, s)
	mustSync(t, ix)
	auditWith := func(id fsx.FileID) {
		t.Helper()
		log, err := s.ReadLog()
		if err != nil {
			t.Fatal(err)
		}
		line, _ := json.Marshal(audit.Action{Action: audit.ActSummary, Summary: &audit.Summary{LogSHA256: knowledge.Sum(log), LogID: id}})
		if err := os.WriteFile(audit.Path(s.CachePath()), append(line, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	logID := func() fsx.FileID {
		id, err := s.Root().StatID(knowledge.LogName)
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	auditWith(logID())
	mustSync(t, ix)
	if ix.SanitizeNeeded() {
		t.Error("audit of the log as it is: SanitizeNeeded")
	}

	// A pull: the merge-join catches up without hashing the log.
	lines = append(lines, synthLog(9000, 9050, 2)...)
	knowledge.SortLines(lines)
	writeLog(t, s, join(lines))
	quick := ix.quick
	mustSync(t, ix)
	if ix.quick != quick+1 || ix.log.sum != "" {
		t.Fatalf("pull: merge-joins %d -> %d, log sum %q; want a quick catch-up that hashed nothing", quick, ix.quick, ix.log.sum)
	}
	if !ix.SanitizeNeeded() {
		t.Error("log changed since the audit: SanitizeNeeded is false")
	}
	// An audit from before the pull, without the log's identity (an older
	// cairn's), does not count either.
	auditWith(fsx.FileID{})
	mustSync(t, ix)
	if !ix.SanitizeNeeded() {
		t.Error("audit without the log's identity and a sum not known: SanitizeNeeded is false")
	}
	// The run after the pull.
	auditWith(logID())
	mustSync(t, ix)
	if ix.SanitizeNeeded() {
		t.Error("audit of the pulled log: SanitizeNeeded")
	}
	// A fresh Index (the next process) reads the same from the cache.
	ix.Close()
	ix = openIndex(t, s)
	mustSync(t, ix)
	if ix.SanitizeNeeded() {
		t.Error("next process: SanitizeNeeded")
	}
}

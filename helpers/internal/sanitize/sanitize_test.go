package sanitize

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/helpers/internal/audit"
	"github.com/cairn-dev/cairn/helpers/internal/fsx"
	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
)

// gitRepo is a real git repository in a temporary directory, driven by the
// git binary with no user or system configuration.
type gitRepo struct {
	tb  testing.TB
	dir string
}

func newGitRepo(tb testing.TB) *gitRepo {
	tb.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		tb.Fatal("the tests need the git binary on PATH")
	}
	r := &gitRepo{tb: tb, dir: tb.TempDir()}
	r.git("init", "-q")
	// No background gc: it would repack objects while the test reads
	// them, and write into the directory while it is removed.
	r.git("config", "gc.auto", "0")
	r.git("config", "maintenance.auto", "false")
	return r
}

func (r *gitRepo) git(args ...string) string {
	r.tb.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = r.dir
	cmd.Env = append(os.Environ(),
		"GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=Test", "GIT_AUTHOR_EMAIL=test@example.com",
		"GIT_COMMITTER_NAME=Test", "GIT_COMMITTER_EMAIL=test@example.com")
	out, err := cmd.CombinedOutput()
	if err != nil {
		r.tb.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func (r *gitRepo) write(files map[string]string) { writeTree(r.tb, r.dir, files) }

// commit stages everything and commits; it returns the short hash.
func (r *gitRepo) commit(msg string) string {
	r.tb.Helper()
	r.git("add", "-A")
	r.git("commit", "-q", "-m", msg)
	return r.git("rev-parse", "--short", "HEAD")
}

var testNow = time.Unix(1_800_000_000, 0)

func ent(key, typ, content string, ts int64) knowledge.Entry {
	return knowledge.Entry{Key: key, Type: typ, Content: content, TS: ts}
}

func marshal(tb testing.TB, e knowledge.Entry) string {
	tb.Helper()
	b, err := knowledge.Marshal(&e)
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}

func logOf(tb testing.TB, entries ...knowledge.Entry) []byte {
	tb.Helper()
	var b strings.Builder
	for _, e := range entries {
		b.WriteString(marshal(tb, e))
		b.WriteByte('\n')
	}
	return []byte(b.String())
}

func build(tb testing.TB, root string, log []byte) Result {
	tb.Helper()
	res := Build(log, nil, Options{Root: root, Now: func() time.Time { return testNow }})
	checkInvariants(tb, log, res)
	return res
}

// checkInvariants checks what every result must satisfy for a log without
// archive: every entry of the log is either in the working set or has
// exactly one audit line that removes it; working-set keys are unique;
// flagged entries have a reason; the summary agrees.
func checkInvariants(tb testing.TB, log []byte, res Result) {
	tb.Helper()
	keys := map[string]bool{}
	knowledge.Parse(log, func(r knowledge.Record) { keys[r.Entry.Key] = true })
	active := map[string]bool{}
	for _, a := range res.Active {
		if active[a.Entry.Key] {
			tb.Errorf("key %s twice in the working set", a.Entry.Key)
		}
		active[a.Entry.Key] = true
		switch a.Status {
		case LocalActive:
			if len(a.Reasons) != 0 {
				tb.Errorf("%s: active with reasons %v", a.Entry.Key, a.Reasons)
			}
		case LocalNeedsReview, LocalOutdated:
			if len(a.Reasons) == 0 {
				tb.Errorf("%s: %s without a reason", a.Entry.Key, a.Status)
			}
		default:
			tb.Errorf("%s: local status %q", a.Entry.Key, a.Status)
		}
	}
	removed := map[string]int{}
	for _, a := range res.Audit {
		if a.Effect == audit.EffectRemoved {
			removed[a.Key]++
			if a.Reason == "" {
				tb.Errorf("%s: removed by %s without a reason", a.Key, a.Action)
			}
		}
	}
	for k := range keys {
		switch {
		case active[k] && removed[k] > 0:
			tb.Errorf("%s: in the working set and removed by the audit", k)
		case !active[k] && removed[k] != 1:
			tb.Errorf("%s: not in the working set, %d removing audit lines (want 1)", k, removed[k])
		}
	}
	for k := range removed {
		if !keys[k] {
			tb.Errorf("audit removes %s, which is not in the log", k)
		}
	}
	if res.Summary.Active != len(res.Active) || res.Summary.Entries != len(keys) || len(res.Latest) != len(keys) {
		tb.Errorf("summary active %d entries %d, latest %d; want %d and %d", res.Summary.Active, res.Summary.Entries, len(res.Latest), len(res.Active), len(keys))
	}
}

func activeOf(res Result) map[string]ActiveEntry {
	m := map[string]ActiveEntry{}
	for _, a := range res.Active {
		m[a.Entry.Key] = a
	}
	return m
}

func auditOf(res Result, key string) []audit.Action {
	var out []audit.Action
	for _, a := range res.Audit {
		if a.Key == key {
			out = append(out, a)
		}
	}
	return out
}

// anchorOf returns the single anchor line of key.
func anchorOf(tb testing.TB, res Result, key string) audit.Action {
	tb.Helper()
	var found []audit.Action
	for _, a := range auditOf(res, key) {
		if a.Action == audit.ActAnchor {
			found = append(found, a)
		}
	}
	if len(found) != 1 {
		tb.Fatalf("%s: %d anchor lines, want 1: %+v", key, len(found), auditOf(res, key))
	}
	return found[0]
}

func TestBuildAnchorsKeepCase(t *testing.T) {
	repo := newGitRepo(t)
	repo.write(map[string]string{"src/Components/Foo.tsx": "export const Foo = () => null\n"})
	repo.commit("init")
	log := logOf(t,
		ent("fact-exact", "fact", "The modal lives in src/Components/Foo.tsx and is lazy loaded.", 100),
		ent("fact-lower", "fact", "The modal lives in src/components/foo.tsx and is eagerly loaded.", 101),
		ent("fact-tail", "fact", "Components/Foo.tsx renders nothing on the server.", 102),
	)
	res := build(t, repo.dir, log)
	act := activeOf(res)
	if a, ok := act["fact-exact"]; !ok || a.Status != LocalActive {
		t.Errorf("exact case: %+v, in working set %v; want active", a, ok)
	}
	if a := anchorOf(t, res, "fact-exact"); a.Result != audit.AnchorOK || !slices.Equal(a.Files, []string{"src/Components/Foo.tsx"}) {
		t.Errorf("exact case anchor: %+v", a)
	}
	if _, ok := act["fact-lower"]; ok {
		t.Error("wrong case: in the working set, want stale")
	}
	if a := anchorOf(t, res, "fact-lower"); a.Result != audit.AnchorStale || a.Effect != audit.EffectRemoved || !slices.Equal(a.MissingFiles, []string{"src/components/foo.tsx"}) {
		t.Errorf("wrong case anchor: %+v", a)
	}
	if a, ok := act["fact-tail"]; !ok || a.Status != LocalActive {
		t.Errorf("tail of a tracked path: %+v, %v; want active", a, ok)
	}
}

func TestBuildAnchorResults(t *testing.T) {
	repo := newGitRepo(t)
	repo.write(map[string]string{
		"internal/auth/redirect.go": "package auth\n\nfunc buildQuery() string { return \"\" }\n",
		"hooks/stop.sh":             "[ \"$stop_hook_active\" = true ] && exit 0\n",
		"README.md":                 "# x\n",
	})
	repo.commit("init")
	log := logOf(t,
		ent("learned-all-gone", "learned", "The retry loop in old/retry.go and old/backoff.go caps at 5 attempts.", 100),
		ent("learned-some-gone", "learned", "internal/auth/redirect.go calls into old/session.go for the cookie.", 101),
		ent("learned-symbol-missing", "learned", "internal/auth/redirect.go escapes with `parseRedirect` before sending.", 102),
		ent("learned-symbols-found", "learned", "`buildQuery` escapes values; check stop_hook_active to avoid loops.", 103),
		ent("learned-bare-name-missing", "learned", "install.sh must run before setup.py on fresh machines.", 104),
		ent("learned-bare-name-found", "learned", "README.md documents the release flow.", 105),
		ent("learned-no-anchor", "learned", "Releases go out on Tuesdays after the freeze.", 106),
		knowledge.Entry{Key: "learned-files-field", Type: "learned", Content: "The linter config is picky about imports.", TS: 107, Files: []string{"tools/lint/config"}},
	)
	res := build(t, repo.dir, log)
	act := activeOf(res)

	a := anchorOf(t, res, "learned-all-gone")
	if a.Result != audit.AnchorStale || a.Effect != audit.EffectRemoved || !slices.Equal(a.MissingFiles, []string{"old/retry.go", "old/backoff.go"}) || !strings.HasPrefix(a.Reason, "stale:") {
		t.Errorf("all gone: %+v", a)
	}
	a = anchorOf(t, res, "learned-files-field")
	if a.Result != audit.AnchorStale || a.Effect != audit.EffectRemoved || !slices.Equal(a.MissingFiles, []string{"tools/lint/config"}) {
		t.Errorf("files field gone: %+v", a)
	}

	a = anchorOf(t, res, "learned-some-gone")
	if a.Result != audit.AnchorReview || a.Effect != audit.EffectFlagged || !slices.Equal(a.MissingFiles, []string{"old/session.go"}) {
		t.Errorf("some gone: %+v", a)
	}
	if e := act["learned-some-gone"]; e.Status != LocalNeedsReview || len(e.Reasons) != 1 || !strings.Contains(e.Reasons[0], "old/session.go") {
		t.Errorf("some gone in working set: %+v", e)
	}

	a = anchorOf(t, res, "learned-symbol-missing")
	if a.Result != audit.AnchorReview || a.Effect != audit.EffectFlagged || len(a.MissingFiles) != 0 || !slices.Equal(a.MissingSymbols, []string{"parseRedirect"}) || !strings.Contains(a.Reason, "parseRedirect (symbol)") {
		t.Errorf("symbol missing: %+v", a)
	}
	if e := act["learned-symbol-missing"]; e.Status != LocalNeedsReview {
		t.Errorf("symbol missing in working set: %+v", e)
	}

	for _, k := range []string{"learned-symbols-found", "learned-bare-name-missing", "learned-bare-name-found"} {
		if a := anchorOf(t, res, k); a.Result != audit.AnchorOK || a.Effect != "" || len(a.MissingFiles)+len(a.MissingSymbols) != 0 {
			t.Errorf("%s: %+v, want ok", k, a)
		}
		if e, ok := act[k]; !ok || e.Status != LocalActive {
			t.Errorf("%s: %+v, %v; want active", k, e, ok)
		}
	}
	if got := auditOf(res, "learned-no-anchor"); len(got) != 0 {
		t.Errorf("no anchors, no audit line: %+v", got)
	}
	s := res.Summary
	if s.Stale != 2 || s.Review != 2 || s.Outdated != 0 || !s.SymbolsComplete || s.TrackedFiles != 3 {
		t.Errorf("summary %+v", s)
	}
}

func TestBuildOutdated(t *testing.T) {
	repo := newGitRepo(t)
	repo.write(map[string]string{
		"internal/auth/redirect.go": "package auth\n\nfunc Redirect() {}\n",
		"internal/auth/cookie.go":   "package auth\n\nfunc Cookie() {}\n",
	})
	first := repo.commit("init")
	repo.write(map[string]string{"internal/auth/redirect.go": "package auth\n\nfunc Redirect() { panic(1) }\n"})
	second := repo.commit("change redirect")

	withCommit := func(key, content, commit string) knowledge.Entry {
		e := ent(key, "learned", content, 100)
		e.Commit = commit
		return e
	}
	log := logOf(t,
		withCommit("learned-changed", "internal/auth/redirect.go never returns an error.", first),
		withCommit("learned-changed-by-name", "redirect.go never returns an error, really.", first),
		withCommit("learned-unchanged", "internal/auth/cookie.go sets SameSite=Lax.", first),
		withCommit("learned-current", "internal/auth/redirect.go panics on purpose now.", second),
		withCommit("learned-unknown-commit", "internal/auth/redirect.go was reviewed.", "0123456789abcdef0123456789abcdef01234567"),
		withCommit("learned-no-file", "Prefer small commits.", first),
	)
	res := build(t, repo.dir, log)
	act := activeOf(res)
	for _, k := range []string{"learned-changed", "learned-changed-by-name"} {
		a := anchorOf(t, res, k)
		if a.Result != audit.AnchorOutdated || a.Effect != audit.EffectFlagged || !slices.Equal(a.ChangedFiles, []string{"internal/auth/redirect.go"}) || !strings.Contains(a.Reason, first) {
			t.Errorf("%s: %+v, want outdated since %s", k, a, first)
		}
		if e := act[k]; e.Status != LocalOutdated || len(e.Reasons) != 1 {
			t.Errorf("%s in working set: %+v", k, e)
		}
	}
	for _, k := range []string{"learned-unchanged", "learned-current", "learned-unknown-commit"} {
		if a := anchorOf(t, res, k); a.Result != audit.AnchorOK || len(a.ChangedFiles) != 0 {
			t.Errorf("%s: %+v, want ok", k, a)
		}
		if e := act[k]; e.Status != LocalActive {
			t.Errorf("%s: %+v, want active", k, e)
		}
	}
	if res.Summary.Outdated != 2 {
		t.Errorf("summary outdated %d, want 2", res.Summary.Outdated)
	}
}

// A missing file is worse news than a changed one: an entry with both is
// needs_review, not outdated.
func TestBuildReviewBeforeOutdated(t *testing.T) {
	repo := newGitRepo(t)
	repo.write(map[string]string{"a/x.go": "package a\n"})
	first := repo.commit("init")
	repo.write(map[string]string{"a/x.go": "package a // changed\n"})
	repo.commit("change")
	e := ent("learned-both", "learned", "a/x.go and a/gone.go share a mutex.", 100)
	e.Commit = first
	res := build(t, repo.dir, logOf(t, e))
	if a := anchorOf(t, res, "learned-both"); a.Result != audit.AnchorReview || !slices.Equal(a.ChangedFiles, []string{"a/x.go"}) {
		t.Errorf("%+v", a)
	}
}

func TestBuildWithoutGit(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{"src/Components/Foo.tsx": "x"})
	log := logOf(t,
		ent("fact-exact", "fact", "The modal lives in src/Components/Foo.tsx and `noSuchSymbol` too.", 100),
		ent("fact-lower", "fact", "The modal lives in src/components/foo.tsx instead.", 101),
	)
	res := build(t, root, log)
	if e, ok := activeOf(res)["fact-exact"]; !ok || e.Status != LocalActive {
		t.Errorf("on disk, symbols unchecked outside git: %+v %v", e, ok)
	}
	if a := anchorOf(t, res, "fact-lower"); a.Result != audit.AnchorStale {
		t.Errorf("wrong case on disk: %+v", a)
	}
	if res.Summary.TrackedFiles != 0 {
		t.Errorf("tracked files %d outside git", res.Summary.TrackedFiles)
	}
}

func TestBuildWithoutRootChecksNoAnchors(t *testing.T) {
	log := logOf(t, ent("fact-a", "fact", "old/gone.go holds `missingSym`.", 100))
	res := build(t, "", log)
	if len(res.Active) != 1 || res.Active[0].Status != LocalActive {
		t.Errorf("working set %+v", res.Active)
	}
	for _, a := range res.Audit {
		if a.Action == audit.ActAnchor {
			t.Errorf("anchor line without a root: %+v", a)
		}
	}
}

func TestBuildStatuses(t *testing.T) {
	retracted := ent("fact-retracted", "fact", "The staging DB is at db-2.", 200)
	retracted.Status, retracted.ReviewReason = knowledge.StatusRetracted, "moved to db-3"
	superseded := ent("fact-old", "fact", "Deploys run from Jenkins.", 200)
	superseded.Status, superseded.SupersededBy = knowledge.StatusSuperseded, "fact-new"
	review := ent("fact-review", "fact", "Cache keys include the tenant id.", 200)
	review.Status, review.ReviewReason = knowledge.StatusNeedsReview, "check after the refactor"
	canonical := ent("fact-canonical", "fact", "ok", 200) // a fragment, but curated
	canonical.Status, canonical.ReviewReason = knowledge.StatusCanonical, "kept"
	// A retraction is final even when a later line of the key follows.
	final := ent("fact-final", "fact", "Feature flags live in LaunchDarkly.", 100)
	final.Status, final.ReviewReason = knowledge.StatusRetracted, "we left LaunchDarkly"
	revived := ent("fact-final", "fact", "Feature flags live in LaunchDarkly.", 300)

	log := logOf(t,
		ent("fact-retracted", "fact", "The staging DB is at db-2.", 100), retracted,
		ent("fact-old", "fact", "Deploys run from Jenkins.", 100), superseded,
		ent("fact-new", "fact", "Deploys run from GitHub Actions.", 150),
		review, canonical, final, revived,
	)
	res := build(t, "", log)
	act := activeOf(res)
	want := map[string]struct{ action, kept, reason string }{
		"fact-retracted": {audit.ActRetracted, "", "retracted: moved to db-3"},
		"fact-old":       {audit.ActSuperseded, "fact-new", "superseded by fact-new"},
		"fact-final":     {audit.ActRetracted, "", "retracted: we left LaunchDarkly"},
	}
	for k, w := range want {
		got := auditOf(res, k)
		if len(got) != 1 || got[0].Action != w.action || got[0].Effect != audit.EffectRemoved || got[0].KeptKey != w.kept || got[0].Reason != w.reason {
			t.Errorf("%s: audit %+v, want %+v", k, got, w)
		}
	}
	if got := auditOf(res, "fact-review"); len(got) != 1 || got[0].Action != audit.ActStatus || got[0].Result != knowledge.StatusNeedsReview || got[0].Effect != "" || got[0].Reason != "check after the refactor" {
		t.Errorf("needs_review status line: %+v", got)
	}
	for _, k := range []string{"fact-new", "fact-review", "fact-canonical"} {
		if _, ok := act[k]; !ok {
			t.Errorf("%s not in the working set", k)
		}
	}
	if s := res.Summary; s.Retracted != 2 || s.Superseded != 1 || s.Noise != 0 || s.Active != 3 {
		t.Errorf("summary %+v", s)
	}
}

func TestBuildDuplicates(t *testing.T) {
	canonicalOld := ent("pattern-canon", "pattern", "Wrap errors with %w, never %v.", 100)
	canonicalOld.Status, canonicalOld.ReviewReason = knowledge.StatusCanonical, "kept"
	log := logOf(t,
		// Exact duplicates (same content, keys from different writers).
		ent("fact-exact-a", "fact", "The API rate limit is 100 requests per minute.", 100),
		ent("fact-exact-b", "fact", "The API rate limit is 100 requests per minute.", 300),
		ent("fact-exact-c", "fact", "the API  rate limit is 100 requests per minute.", 200),
		// Normalized duplicates: case, punctuation and filler words.
		ent("learned-norm-a", "learned", "Always run migrations before deploying.", 500),
		ent("learned-norm-b", "learned", "Note: always run the migrations, before deploying!", 400),
		// Same words, other type: not a duplicate.
		ent("decision-norm", "decision", "Always run migrations before deploying.", 50),
		// A canonical entry wins over a newer duplicate.
		canonicalOld,
		ent("pattern-newer", "pattern", "wrap errors with %w -- never %v", 900),
	)
	res := build(t, "", log)
	act := activeOf(res)
	for _, k := range []string{"fact-exact-b", "learned-norm-a", "decision-norm", "pattern-canon"} {
		if _, ok := act[k]; !ok {
			t.Errorf("%s should be kept", k)
		}
	}
	cases := []struct {
		key, kept string
		exact     bool
	}{
		{"fact-exact-a", "fact-exact-b", true},
		{"fact-exact-c", "fact-exact-b", true}, // differs only in case and spacing
		{"learned-norm-b", "learned-norm-a", false},
		{"pattern-newer", "pattern-canon", false},
	}
	for _, c := range cases {
		got := auditOf(res, c.key)
		if len(got) != 1 || got[0].Action != audit.ActDuplicate || got[0].Effect != audit.EffectRemoved || got[0].KeptKey != c.kept {
			t.Errorf("%s: %+v, want collapsed into %s", c.key, got, c.kept)
			continue
		}
		wantReason := "same content as " + c.kept
		if !c.exact {
			wantReason += " up to case, punctuation or filler words"
		}
		if got[0].Reason != wantReason {
			t.Errorf("%s: reason %q, want %q", c.key, got[0].Reason, wantReason)
		}
		if !slices.Contains(got[0].Keys, c.key) || len(got[0].Keys) == 0 || got[0].Keys[0] != c.kept {
			t.Errorf("%s: cluster keys %v", c.key, got[0].Keys)
		}
	}
	if res.Summary.Duplicates != 4 {
		t.Errorf("duplicates %d, want 4", res.Summary.Duplicates)
	}
}

func TestBuildNoise(t *testing.T) {
	log := logOf(t,
		ent("learned-cmd", "learned", `bd create --title="x" --type=task`, 100),
		ent("learned-log", "learned", "2026-01-02T03:04:05Z ERROR failed", 101),
		ent("learned-frag", "learned", "TODO", 102),
		ent("learned-trace", "learned", "panic: boom\n\ngoroutine 1 [running]:\nmain.main()", 103),
		ent("learned-prose", "learned", "git rebase -i drops signed commits", 104),
	)
	res := build(t, "", log)
	want := map[string]string{"learned-cmd": NoiseCommand, "learned-log": NoiseLogLine, "learned-frag": NoiseFragment, "learned-trace": NoiseStackTrace}
	for k, why := range want {
		if got := auditOf(res, k); len(got) != 1 || got[0].Action != audit.ActNoise || got[0].Reason != why || got[0].Type != "learned" || got[0].TS == 0 {
			t.Errorf("%s: %+v, want noise %q", k, got, why)
		}
	}
	if len(res.Active) != 1 || res.Active[0].Entry.Key != "learned-prose" || res.Summary.Noise != 4 {
		t.Errorf("working set %+v, summary %+v", res.Active, res.Summary)
	}
}

func TestBuildInvalidLines(t *testing.T) {
	good := marshal(t, ent("fact-good", "fact", "The queue is FIFO per tenant.", 100))
	double, _ := json.Marshal(marshal(t, ent("fact-double", "fact", "Double-encoded lines are repaired on read.", 101)))
	glued := marshal(t, ent("fact-glued-a", "fact", "Glued line one is read.", 102)) + marshal(t, ent("fact-glued-b", "fact", "Glued line two is read.", 103))
	log := strings.Join([]string{
		good,                               // 1
		"not json at all",                  // 2
		"",                                 // 3 blank: no problem
		`{"key":"k","type":"fact","ts":1}`, // 4 no content
		"<<<<<<< HEAD",                     // 5
		string(double),                     // 6
		glued,                              // 7
		`{"key":"k2","type":"nope","content":"x y","ts":1}`, // 8 unknown type
		`{"key":"torn","type":"fact","cont`,                 // 9 torn last line
	}, "\n")
	archive := "garbage\n" + marshal(t, ent("fact-archived", "fact", "Archived entries are not active.", 50)) + "\n"
	res := Build([]byte(log), []byte(archive), Options{})
	type lineAct struct {
		action, source string
		line           int
		reason         string
	}
	var got []lineAct
	for _, a := range res.Audit {
		if a.Action == audit.ActSkipInvalid || a.Action == audit.ActRepair {
			got = append(got, lineAct{a.Action, a.Source, a.Line, a.Reason})
		}
	}
	want := []lineAct{
		{audit.ActSkipInvalid, "archive", 1, knowledge.ProblemInvalidJSON},
		{audit.ActSkipInvalid, "log", 2, knowledge.ProblemInvalidJSON},
		{audit.ActSkipInvalid, "log", 4, knowledge.ProblemInvalidEntry},
		{audit.ActSkipInvalid, "log", 5, knowledge.ProblemConflictMarker},
		{audit.ActRepair, "log", 6, knowledge.ProblemDoubleEncoded},
		{audit.ActRepair, "log", 7, knowledge.ProblemGluedLines},
		{audit.ActSkipInvalid, "log", 8, knowledge.ProblemInvalidEntry},
		{audit.ActSkipInvalid, "log", 9, knowledge.ProblemTornLine},
	}
	if !slices.Equal(got, want) {
		t.Errorf("line actions\n got  %+v\n want %+v", got, want)
	}
	var keys []string
	for _, a := range res.Active {
		keys = append(keys, a.Entry.Key)
	}
	slices.Sort(keys)
	if !slices.Equal(keys, []string{"fact-double", "fact-glued-a", "fact-glued-b", "fact-good"}) {
		t.Errorf("working set %v", keys)
	}
	s := res.Summary
	if s.Invalid != 6 || s.Repaired != 2 || s.Archived != 1 || s.Entries != 5 || s.Lines != 11 {
		t.Errorf("summary %+v", s)
	}
}

// Every entry of a log full of every kind of case is accounted for.
func TestBuildAuditExplainsEveryRemoval(t *testing.T) {
	repo := newGitRepo(t)
	repo.write(map[string]string{"pkg/a.go": "package pkg\n\nfunc Present() {}\n"})
	first := repo.commit("init")
	repo.write(map[string]string{"pkg/a.go": "package pkg\n\nfunc Present() { _ = 1 }\n"})
	repo.commit("change")
	var entries []knowledge.Entry
	contents := []string{
		"pkg/a.go defines Present for callers.",
		"pkg/gone.go is where the bug was.",
		"pkg/a.go and pkg/gone.go share state.",
		"`Missing` is called by pkg/a.go.",
		`bd create --title="x" --type=task`,
		"ok",
		"The build needs Go 1.26.",
		"the build needs go 1.26",
		"2026-01-02T03:04:05Z ERROR failed",
	}
	for i, c := range contents {
		e := ent(knowledge.MakeKey("fact", c)+"-"+string(rune('a'+i)), "fact", c, int64(100+i))
		e.Commit = first
		entries = append(entries, e)
	}
	r := ent("fact-r", "fact", "Retracted knowledge here.", 100)
	r.Status, r.ReviewReason = knowledge.StatusRetracted, "wrong"
	s := ent("fact-s", "fact", "Superseded knowledge here.", 100)
	s.Status, s.SupersededBy = knowledge.StatusSuperseded, "fact-x"
	entries = append(entries, r, s)
	log := logOf(t, entries...)
	log = append(log, []byte("garbage line\n")...)
	res := build(t, repo.dir, log)
	if len(res.Active) == 0 || len(res.Active) == len(entries) {
		t.Errorf("working set of %d out of %d: the log should exercise every outcome", len(res.Active), len(entries))
	}
	seen := map[string]bool{}
	for _, a := range res.Audit {
		seen[a.Action] = true
	}
	for _, act := range []string{audit.ActSkipInvalid, audit.ActRetracted, audit.ActSuperseded, audit.ActNoise, audit.ActDuplicate, audit.ActAnchor} {
		if !seen[act] {
			t.Errorf("no %s line", act)
		}
	}
}

func TestEncode(t *testing.T) {
	repo := newGitRepo(t)
	repo.write(map[string]string{"pkg/a.go": "package pkg\n"})
	repo.commit("init")
	log := logOf(t,
		ent("fact-ok", "fact", "Use <b>bold</b> & co in the docs of pkg/a.go.", 100),
		ent("fact-review", "fact", "pkg/a.go calls `missingThing` with \"quotes\".", 101),
		ent("fact-noise", "fact", "ok", 102),
	)
	// A double-encoded line: the working set holds the repaired object.
	double, _ := json.Marshal(marshal(t, ent("fact-double", "fact", "Double encoded, repaired.", 103)))
	log = append(log, append(double, '\n')...)
	res := build(t, repo.dir, log)
	active, auditLog := res.Encode()

	lines, _ := knowledge.Lines(active)
	if len(lines) != len(res.Active) {
		t.Fatalf("%d active lines for %d entries", len(lines), len(res.Active))
	}
	for i, line := range lines {
		want := res.Active[i]
		e, err := knowledge.DecodeEntry(line)
		if err != nil {
			t.Fatalf("active line %d: %v\n%s", i+1, err, line)
		}
		if !equalEntry(e, want.Entry) {
			t.Errorf("line %d decodes to %+v, want %+v", i+1, e, want.Entry)
		}
		var local struct {
			Status  string   `json:"local_status"`
			Reasons []string `json:"local_reasons"`
		}
		if err := json.Unmarshal(line, &local); err != nil || local.Status != want.Status || !slices.Equal(local.Reasons, want.Reasons) {
			t.Errorf("line %d local fields %+v (%v), want %q %v", i+1, local, err, want.Status, want.Reasons)
		}
		// The line is the log line with the local fields added at the end.
		prefix := bytes.TrimSuffix(bytes.TrimSpace(want.JSON), []byte("}"))
		if !bytes.HasPrefix(line, prefix) || !bytes.HasPrefix(line[len(prefix):], []byte(`,"local_status":`)) {
			t.Errorf("line %d is not the log line plus local fields:\n%s\n%s", i+1, line, want.JSON)
		}
	}
	if !bytes.Contains(active, []byte("<b>bold</b> & co")) {
		t.Error("active line re-escaped the log's content")
	}

	alines, _ := knowledge.Lines(auditLog)
	if len(alines) != len(res.Audit)+1 {
		t.Fatalf("%d audit lines for %d actions + summary", len(alines), len(res.Audit))
	}
	for i, l := range alines {
		var a audit.Action
		if err := json.Unmarshal(l, &a); err != nil {
			t.Fatalf("audit line %d: %v", i+1, err)
		}
		last := i == len(alines)-1
		if (a.Action == audit.ActSummary) != last || (a.Summary != nil) != last {
			t.Errorf("audit line %d: %+v", i+1, a)
		}
		if last && *a.Summary != res.Summary {
			t.Errorf("summary %+v, want %+v", *a.Summary, res.Summary)
		}
	}
}

func equalEntry(a, b knowledge.Entry) bool {
	ja, _ := knowledge.Marshal(&a)
	jb, _ := knowledge.Marshal(&b)
	return bytes.Equal(ja, jb)
}

func TestRun(t *testing.T) {
	repo := newGitRepo(t)
	repo.write(map[string]string{"pkg/a.go": "package pkg\n\nfunc Present() {}\n"})
	repo.commit("init")
	store := knowledge.Open(repo.dir)
	if err := store.Provision(); err != nil {
		t.Fatal(err)
	}
	log := logOf(t,
		ent("fact-ok", "fact", "pkg/a.go defines `Present`.", 100),
		ent("fact-stale", "fact", "pkg/gone.go defines `Gone`.", 101),
		ent("fact-review", "fact", "pkg/a.go defines `Absent`.", 102),
	)
	log = append(log, "\"not an entry\"\r\n"...) // odd bytes must survive
	if err := os.WriteFile(store.LogPath(), log, 0o644); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(store.LogPath())
	res, ran, err := Run(store, Options{Root: repo.dir, Collect: true}, true)
	if err != nil || !ran {
		t.Fatalf("Run: ran %v, %v", ran, err)
	}
	after, _ := os.ReadFile(store.LogPath())
	if !bytes.Equal(before, after) {
		t.Fatal("Run changed the log")
	}
	wantActive, wantAudit := res.Encode()
	gotActive, err := os.ReadFile(ActivePath(store.CachePath()))
	if err != nil || !bytes.Equal(gotActive, wantActive) {
		t.Errorf("active file: %v\n%s\nwant\n%s", err, gotActive, wantActive)
	}
	gotAudit, err := os.ReadFile(audit.Path(store.CachePath()))
	if err != nil || !bytes.Equal(gotAudit, wantAudit) {
		t.Errorf("audit file: %v\n%s\nwant\n%s", err, gotAudit, wantAudit)
	}
	verdicts, from, err := audit.ReadVerdicts(store)
	sum := from.LogSHA256
	if err != nil || sum != res.Summary.LogSHA256 || sum != fmtSum(before) {
		t.Errorf("ReadVerdicts: sum %q, err %v; want %q", sum, err, res.Summary.LogSHA256)
	}
	if id, _ := store.Root().StatID(knowledge.LogName); from.LogID != id || id.Ino == 0 {
		t.Errorf("ReadVerdicts: log id %+v; want the log's %+v", from.LogID, id)
	}
	effects := map[string]string{}
	for _, v := range verdicts {
		effects[v.Key] = v.Effect
		if v.Note == "" {
			t.Errorf("verdict without a note: %+v", v)
		}
	}
	if effects["fact-stale"] != audit.EffectRemoved || effects["fact-review"] != audit.EffectFlagged || effects["fact-ok"] != "" {
		t.Errorf("verdicts %+v", verdicts)
	}
	if res.Summary.Invalid != 1 || len(res.Active) != 2 {
		t.Errorf("summary %+v", res.Summary)
	}

	// A second run over the same log writes the same working set; it
	// collects nothing but the summary.
	res2, ran, err := Run(store, Options{Root: repo.dir}, false)
	if err != nil || !ran {
		t.Fatalf("second Run: %v %v", ran, err)
	}
	if a2, err := os.ReadFile(ActivePath(store.CachePath())); err != nil || !bytes.Equal(a2, wantActive) {
		t.Errorf("a second run gave another working set: %v\n%s", err, a2)
	}
	if res2.Active != nil || res2.Audit != nil || res2.Latest != nil || res2.Summary.Active != 2 {
		t.Errorf("a run without Collect: %d active, %d audit lines, %d latest; summary %+v", len(res2.Active), len(res2.Audit), len(res2.Latest), res2.Summary)
	}
}

func fmtSum(b []byte) string {
	return Build(b, nil, Options{}).Summary.LogSHA256
}

func TestRunBusyAndMissing(t *testing.T) {
	root := t.TempDir()
	store := knowledge.Open(root)
	// No .cairn at all: an empty working set, both files written.
	res, ran, err := Run(store, Options{}, true)
	if err != nil || !ran || len(res.Active) != 0 {
		t.Fatalf("empty store: %+v %v %v", res.Summary, ran, err)
	}
	for _, p := range []string{ActivePath(store.CachePath()), audit.Path(store.CachePath())} {
		if _, err := os.Stat(p); err != nil {
			t.Error(err)
		}
	}
	if _, err := os.Stat(store.LogPath()); !os.IsNotExist(err) {
		t.Errorf("Run created the log: %v", err)
	}
	// Another run holds the lock: a non-waiting run returns at once.
	lock, err := fsx.Acquire(filepath.Join(store.CachePath(), LockName), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Release()
	if err := os.Remove(audit.Path(store.CachePath())); err != nil {
		t.Fatal(err)
	}
	if _, ran, err := Run(store, Options{}, false); ran || err != nil {
		t.Errorf("busy: ran %v, err %v", ran, err)
	}
	if _, err := os.Stat(audit.Path(store.CachePath())); !os.IsNotExist(err) {
		t.Error("a run that did not get the lock wrote the audit")
	}
}

// TestLavra runs Build over Lavra's real log (testdata, 217 lines, 63 of
// them double-encoded) against a small repository holding three of the
// files it names, and checks a hand-verified subset line by line.
func TestLavra(t *testing.T) {
	log, err := os.ReadFile("../../../testdata/lavra-knowledge.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	repo := newGitRepo(t)
	repo.write(map[string]string{
		"plugins/lavra/hooks/knowledge-db.sh": "#!/bin/bash\nkb_search() {\n  sqlite3 \"$DB\" 'SELECT content FROM kb WHERE kb MATCH ?' \"$1\"\n}\n",
		"scripts/select-opencode-models.sh":   "#!/bin/bash\nset -euo pipefail\ni=1\n",
		"scripts/convert-opencode.ts":         "export function convertCommands() {}\n",
	})
	repo.commit("init")
	before := bytes.Clone(log)
	res := build(t, repo.dir, log)
	if !bytes.Equal(before, log) {
		t.Fatal("Build changed its input")
	}

	// The 63 double-encoded lines (lines 1 to 63) are repaired, and
	// nothing is skipped.
	var repaired []int
	for _, a := range res.Audit {
		switch a.Action {
		case audit.ActRepair:
			if a.Reason != knowledge.ProblemDoubleEncoded || a.Source != "log" {
				t.Errorf("repair %+v", a)
			}
			repaired = append(repaired, a.Line)
		case audit.ActSkipInvalid:
			t.Errorf("skipped %+v", a)
		}
	}
	if len(repaired) != 63 || repaired[0] != 1 || repaired[62] != 63 || res.Summary.Repaired != 63 {
		t.Errorf("repaired lines %v (summary %d), want 1..63", repaired, res.Summary.Repaired)
	}
	if s := res.Summary; s.Lines != 217 || s.Entries != 217 || s.Invalid != 0 || s.Noise != 16 || s.Duplicates != 0 || s.TrackedFiles != 3 || !s.SymbolsComplete {
		t.Errorf("summary %+v", s)
	}

	const (
		cmd    = "removed " + audit.ActNoise + ": " + NoiseCommand
		stale  = "removed " + audit.ActAnchor + ": " + audit.AnchorStale
		active = "active"
		review = "needs_review"
	)
	cases := []struct {
		key, want string
		// missing lists the anchors a needs_review or stale line must
		// report missing (files, then symbols).
		missing []string
	}{
		// Line 33: prose that starts with "bd show --json"; the only
		// quoted text is jq's argument, not a flag value. No anchors.
		{"learned-bd-show-json-returns-an-array-not-a-single-object-must-u", active, nil},
		// Line 156: prose about "bd show --long"; no quoted flag value.
		{"learned-bd-show-long-includes-comments-in-human-readable-format-in", active, nil},
		// Line 159: prose starting with "grep -E", with a pasted
		// `" && bd close ...` tail; the first line is mostly prose.
		{"learned-grep-e-ere-does-not-support-perl-style-lookaheads-like", active, nil},
		// Line 175: prose starting with "sqlite3 CLI accepts"; its quoted
		// SQL is not a flag value.
		{"learned-sqlite3-cli-accepts-bound-parameters-as-positional-arguments", active, nil},
		// Line 160: a pasted `bd create --title="..." --description="...`.
		{"fact-bd-create-title-sanitize-knowledge-content-before-writing", cmd, nil},
		// Line 168: a pasted bd create that names knowledge-db.sh: noise is
		// judged before anchors.
		{"learned-bd-create-title-fix-sql-injection-risk-in-knowledge-db-sh", cmd, nil},
		// Line 110: `bd update ... -d "$(cat <<'DESC` heredoc.
		{"learned-bd-update-bdcompound-hm0-6-d-cat-desc-memory-system-d", cmd, nil},
		// Line 118: `cd /Users/... && \` then git add / git commit.
		{"learned-cd-users-rbm-documents-projects-beads-compound-plugin", cmd, nil},
		// Line 166: a "# Check if || ..." scratch script of echo/sed pipes.
		{"learned-check-if-is-correctly-handled-the-re-alternation-sh", cmd, nil},
		// Line 163: a "# Test the || coverage ..." scratch script.
		{"learned-test-the-coverage-in-the-trailing-operator-sed-oauth-wo", cmd, nil},
		// Line 172: names knowledge-db.sh (tracked under
		// plugins/lavra/hooks/) and kb_search(), which it defines.
		{"learned-knowledge-db-sh-kb-search-uses-an-unquoted-heredoc-sql", active, nil},
		// Line 22 (double-encoded): the snake_case symbol kb_search is found.
		{"fact-kb-search-top-n-parameter-is-interpolated-into-sql-limit-cla", active, nil},
		// Line 174: kb_search() found; TOP_N and FTS_QUERY are upper
		// case, not symbols.
		{"decision-fixed-sql-injection-in-kb-search-by-replacing-unquoted-her", active, nil},
		// Line 171: names scripts/select-opencode-models.sh, which exists;
		// its bare names memory-capture.sh and import-plan.sh say nothing.
		{"learned-var-under-set-e-was-missed-in-scripts-select-opencode", active, nil},
		// Line 173: the bare name select-opencode-models.sh is found under
		// scripts/.
		{"fact-select-opencode-models-sh-had-i-at-line-101-inside-a-w", active, nil},
		// Line 1 (double-encoded): only bare names AGENTS.md and CLAUDE.md,
		// absent here; bare names found or not never flag an entry.
		{"decision-agents-md-is-the-emerging-industry-standard-for-cross-tool-a", active, nil},
		// Line 179: its file exists but sanitize_untrusted_content is
		// defined nowhere in this repository.
		{"learned-fact-select-opencode-models-sh-starts-i-1-so-i-does-n", review, []string{"sanitize_untrusted_content"}},
		// Line 82: die(), setRawMode and buildTree are defined nowhere here.
		{"decision-restored-process-on-exit-cleanup-as-defensive-practice", review, []string{"die", "setRawMode", "buildTree"}},
		// Line 209: six directory paths, of which only
		// scripts/convert-opencode.ts exists; convertCommands is defined
		// there, convertSkills is not.
		{"decision-path-rewriting-belongs-in-converters-not-runtime-each-pl", review, []string{
			"plugins/lavra/commands/lavra-work-ralph.md", "plugins/lavra/commands/lavra-work-teams.md",
			"plugins/lavra/skills/lavra-work-multi/SKILL.md", "scripts/convert-gemini.ts", "scripts/convert-cortex.ts",
			"convertSkills"}},
		// Line 208: every directory path it names (in its pasted git add)
		// is missing; its bare SKILL.md does not count.
		{"decision-used-tmpl-variable-fallback-chain-covering-all-platfor", stale, []string{
			"plugins/lavra/commands/lavra-work-ralph.md", "plugins/lavra/commands/lavra-work-teams.md",
			"plugins/lavra/skills/lavra-work-multi/SKILL.md", "installers/install-opencode.sh", "installers/install-gemini.sh"}},
		// Line 56 (double-encoded): shared/security.ts,
		// shared/yaml-parser.ts and shared/model-mapping.ts are all gone
		// (its symbol Promise.all() is missing too, but stale wins).
		{"pattern-conversion-script-architecture-1-shared-security-ts-for-v", stale, []string{
			"shared/security.ts", "shared/yaml-parser.ts", "shared/model-mapping.ts", "Promise.all"}},
		// Line 66: prose (with a pasted `" && bd close` tail) whose only
		// path plugins/beads-compound/plugin.ts is gone.
		{"learned-opencode-project-install-puts-plugin-ts-at-plugins-beads-com", stale, []string{"plugins/beads-compound/plugin.ts"}},
	}
	act := activeOf(res)
	for _, c := range cases {
		t.Run(c.key, func(t *testing.T) {
			if _, ok := res.Latest[c.key]; !ok {
				t.Fatalf("no entry %s", c.key)
			}
			var got string
			var missing []string
			if e, ok := act[c.key]; ok {
				got = e.Status
			}
			for _, a := range auditOf(res, c.key) {
				switch {
				case a.Effect == audit.EffectRemoved && a.Action == audit.ActAnchor:
					got = "removed " + a.Action + ": " + a.Result
				case a.Effect == audit.EffectRemoved:
					got = "removed " + a.Action + ": " + a.Reason
				}
				if a.Action == audit.ActAnchor {
					missing = append(append(missing, a.MissingFiles...), a.MissingSymbols...)
				}
			}
			if got != c.want {
				t.Errorf("outcome %q, want %q; audit %+v", got, c.want, auditOf(res, c.key))
			}
			if !sameStrings(missing, c.missing) {
				t.Errorf("missing %q, want %q", missing, c.missing)
			}
		})
	}
}

// The symbol budget runs on the real clock: a run given another clock
// (here one far in the past, as a test or a replay would) still searches.
// Before the fix, the deadline was Options.Now()+budget compared with
// time.Now(), so the search gave up before reading a file.
func TestBuildFakeClockKeepsSymbolBudget(t *testing.T) {
	repo := newGitRepo(t)
	repo.write(map[string]string{"pkg/a.go": "package pkg\n\nfunc Present() {}\n"})
	repo.commit("init")
	log := logOf(t, ent("fact-a", "fact", "pkg/a.go defines `Present` and `Absent`.", 100))
	for _, now := range []time.Time{time.Unix(1000, 0), time.Now().Add(-time.Hour), time.Now().Add(100 * 365 * 24 * time.Hour)} {
		res := Build(log, nil, Options{Root: repo.dir, Now: func() time.Time { return now }})
		a := anchorOf(t, res, "fact-a")
		if !res.Summary.SymbolsComplete || !slices.Equal(a.MissingSymbols, []string{"Absent"}) {
			t.Errorf("clock at %v: complete %v, anchor %+v", now, res.Summary.SymbolsComplete, a)
		}
	}
}

package main

// cairn resolve against real merges: the real git binary, no merge driver
// (as GitHub's merge button merges), and the conflicts that leaves.

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/cli"
	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
	"github.com/cairn-dev/cairn/helpers/internal/testharness/cairntest"
)

// cairnResult runs cairn in process on the project at dir and returns its
// exit code, stdout and stderr, whatever the code.
func cairnResult(t testing.TB, dir string, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	argv := append([]string{"cairn", "--dir", dir}, args...)
	code := cli.Main(argv, cli.Env{Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr, Dir: dir})
	return code, stdout.String(), stderr.String()
}

// withoutUnion turns cairn's union merge driver off in repo the way a
// merge on GitHub goes without it: .cairn/.gitattributes is emptied and
// the change committed. git reads a merge's attributes from the work
// tree's .gitattributes files (then $GIT_DIR/info/attributes and
// core.attributesFile, which the test's git has neither of), so with the
// committed file empty on both sides no merge attribute applies and git's
// builtin three-way text merge runs. (Union is builtin: it cannot be
// turned off by configuring a driver, and cairn re-creates a missing
// .gitattributes, so the file is emptied, not deleted.) The caller
// commits; the check that it took is [checkNoUnion].
func withoutUnion(t testing.TB, repo string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(repo, ".cairn", ".gitattributes"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
}

// checkNoUnion fails the test unless git sees no merge attribute on the log.
func checkNoUnion(t testing.TB, g *gitEnv, repo string) {
	t.Helper()
	if out := g.run(repo, "check-attr", "merge", "--", ".cairn/knowledge.jsonl"); !strings.Contains(out, "merge: unspecified") {
		t.Fatalf("the union driver is still in effect: %s", out)
	}
}

// checkLogSorted fails the test unless the log's lines are in hash-of-key
// order (then ts), recomputed here from each line's key.
func checkLogSorted(t testing.TB, path string) {
	t.Helper()
	var prev [32]byte
	var prevTS int64
	first := true
	knowledge.Parse(cairntest.MustRead(t, path), func(r knowledge.Record) {
		h := knowledge.SortKey(r.Entry.Key)
		if c := bytes.Compare(h[:], prev[:]); !first && (c < 0 || c == 0 && r.Entry.TS < prevTS) {
			t.Errorf("%s: line %d (%s) is out of order", filepath.Base(path), r.Line, r.Entry.Key)
		}
		prev, prevTS, first = h, r.Entry.TS, false
	})
}

var resolvedLine = regexp.MustCompile(`^resolved \.cairn/knowledge\.jsonl: kept \d+ lines? from both sides, removed \d+ conflict markers? and \d+ duplicate lines?; staged it \(git add\)\n$`)

// TestResolveAfterPlainMerge: two clones each add 3 entries with cairn add
// to a 3-entry log and the second pulls the first's without the union
// driver; the merge conflicts. doctor fails and names cairn resolve, sync
// says so, cairn resolve repairs and stages the log, git commit --no-edit
// completes the merge, and recall finds the entries of both clones.
func TestResolveAfterPlainMerge(t *testing.T) {
	g := newGitEnv(t)
	var (
		a, b                   string
		keysBase, keysA, keysB []string
		attempts               int
	)
	// With 3 base lines and 3 insertions a side, most content conflicts;
	// the contents depend only on the attempt number, so the attempt that
	// conflicts is the same on every run.
	for conflicted := false; !conflicted; {
		attempts++
		if attempts > 20 {
			t.Fatal("20 attempts and no merge conflicted: the premise of this test no longer holds")
		}
		top := t.TempDir()
		origin := filepath.Join(top, "origin.git")
		a, b = filepath.Join(top, "a"), filepath.Join(top, "b")
		g.run(top, "init", "-q", "--bare", origin)
		g.run(top, "clone", "-q", origin, a)
		keysBase, keysA, keysB = nil, nil, nil
		for i := range 3 {
			keysBase = append(keysBase, cairnAdd(t, a, fmt.Sprintf("base note %d of attempt %d: the importer keeps the keys", i, attempts)))
		}
		withoutUnion(t, a)
		g.run(a, "add", ".cairn")
		g.run(a, "commit", "-q", "-m", "base knowledge, merged without a driver")
		g.run(a, "push", "-q", "origin", "HEAD:main")
		g.run(top, "clone", "-q", origin, b)
		checkNoUnion(t, g, b)

		for i := range 3 {
			keysA = append(keysA, cairnAdd(t, a, fmt.Sprintf("clone a note %d of attempt %d: the ledger export retries shard %d", i, attempts, i)))
		}
		g.run(a, "commit", "-q", "-am", "knowledge from a")
		g.run(a, "push", "-q", "origin", "HEAD:main")
		for i := range 3 {
			keysB = append(keysB, cairnAdd(t, b, fmt.Sprintf("clone b note %d of attempt %d: the webhook relay batches event %d", i, attempts, i)))
		}
		g.run(b, "commit", "-q", "-am", "knowledge from b")
		out, err := g.try(b, "pull", "-q", "--no-rebase", "--no-edit", "origin", "main")
		switch {
		case err == nil:
			t.Logf("attempt %d merged cleanly; trying other entries", attempts)
		case strings.Contains(out, "CONFLICT"):
			conflicted = true
		default:
			t.Fatalf("git pull: %v\n%s", err, out)
		}
	}
	t.Logf("the merge conflicted at attempt %d", attempts)
	log := logPath(b)
	if got := strings.TrimSpace(g.run(b, "diff", "--name-only", "--diff-filter=U")); got != ".cairn/knowledge.jsonl" {
		t.Fatalf("unmerged files = %q, want the log", got)
	}
	if knowledge.ConflictLines(cairntest.MustRead(t, log)) == nil {
		t.Fatalf("the conflicted log has no markers:\n%s", cairntest.MustRead(t, log))
	}

	code, out, errOut := cairnResult(t, b, "doctor")
	if code != 1 || !strings.Contains(out, "fail knowledge.jsonl") || !strings.Contains(out, "fix: cairn resolve (conflict markers from a merge on line") {
		t.Errorf("cairn doctor: exit %d, want 1 naming cairn resolve\n%s%s", code, out, errOut)
	}
	code, out, errOut = cairnResult(t, b, "sync")
	if code != 0 || !regexp.MustCompile(`(?m)^cairn: \.cairn/knowledge\.jsonl has conflict markers from a merge \(lines [0-9, ]+\): run cairn resolve$`).MatchString(errOut) {
		t.Errorf("cairn sync: exit %d, want 0 with the hint on stderr\nstdout: %s\nstderr: %s", code, out, errOut)
	}

	code, out, errOut = cairnResult(t, b, "resolve")
	if code != 0 || !resolvedLine.MatchString(out) || errOut != "" {
		t.Fatalf("cairn resolve: exit %d\nstdout: %q\nstderr: %s", code, out, errOut)
	}
	data := cairntest.MustRead(t, log)
	if knowledge.ConflictLines(data) != nil || bytes.Contains(data, []byte("<<<<<<<")) || bytes.Contains(data, []byte(">>>>>>>")) {
		t.Fatalf("markers left after cairn resolve:\n%s", data)
	}
	got := parseLog(t, log)
	wantOnce(t, got, keysBase...)
	wantOnce(t, got, keysA...)
	wantOnce(t, got, keysB...)
	if len(got) != 9 || bytes.Count(data, []byte("\n")) != 9 {
		t.Errorf("resolved log has %d keys on %d lines, want 9 on 9", len(got), bytes.Count(data, []byte("\n")))
	}
	checkLogSorted(t, log)
	if staged := g.run(b, "diff", "--cached", "--name-only"); !strings.Contains(staged, ".cairn/knowledge.jsonl") {
		t.Errorf("the log is not staged: git diff --cached lists %q", staged)
	}
	if left := g.run(b, "diff", "--name-only", "--diff-filter=U"); left != "" {
		t.Errorf("still unmerged after cairn resolve: %q", left)
	}

	g.run(b, "commit", "-q", "--no-edit")
	if parents := strings.Fields(g.run(b, "rev-list", "--parents", "-n", "1", "HEAD")); len(parents) != 3 {
		t.Errorf("HEAD is not a merge commit: %v", parents)
	}
	if out := g.run(b, "status", "--porcelain", "--", ".cairn"); out != "" {
		t.Errorf(".cairn is not clean after the commit: %s", out)
	}
	g.run(b, "push", "-q", "origin", "HEAD:main")
	for _, q := range [][]string{{"ledger", "export"}, {"webhook", "relay"}} {
		out := runCairn(t, b, append([]string{"recall", "--json", "--limit", "10"}, q...)...)
		keys := keysA
		if q[0] == "webhook" {
			keys = keysB
		}
		for _, k := range keys {
			if !strings.Contains(out, `"key": "`+k+`"`) {
				t.Errorf("cairn recall %s does not find %s after the merge:\n%s", strings.Join(q, " "), k, out)
			}
		}
	}
	if code, out, errOut := cairnResult(t, b, "doctor"); code != 0 {
		t.Errorf("cairn doctor after the merge: exit %d\n%s%s", code, out, errOut)
	}
	if code, out, _ := cairnResult(t, b, "resolve"); code != 0 || out != "nothing to resolve: no conflict markers in .cairn/knowledge.jsonl\n" {
		t.Errorf("cairn resolve after the merge: exit %d, %q", code, out)
	}
}

// mergeTrials merges, trials times, two branches that each add perSide
// entries of distinct random content (seeded) with the store's ordered
// insert to a committed log of size entries, with real git and no merge
// driver, and returns how many merges conflicted. Every conflicted merge
// is resolved with cairn resolve and checked (no marker, every entry of
// the base and of both sides once, in order, staged), then aborted. The
// merges take git's three conflict styles in turn.
func mergeTrials(tb testing.TB, size, trials int, seed uint64) (conflicts int) {
	const perSide = 3
	g := newGitEnv(tb)
	repo := g.initRepo()
	st := knowledge.Open(repo)
	if err := st.Provision(); err != nil {
		tb.Fatal(err)
	}
	base := synthetic("base entry", size, 1_700_000_000)
	if _, err := st.Insert(base); err != nil {
		tb.Fatal(err)
	}
	withoutUnion(tb, repo)
	g.run(repo, "add", "-A")
	g.run(repo, "commit", "-q", "-m", fmt.Sprintf("base log of %d entries, no merge driver", size))
	g.run(repo, "branch", "base")
	checkNoUnion(tb, g, repo)

	rng := rand.New(rand.NewPCG(seed, uint64(size)))
	words := strings.Fields("cache retry token shard queue lease cursor batch tenant webhook ledger export header cookie deadline " +
		"schema migration index replica quota limiter bucket worker drain flag rollout canary metric alert span")
	side := func(trial int, name string) []string {
		var keys []string
		var entries []knowledge.Entry
		for i := range perSide {
			var w []string
			for range 6 {
				w = append(w, words[rng.IntN(len(words))])
			}
			c := fmt.Sprintf("%s (trial %d, side %s, entry %d, %08x)", strings.Join(w, " "), trial, name, i, rng.Uint32())
			e := knowledge.Entry{Key: knowledge.MakeKey("learned", c), Type: "learned", Content: c, Source: "agent", TS: 1_800_000_000 + int64(trial)}
			entries = append(entries, e)
			keys = append(keys, e.Key)
		}
		res, err := st.Insert(entries)
		if err != nil || len(res.Added) != perSide {
			tb.Fatalf("insert: %v (%d added)", err, len(res.Added))
		}
		return keys
	}
	for trial := range trials {
		a, b := fmt.Sprintf("t%03d-a", trial), fmt.Sprintf("t%03d-b", trial)
		g.run(repo, "checkout", "-q", "-b", a, "base")
		keysA := side(trial, "a")
		g.run(repo, "commit", "-q", "-am", a)
		g.run(repo, "checkout", "-q", "-b", b, "base")
		keysB := side(trial, "b")
		g.run(repo, "commit", "-q", "-am", b)
		// The conflict style changes what the markers look like, not
		// whether the merge conflicts: each style in turn, so resolve
		// meets diff3's and zdiff3's base sections from real git too.
		style := []string{"merge", "diff3", "zdiff3"}[trial%3]
		out, err := g.try(repo, "-c", "merge.conflictStyle="+style, "merge", "-q", "--no-edit", a)
		if err == nil {
			continue
		}
		if !strings.Contains(out, "CONFLICT") {
			tb.Fatalf("git merge %s: %v\n%s", a, err, out)
		}
		conflicts++
		if code, out, errOut := cairnResult(tb, repo, "resolve"); code != 0 || !resolvedLine.MatchString(out) {
			tb.Fatalf("trial %d: cairn resolve: exit %d\n%s%s", trial, code, out, errOut)
		}
		got := parseLog(tb, logPath(repo))
		for _, e := range base {
			wantOnce(tb, got, e.Key)
		}
		wantOnce(tb, got, keysA...)
		wantOnce(tb, got, keysB...)
		if len(got) != size+2*perSide {
			tb.Errorf("trial %d: resolved log has %d keys, want %d", trial, len(got), size+2*perSide)
		}
		checkLogSorted(tb, logPath(repo))
		if left := g.run(repo, "diff", "--name-only", "--diff-filter=U"); left != "" {
			tb.Errorf("trial %d: still unmerged after cairn resolve: %q", trial, left)
		}
		g.run(repo, "merge", "--abort")
	}
	return conflicts
}

// mergeSizes are the log sizes the conflict rate is measured at.
var mergeSizes = []int{10, 100, 1000}

// TestMergeConflictRateMeasured runs a few trials of the measurement
// BenchmarkMergeConflictRate makes, so it keeps working: the merges run,
// and every one that conflicts is resolved without losing an entry. It
// asserts nothing about the rate.
func TestMergeConflictRateMeasured(t *testing.T) {
	const trials = 5
	for _, size := range mergeSizes {
		t.Run(fmt.Sprintf("lines=%d", size), func(t *testing.T) {
			n := mergeTrials(t, size, trials, 1)
			t.Logf("%d of %d plain merges conflicted at %d lines (each resolved)", n, trials, size)
		})
	}
}

// BenchmarkMergeConflictRate measures how often a plain three-way merge
// (real git, no merge driver: GitHub's merge button) of two branches that
// each add 3 entries to a log of 10, 100 and 1,000 entries conflicts,
// over mergeRateTrials trials per size and per iteration, each with its
// own seed:
//
//	go test -run '^$' -bench MergeConflictRate ./helpers/cairn/
//
// It reports the percentage of merges that conflicted and the number of
// trials behind it. Every conflicted merge is resolved with cairn resolve
// and checked.
func BenchmarkMergeConflictRate(b *testing.B) {
	for _, size := range mergeSizes {
		b.Run(fmt.Sprintf("lines=%d", size), func(b *testing.B) {
			conflicts, trials := 0, 0
			for i := 0; i < b.N; i++ {
				conflicts += mergeTrials(b, size, mergeRateTrials, uint64(100+i))
				trials += mergeRateTrials
			}
			b.ReportMetric(100*float64(conflicts)/float64(trials), "%conflicted")
			b.ReportMetric(float64(trials), "trials")
		})
	}
}

// mergeRateTrials is how many merges BenchmarkMergeConflictRate makes per
// log size in one iteration.
const mergeRateTrials = 100

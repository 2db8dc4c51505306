package main

// End-to-end tests of curation (sanitize, curate, retract) in real git
// repositories with the real git binary: curation travels through push,
// pull and merge like any other change of the log; every command only ever
// adds lines; hooks keep the working set current with a background run.

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/helpers/internal/audit"
	"github.com/cairn-dev/cairn/helpers/internal/cli"
	"github.com/cairn-dev/cairn/helpers/internal/fsx"
	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
	"github.com/cairn-dev/cairn/helpers/internal/sanitize"
	"github.com/cairn-dev/cairn/helpers/internal/testharness/cairntest"
)

// curationFiles are the source files the curation fixtures' entries name.
var curationFiles = map[string]string{
	"internal/auth/redirect.go": "package auth\n\n// The redirect URI is compared byte for byte.\nconst redirectURI = \"https://app.example.com/callback/\"\n",
	"internal/billing/retry.go": "package billing\n\n// Invoice retries back off exponentially, with jitter.\nconst maxRetries = 5\n",
	"internal/legacy/export.go": "package legacy\n\n// The CSV export for the finance team.\nconst header = \"invoice,amount\"\n",
	"internal/flags/flags.go":   "package flags\n\n// Flags are read once at startup.\nvar loaded bool\n",
}

// writeFiles writes files (path relative to dir -> content).
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for p, c := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// curationKeys are the keys of the entries of a curation fixture.
type curationKeys struct {
	oauth  []string // a duplicate pair (either may be kept)
	kafka  []string // a second duplicate pair
	stale  string   // names only internal/legacy/export.go, which is deleted
	others []string // entries nobody curates: 4 named ones, then the fillers
}

// addEntry runs cairn add TYPE CONTENT [flags...] in process and returns the key.
func addEntry(t *testing.T, dir, typ, content string, flags ...string) string {
	t.Helper()
	args := append([]string{"add", typ, content}, flags...)
	key := strings.TrimSpace(runCairn(t, dir, args...))
	if want := knowledge.MakeKey(typ, content); key != want {
		t.Fatalf("cairn add printed key %q, want %q", key, want)
	}
	return key
}

// seedCuration builds, in dir (a git work tree), a committed log with two
// duplicate pairs, a stale entry (its only file deleted in a later commit)
// and nFiller other entries; the files the entries name are committed
// before the entries, so nothing is outdated.
func seedCuration(t *testing.T, g *gitEnv, dir string, nFiller int) curationKeys {
	t.Helper()
	writeFiles(t, dir, curationFiles)
	g.run(dir, "add", "internal")
	g.run(dir, "commit", "-q", "-m", "auth, billing, flags and the legacy exporter")
	var k curationKeys
	k.oauth = []string{
		addEntry(t, dir, "learned", "OAuth redirect URI must match exactly, including the trailing slash", "--files", "internal/auth/redirect.go"),
		addEntry(t, dir, "learned", "oauth redirect uri must match exactly including the trailing slash!"),
	}
	k.kafka = []string{
		addEntry(t, dir, "fact", "The Kafka consumer lag alert fires above ten thousand messages"),
		addEntry(t, dir, "fact", "the kafka consumer lag alert fires above ten thousand messages."),
	}
	k.stale = addEntry(t, dir, "decision", "The legacy exporter in internal/legacy/export.go writes CSV for the finance team")
	k.others = []string{
		addEntry(t, dir, "fact", "The invoice retries in internal/billing/retry.go use exponential backoff with jitter"),
		addEntry(t, dir, "decision", "Authentication uses PKCE for every public client"),
		addEntry(t, dir, "must-check", "Run the database migrations before deploying the API"),
		addEntry(t, dir, "learned", "Feature flags are read once at startup from internal/flags/flags.go"),
	}
	subjects := []string{"billing worker", "search indexer", "mail sender", "report builder", "image resizer", "audit trail"}
	for i := range nFiller {
		c := fmt.Sprintf("The %s of region %02d pages the on-call rotation after ten minutes of errors", subjects[i%len(subjects)], i)
		k.others = append(k.others, addEntry(t, dir, "fact", c))
	}
	g.run(dir, "rm", "-q", "internal/legacy/export.go")
	g.run(dir, "add", "-A")
	g.run(dir, "commit", "-q", "-m", "team knowledge; drop the legacy exporter")
	return k
}

// logLineSet counts the lines (each with its newline) of log data.
func logLineSet(data []byte) map[string]int {
	m := map[string]int{}
	for _, l := range strings.SplitAfter(string(data), "\n") {
		if l != "" {
			m[l]++
		}
	}
	return m
}

// addedLines checks that every line of before is in after as often as in
// before (same bytes), and returns the lines after has in addition.
func addedLines(t *testing.T, what string, before, after []byte) map[string]int {
	t.Helper()
	b, a := logLineSet(before), logLineSet(after)
	added := map[string]int{}
	for l, n := range b {
		if a[l] < n {
			t.Errorf("%s: a line of the log was removed or changed (%d of %d copies left): %s", what, a[l], n, l)
		}
	}
	for l, n := range a {
		if n > b[l] {
			added[l] = n - b[l]
		}
	}
	return added
}

// sameLines reports whether two line multisets are equal.
func sameLines(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for l, n := range a {
		if b[l] != n {
			return false
		}
	}
	return true
}

// proposal reads a proposal file: its header and its lines (with newline).
func proposal(t *testing.T, path string) (header map[string]any, lines []string, entries []knowledge.Entry) {
	t.Helper()
	all := strings.SplitAfter(string(cairntest.MustRead(t, path)), "\n")
	if len(all) == 0 || json.Unmarshal([]byte(all[0]), &header) != nil {
		t.Fatalf("%s: the first line is not a JSON header: %q", path, all[0])
	}
	if _, ok := header["cairn_curation"]; !ok {
		t.Fatalf("%s: header lacks cairn_curation: %s", path, all[0])
	}
	for _, l := range all[1:] {
		if l == "" {
			continue
		}
		e, err := knowledge.DecodeEntry([]byte(strings.TrimSpace(l)))
		if err != nil {
			t.Fatalf("%s: %v: %s", path, err, l)
		}
		lines = append(lines, l)
		entries = append(entries, e)
	}
	return header, lines, entries
}

// recallHit is what the tests read of recall --json.
type recallHit struct {
	Key     string `json:"key"`
	Status  string `json:"status"`
	Content string `json:"content"`
}

// recallAll returns every entry recall lists in dir, by key.
func recallAll(t *testing.T, dir string) map[string]recallHit {
	t.Helper()
	var hits []recallHit
	out := runCairn(t, dir, "recall", "--json", "--limit", "1000")
	if err := json.Unmarshal([]byte(out), &hits); err != nil {
		t.Fatalf("recall --json: %v\n%s", err, out)
	}
	m := map[string]recallHit{}
	for _, h := range hits {
		m[h.Key] = h
	}
	return m
}

// latestOf returns the winning line of every key of a log file.
func latestOf(t *testing.T, path string) map[string]knowledge.Entry {
	t.Helper()
	var recs []knowledge.Record
	rep := knowledge.Parse(cairntest.MustRead(t, path), func(r knowledge.Record) { recs = append(recs, r) })
	if !rep.Clean() {
		t.Fatalf("%s does not parse cleanly: %+v", path, rep)
	}
	m := map[string]knowledge.Entry{}
	for _, r := range knowledge.Latest(recs) {
		m[r.Entry.Key] = r.Entry
	}
	return m
}

// lastLineOf returns the index of the last line of each key in log data.
func lastLineOf(data []byte) map[string]int {
	m := map[string]int{}
	i := 0
	knowledge.Parse(data, func(r knowledge.Record) {
		m[r.Entry.Key] = i
		i++
	})
	return m
}

// farFrom reports whether gap is at least 2 lines away from every gap in
// taken: a plain three-way merge of insertions that far apart is clean.
func farFrom(gap int, taken []int) bool {
	for _, g := range taken {
		if d := gap - g; d > -2 && d < 2 {
			return false
		}
	}
	return true
}

// TestCurationRoundTripTwoClones: clone A curates (curate --dry-run --out,
// then --apply --yes), commits and pushes; clone B, without pulling first, retracts an
// entry and adds one, then pulls: a real merge. The merged log is what both
// meant: the canonical entry stays, its duplicate is superseded, the
// retraction holds, the stale entry needs review, the rest is untouched.
// With merge=union (as cairn provisions it) B also retracts the entry A
// marked canonical, and the retraction wins; with the attribute removed
// (GitHub's merge button) changes at different places merge cleanly.
func TestCurationRoundTripTwoClones(t *testing.T) {
	for _, mode := range []string{"union", "plain"} {
		t.Run(mode, func(t *testing.T) {
			g := newGitEnv(t)
			top := t.TempDir()
			origin := filepath.Join(top, "origin.git")
			seed, a, b := filepath.Join(top, "seed"), filepath.Join(top, "a"), filepath.Join(top, "b")
			g.run(top, "init", "-q", "--bare", origin)
			g.run(top, "clone", "-q", origin, seed)
			keys := seedCuration(t, g, seed, 24)
			attrs := filepath.Join(seed, ".cairn", ".gitattributes")
			if got := string(cairntest.MustRead(t, attrs)); got != knowledge.GitAttributes || !strings.Contains(got, "merge=union") {
				t.Fatalf(".cairn/.gitattributes = %q, want %q", got, knowledge.GitAttributes)
			}
			if mode == "plain" {
				if err := os.WriteFile(attrs, nil, 0o644); err != nil {
					t.Fatal(err)
				}
				g.run(seed, "commit", "-q", "-am", "merge as GitHub does: no merge driver")
			}
			g.run(seed, "push", "-q", "origin", "HEAD:main")
			base := cairntest.MustRead(t, logPath(seed))
			g.run(top, "clone", "-q", origin, a)
			g.run(top, "clone", "-q", origin, b)

			// A: propose, review, apply, commit, push.
			prop := filepath.Join(t.TempDir(), "proposal.jsonl")
			out := runCairn(t, a, "curate", "--dry-run", "--out", prop)
			if !strings.Contains(out, "5 line(s) would be added") {
				t.Fatalf("curate --dry-run in A:\n%s", out)
			}
			if !bytes.Equal(cairntest.MustRead(t, logPath(a)), base) {
				t.Fatal("curate --dry-run changed the log")
			}
			_, propLines, propEntries := proposal(t, prop)
			canonical := map[string]knowledge.Entry{}
			superseded := map[string]knowledge.Entry{}
			review := map[string]knowledge.Entry{}
			for _, e := range propEntries {
				switch e.Status {
				case knowledge.StatusCanonical:
					canonical[e.Key] = e
				case knowledge.StatusSuperseded:
					superseded[e.Key] = e
				case knowledge.StatusNeedsReview:
					review[e.Key] = e
				default:
					t.Errorf("proposal line with status %q: %s", e.Status, e.Key)
				}
			}
			// One kept and one superseded entry per pair, pointing at each other.
			pairKept := func(pair []string) (kept, dup string) {
				t.Helper()
				for i, k := range pair {
					other := pair[1-i]
					if c, ok := canonical[k]; ok {
						s, ok := superseded[other]
						if !ok || s.SupersededBy != k || len(c.MergedFrom) != 1 || c.MergedFrom[0] != other {
							t.Fatalf("pair %v: canonical %+v, superseded %+v", pair, c, s)
						}
						return k, other
					}
				}
				t.Fatalf("proposal has no canonical line for the pair %v", pair)
				return "", ""
			}
			oauthKept, oauthDup := pairKept(keys.oauth)
			kafkaKept, kafkaDup := pairKept(keys.kafka)
			if _, ok := review[keys.stale]; !ok || len(review) != 1 || len(canonical) != 2 || len(superseded) != 2 {
				t.Fatalf("proposal: canonical %v, superseded %v, needs_review %v; want 2, 2 and the stale entry %s",
					mapKeys(canonical), mapKeys(superseded), mapKeys(review), keys.stale)
			}

			out = runCairn(t, a, "curate", "--apply", prop, "--yes")
			if !strings.Contains(out, "added 5 line(s)") {
				t.Fatalf("curate --apply in A:\n%s", out)
			}
			added := addedLines(t, "apply in A", base, cairntest.MustRead(t, logPath(a)))
			if !sameLines(added, logLineSet([]byte(strings.Join(propLines, "")))) {
				t.Fatalf("apply added %v, want exactly the proposal's lines", added)
			}
			g.run(a, "commit", "-q", "-am", "curate the log")
			g.run(a, "push", "-q", "origin", "HEAD:main")

			// B, at the base: retract an entry nobody curates and add one,
			// at places of the log A's lines do not touch (so that the
			// plain merge has no reason to conflict).
			last := lastLineOf(base)
			var aGaps []int
			for _, k := range []string{oauthKept, oauthDup, kafkaKept, kafkaDup, keys.stale} {
				aGaps = append(aGaps, last[k]+1)
			}
			retracted := ""
			for _, k := range keys.others[4:] {
				if farFrom(last[k]+1, aGaps) {
					retracted = k
					break
				}
			}
			if retracted == "" {
				t.Fatal("no filler entry lies away from A's changes; add fillers")
			}
			var hashes [][32]byte
			for k := range last {
				hashes = append(hashes, knowledge.SortKey(k))
			}
			sort.Slice(hashes, func(i, j int) bool { return bytes.Compare(hashes[i][:], hashes[j][:]) < 0 })
			newContent := ""
			for i := 0; newContent == ""; i++ {
				c := fmt.Sprintf("Clone b note %d: the webhook signer rotates its secret every ninety days", i)
				if farFrom(gapOf(hashes, knowledge.MakeKey("learned", c)), aGaps) {
					newContent = c
				}
			}
			out = runCairn(t, b, "retract", retracted, "--reason", "the rotation moved to the platform team")
			if strings.TrimSpace(out) != "retracted "+retracted {
				t.Fatalf("retract in B printed %q", out)
			}
			bAdded := cairnAdd(t, b, newContent)
			if mode == "union" {
				// B also retracts the entry A's curation keeps as canonical.
				runCairn(t, b, "retract", kafkaKept, "--reason", "the lag alert was replaced by an SLO")
			}
			g.run(b, "commit", "-q", "-am", "retract and add on b")

			// B pulls: a real merge of A's curation into B's changes.
			if out, err := g.try(b, "pull", "-q", "--no-rebase", "--no-edit", "origin", "main"); err != nil {
				t.Fatalf("git pull in B (%s) did not merge cleanly: %v\n%s\n%s", mode, err, out, g.run(b, "status", "--short"))
			}
			if parents := strings.Fields(g.run(b, "log", "-1", "--format=%P")); len(parents) != 2 {
				t.Fatalf("the pull made no merge commit (parents %v)", parents)
			}
			merged := cairntest.MustRead(t, logPath(b))
			if bytes.Contains(merged, []byte("<<<<<<<")) || bytes.Contains(merged, []byte(">>>>>>>")) {
				t.Fatalf("conflict markers in the merged log:\n%s", merged)
			}
			// Nothing of the base, A or B was lost.
			addedLines(t, "merge vs base", base, merged)
			addedLines(t, "merge vs A", cairntest.MustRead(t, logPath(a)), merged)

			check := func(t *testing.T, clone string) {
				latest := latestOf(t, logPath(clone))
				hits := recallAll(t, clone)
				if h, ok := hits[oauthKept]; !ok || h.Status != knowledge.StatusCanonical {
					t.Errorf("%s: recall lists the canonical entry %s as %+v (present %v), want status canonical", filepath.Base(clone), oauthKept, h, ok)
				}
				for _, k := range []string{oauthDup, kafkaDup, retracted} {
					if _, ok := hits[k]; ok {
						t.Errorf("%s: recall lists %s (latest line: status %q)", filepath.Base(clone), k, latest[k].Status)
					}
				}
				if got := latest[retracted].Status; got != knowledge.StatusRetracted {
					t.Errorf("%s: %s has status %q, want retracted", filepath.Base(clone), retracted, got)
				}
				for _, k := range []string{oauthDup, kafkaDup} {
					if got := latest[k]; got.Status != knowledge.StatusSuperseded {
						t.Errorf("%s: duplicate %s has status %q, want superseded", filepath.Base(clone), k, got.Status)
					}
				}
				if h, ok := hits[keys.stale]; !ok || h.Status != knowledge.StatusNeedsReview {
					t.Errorf("%s: recall lists the stale entry %s as %+v (present %v), want status needs_review", filepath.Base(clone), keys.stale, h, ok)
				}
				if mode == "union" {
					// The retraction is final: A's later canonical line does not revive it.
					if got := latest[kafkaKept].Status; got != knowledge.StatusRetracted {
						t.Errorf("%s: %s (retracted in B, canonical in A) has status %q, want retracted", filepath.Base(clone), kafkaKept, got)
					}
					if _, ok := hits[kafkaKept]; ok {
						t.Errorf("%s: recall lists %s, retracted in B", filepath.Base(clone), kafkaKept)
					}
				} else if h, ok := hits[kafkaKept]; !ok || h.Status != knowledge.StatusCanonical {
					t.Errorf("%s: recall lists %s as %+v (present %v), want status canonical", filepath.Base(clone), kafkaKept, h, ok)
				}
				for _, k := range append([]string{bAdded}, keys.others...) {
					if k == retracted {
						continue
					}
					if h, ok := hits[k]; !ok || h.Status != "active" {
						t.Errorf("%s: recall lists %s as %+v (present %v), want it active", filepath.Base(clone), k, h, ok)
					}
				}
			}
			t.Run("B after the merge", func(t *testing.T) { check(t, b) })

			// B pushes; A pulls (a fast-forward) and agrees.
			g.run(b, "push", "-q", "origin", "HEAD:main")
			g.run(a, "pull", "-q", "--ff-only", "origin", "main")
			if !bytes.Equal(cairntest.MustRead(t, logPath(a)), merged) {
				t.Error("A's log after the pull differs from B's merged log")
			}
			t.Run("A after the pull", func(t *testing.T) { check(t, a) })

			// Curation is done: a new dry run in the merged clone proposes
			// nothing.
			if out := runCairn(t, b, "curate", "--dry-run"); !strings.Contains(out, "nothing to curate") {
				t.Errorf("curate --dry-run after the merge:\n%s", out)
			}
		})
	}
}

func mapKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// TestCurationOnlyAddsLines: sanitize and curate --dry-run change nothing
// at all; curate --apply and retract keep every line of the log, byte for
// byte and as often as before, and add exactly the lines they say they add.
func TestCurationOnlyAddsLines(t *testing.T) {
	g := newGitEnv(t)
	repo := g.initRepo()
	keys := seedCuration(t, g, repo, 6)
	// Noise too: sanitize leaves it out of the working set, not the log.
	addEntry(t, repo, "learned", `git push --force-with-lease="main" && echo done`)
	g.run(repo, "commit", "-q", "-am", "a pasted command")
	log := logPath(repo)

	unchanged := func(what string, before []byte) {
		t.Helper()
		if after := cairntest.MustRead(t, log); !bytes.Equal(before, after) {
			t.Errorf("%s changed the log:\n--- before\n%s--- after\n%s", what, before, after)
		}
	}
	numstat := func(want string) {
		t.Helper()
		got := strings.TrimSpace(g.run(repo, "diff", "--numstat", "--", ".cairn/knowledge.jsonl"))
		if got != want+"\t.cairn/knowledge.jsonl" {
			t.Errorf("git diff --numstat = %q, want %q (added, deleted)", got, want)
		}
	}

	snap := cairntest.MustRead(t, log)
	out := runCairn(t, repo, "sanitize")
	if !strings.Contains(out, "removed: 1 noise, 2 duplicates, 1 stale") {
		t.Errorf("sanitize summary:\n%s", out)
	}
	unchanged("sanitize", snap)
	runCairn(t, repo, "sanitize", "--json")
	unchanged("sanitize --json", snap)
	runCairn(t, repo, "curate", "--dry-run")
	unchanged("curate --dry-run", snap)
	runCairn(t, repo, "curate", "--dry-run", "--json")
	unchanged("curate --dry-run --json", snap)
	prop := filepath.Join(t.TempDir(), "proposal.jsonl")
	runCairn(t, repo, "curate", "--dry-run", "--out", prop)
	unchanged("curate --dry-run --out", snap)

	// apply: the added lines are the proposal's lines, nothing else.
	header, propLines, _ := proposal(t, prop)
	if header["log_sha256"] != fmt.Sprintf("%x", sha256.Sum256(snap)) {
		t.Errorf("proposal header log_sha256 = %v, want the sha256 of the log", header["log_sha256"])
	}
	if len(propLines) != 5 {
		t.Fatalf("proposal has %d lines, want 5 (2 canonical, 2 superseded, 1 needs_review)", len(propLines))
	}
	out = runCairn(t, repo, "curate", "--apply", prop, "--yes", "--json")
	var applied struct {
		Applied int `json:"applied"`
	}
	if err := json.Unmarshal([]byte(out), &applied); err != nil || applied.Applied != len(propLines) {
		t.Errorf("curate --apply --json printed %q, want applied %d", out, len(propLines))
	}
	after := cairntest.MustRead(t, log)
	if added := addedLines(t, "curate --apply", snap, after); !sameLines(added, logLineSet([]byte(strings.Join(propLines, "")))) {
		t.Errorf("curate --apply added %v, want exactly the proposal's lines %q", added, propLines)
	}
	numstat(fmt.Sprintf("%d\t0", len(propLines)))
	g.run(repo, "commit", "-q", "-am", "curation")

	// Applying, sanitizing and proposing again change nothing.
	snap = after
	var stderr bytes.Buffer
	if code := cairnCode(repo, &stderr, "curate", "--apply", prop, "--yes"); code != 1 || !strings.Contains(stderr.String(), "log changed since the proposal") {
		t.Errorf("applying the same proposal twice: exit %d, %s", code, stderr.String())
	}
	unchanged("a refused curate --apply", snap)
	runCairn(t, repo, "sanitize")
	unchanged("sanitize after curation", snap)
	if out := runCairn(t, repo, "curate", "--dry-run"); !strings.Contains(out, "nothing to curate") {
		t.Errorf("second dry run:\n%s", out)
	}
	unchanged("second curate --dry-run", snap)

	// retract: exactly one added line, the entry's own with status retracted.
	target := keys.others[1]
	reason := "PKCE is now enforced by the identity provider"
	runCairn(t, repo, "retract", target, "--reason", reason)
	after = cairntest.MustRead(t, log)
	added := addedLines(t, "retract", snap, after)
	if len(added) != 1 {
		t.Fatalf("retract added %v, want one line", added)
	}
	for l, n := range added {
		e, err := knowledge.DecodeEntry([]byte(strings.TrimSpace(l)))
		if err != nil || n != 1 || e.Key != target || e.Status != knowledge.StatusRetracted || e.ReviewReason != reason {
			t.Errorf("retract added %d× %q (%v), want one retracted line of %s with the reason", n, l, err, target)
		}
	}
	numstat("1\t0")
	g.run(repo, "commit", "-q", "-am", "retraction")

	snap = after
	stderr.Reset()
	if code := cairnCode(repo, &stderr, "retract", target, "--reason", "again"); code != 0 || !strings.Contains(stderr.String(), "already retracted; nothing added") {
		t.Errorf("retracting twice: exit %d, %s", code, stderr.String())
	}
	unchanged("a second retract", snap)
	runCairn(t, repo, "sanitize")
	unchanged("sanitize after the retraction", snap)
	runCairn(t, repo, "curate", "--dry-run")
	unchanged("curate --dry-run after the retraction", snap)

	// Over the whole history of the file, git saw only additions.
	total := strings.TrimSpace(g.run(repo, "log", "--format=", "--numstat", "--", ".cairn/knowledge.jsonl"))
	for _, l := range strings.Split(total, "\n") {
		if f := strings.Fields(l); len(f) != 3 || f[1] != "0" {
			t.Errorf("a commit deleted lines of the log: %q", l)
		}
	}
}

// cairnCode runs cairn in process and returns its exit code.
func cairnCode(dir string, stderr io.Writer, args ...string) int {
	var stdout bytes.Buffer
	argv := append([]string{"cairn", "--dir", dir}, args...)
	return cli.Main(argv, cli.Env{Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: stderr, Dir: dir})
}

// hookEnv is the environment of a cairn process that may start background
// runs: the test's git environment without CAIRN_NO_BACKGROUND (TestMain
// sets it) or any hook state of the caller.
func hookEnv(g *gitEnv) []string {
	var env []string
	for _, kv := range g.env {
		switch k, _, _ := strings.Cut(kv, "="); k {
		case "CAIRN_NO_BACKGROUND", "CAIRN_IN_HOOK", "CAIRN_SANITIZE_LOCK_FD", "CLAUDE_PROJECT_DIR":
			continue
		}
		env = append(env, kv)
	}
	return append(env, "CLAUDE_PROJECT_DIR=")
}

// runProcess runs the cairn binary in dir with env and stdin, and fails the
// test unless it exits 0.
func runProcess(t *testing.T, env []string, dir string, stdin []byte, args ...string) (stdout, stderr string) {
	t.Helper()
	cmd := exec.Command(cairntest.Binary(t), args...)
	cmd.Dir = dir
	cmd.Env = env
	cmd.Stdin = bytes.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("cairn %s: %v\n%s%s", strings.Join(args, " "), err, out.String(), errb.String())
	}
	return out.String(), errb.String()
}

// TestHookStartsBackgroundSanitize: SessionStart, run as Claude Code runs
// it, starts a background sanitize when the log changed since the last
// run, and not otherwise. The test waits for the run by taking the sanitize
// lock, which the hook hands to the child and the child holds until it
// exits.
func TestHookStartsBackgroundSanitize(t *testing.T) {
	// Build first: newGitEnv points HOME, and so the go command's caches,
	// at an empty directory.
	cairntest.Binary(t)
	g := newGitEnv(t)
	repo := g.initRepo()
	env := hookEnv(g)
	writeFiles(t, repo, map[string]string{"internal/billing/retry.go": curationFiles["internal/billing/retry.go"]})
	g.run(repo, "add", "-A")
	g.run(repo, "commit", "-q", "-m", "billing")
	runProcess(t, env, repo, nil, "--dir", repo, "add", "fact", "The invoice retries in internal/billing/retry.go use exponential backoff with jitter")
	runProcess(t, env, repo, nil, "--dir", repo, "add", "must-check", "Run the database migrations before deploying the API")
	g.run(repo, "add", "-A")
	g.run(repo, "commit", "-q", "-m", "team knowledge")

	cache := filepath.Join(repo, ".cairn", "cache")
	lockPath := filepath.Join(cache, sanitize.LockName)
	auditPath, activePath := audit.Path(cache), sanitize.ActivePath(cache)
	// waitRun returns once no background run holds the lock: at once if
	// none was started, else when the run exits.
	waitRun := func() {
		t.Helper()
		l, err := fsx.Acquire(lockPath, 5*time.Minute)
		if err != nil {
			t.Fatalf("waiting for the background sanitize: %v", err)
		}
		l.Release()
	}
	// A failing test must not remove the directory under a running child.
	t.Cleanup(func() {
		if _, err := os.Stat(cache); err == nil {
			if l, err := fsx.Acquire(lockPath, 5*time.Minute); err == nil {
				l.Release()
			}
		}
	})
	payload, _ := json.Marshal(map[string]any{"session_id": "s-background", "cwd": repo, "hook_event_name": "SessionStart", "source": "startup"})
	sessionStart := func() {
		t.Helper()
		stdout, stderr := runProcess(t, env, repo, payload, "hook", "SessionStart")
		if stderr != "" {
			t.Errorf("SessionStart wrote on stderr: %q", stderr)
		}
		// Only the protocol JSON: one object, nothing before or after.
		dec := json.NewDecoder(strings.NewReader(stdout))
		var out struct {
			HookSpecificOutput struct {
				HookEventName     string `json:"hookEventName"`
				AdditionalContext string `json:"additionalContext"`
			} `json:"hookSpecificOutput"`
		}
		if err := dec.Decode(&out); err != nil || out.HookSpecificOutput.HookEventName != "SessionStart" {
			t.Fatalf("SessionStart stdout is not its protocol JSON (%v): %q", err, stdout)
		}
		if _, err := dec.Token(); !errors.Is(err, io.EOF) {
			t.Errorf("SessionStart wrote more than its protocol JSON: %q", stdout)
		}
		if !strings.Contains(out.HookSpecificOutput.AdditionalContext, "Run the database migrations") {
			t.Errorf("SessionStart context lacks the must-check: %q", out.HookSpecificOutput.AdditionalContext)
		}
	}
	auditSum := func() string {
		t.Helper()
		data := cairntest.MustRead(t, auditPath)
		lines := strings.Split(strings.TrimSpace(string(data)), "\n")
		var last struct {
			Action  string         `json:"action"`
			Summary *audit.Summary `json:"summary"`
		}
		if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil || last.Action != audit.ActSummary || last.Summary == nil {
			t.Fatalf("the audit's last line is not its summary: %q (%v)", lines[len(lines)-1], err)
		}
		return last.Summary.LogSHA256
	}
	logSum := func() string { return fmt.Sprintf("%x", sha256.Sum256(cairntest.MustRead(t, logPath(repo)))) }
	noErrors := func() {
		t.Helper()
		if data, err := os.ReadFile(filepath.Join(cache, "cairn.log")); err == nil && bytes.Contains(data, []byte("sanitize")) {
			t.Errorf("cairn.log reports a sanitize failure:\n%s", data)
		}
	}

	// First session: no working set yet; the hook starts a run.
	if _, err := os.Stat(auditPath); err == nil {
		t.Fatal("an audit exists before any sanitize run")
	}
	sessionStart()
	waitRun()
	for _, p := range []string{auditPath, activePath} {
		if _, err := os.Stat(p); err != nil {
			hookLog, _ := os.ReadFile(filepath.Join(cache, "cairn.log"))
			t.Fatalf("after SessionStart and its background run: %v\n(the lock was taken, so a run was started or none was needed; cairn.log: %q)", err, hookLog)
		}
	}
	if got, want := auditSum(), logSum(); got != want {
		t.Errorf("audit log_sha256 = %s, want the log's sha256 %s", got, want)
	}
	if !bytes.Contains(cairntest.MustRead(t, activePath), []byte("The invoice retries")) {
		t.Errorf("active.jsonl lacks the entry:\n%s", cairntest.MustRead(t, activePath))
	}
	noErrors()

	// Second session, same log: no run.
	auditBytes, activeBytes := cairntest.MustRead(t, auditPath), cairntest.MustRead(t, activePath)
	auditID, _ := knowledge.Open(repo).Root().StatID(audit.File)
	auditInfo, err := os.Stat(auditPath)
	if err != nil {
		t.Fatal(err)
	}
	sessionStart()
	waitRun()
	idNow, _ := knowledge.Open(repo).Root().StatID(audit.File)
	infoNow, err := os.Stat(auditPath)
	if err != nil {
		t.Fatal(err)
	}
	if idNow != auditID || !infoNow.ModTime().Equal(auditInfo.ModTime()) || !bytes.Equal(cairntest.MustRead(t, auditPath), auditBytes) {
		t.Error("SessionStart on an unchanged log ran sanitize again (the audit was rewritten)")
	}
	if !bytes.Equal(cairntest.MustRead(t, activePath), activeBytes) {
		t.Error("SessionStart on an unchanged log rewrote active.jsonl")
	}

	// The log changes (cairn add); the next session runs sanitize again.
	before := logSum()
	runProcess(t, env, repo, nil, "--dir", repo, "add", "learned", "OAuth redirect URI must match exactly, including the trailing slash")
	if logSum() == before {
		t.Fatal("cairn add did not change the log")
	}
	idAfterAdd, _ := knowledge.Open(repo).Root().StatID(audit.File)
	if idAfterAdd != auditID {
		t.Fatal("cairn add rewrote the audit; the test cannot tell who ran sanitize")
	}
	sessionStart()
	waitRun()
	if got, want := auditSum(), logSum(); got != want {
		t.Errorf("after the log changed: audit log_sha256 = %s, want the new log's sha256 %s", got, want)
	}
	if !bytes.Contains(cairntest.MustRead(t, activePath), []byte("OAuth redirect URI")) {
		t.Errorf("active.jsonl lacks the new entry:\n%s", cairntest.MustRead(t, activePath))
	}
	noErrors()

	// And with CAIRN_NO_BACKGROUND=1, a changed log starts nothing.
	runProcess(t, env, repo, nil, "--dir", repo, "add", "decision", "Authentication uses PKCE for every public client")
	idBefore, _ := knowledge.Open(repo).Root().StatID(audit.File)
	stdout, _ := runProcess(t, append(env, "CAIRN_NO_BACKGROUND=1"), repo, payload, "hook", "SessionStart")
	checkProtocol(t, "SessionStart", stdout)
	waitRun()
	if idNow, _ := knowledge.Open(repo).Root().StatID(audit.File); idNow != idBefore {
		t.Error("SessionStart with CAIRN_NO_BACKGROUND=1 ran sanitize")
	}
}

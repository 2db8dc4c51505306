package sanitize

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
)

// benchRepo is a real git repository of nFiles small tracked files in
// nested directories (d%03d/s%02d/f%05d.go, each defining FuncNNNNN), and
// a log of nEntries entries naming files and symbols, some present and
// some not, some of them captured at the first of two commits.
func benchRepo(b *testing.B, nFiles, nEntries int) (*gitRepo, *knowledge.Store) {
	return benchRepoT(b, nFiles, nEntries)
}

func benchRepoT(b testing.TB, nFiles, nEntries int) (*gitRepo, *knowledge.Store) {
	b.Helper()
	repo := newGitRepo(b)
	file := func(i int) string { return fmt.Sprintf("d%03d/s%02d/f%05d.go", i/500, i/50%10, i) }
	for i := range nFiles {
		p := filepath.Join(repo.dir, filepath.FromSlash(file(i)))
		if i%50 == 0 {
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				b.Fatal(err)
			}
		}
		src := fmt.Sprintf("package s%02d\n\n// Func%05d does step %d.\nfunc Func%05d(n int) int { return n + %d }\n", i/50%10, i, i, i, i)
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	first := repo.commit("many files")
	// Change every 100th file so that entries captured at the first
	// commit that name them are outdated.
	for i := 0; i < nFiles; i += 100 {
		p := filepath.Join(repo.dir, filepath.FromSlash(file(i)))
		if err := os.WriteFile(p, []byte(fmt.Sprintf("package s%02d\n\nfunc Func%05d() {}\n", i/50%10, i)), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	repo.commit("change some")
	// Pack the objects, as in a real repository of that size.
	repo.git("gc", "-q")

	store := knowledge.Open(repo.dir)
	if err := store.Provision(); err != nil {
		b.Fatal(err)
	}
	var entries []knowledge.Entry
	for i := range nEntries {
		f := (i * 7919) % nFiles
		var content string
		switch i % 8 {
		case 0: // file and symbol present
			content = fmt.Sprintf("%s defines `Func%05d`, which adds %d.", file(f), f, f)
		case 1: // file present, symbol absent
			content = fmt.Sprintf("%s used to define `oldHelper%d` for retries.", file(f), i)
		case 2: // file gone
			content = fmt.Sprintf("gone/dir%d/removed%d.go held the cache of entry %d.", i, i, i)
		case 3: // one of two files gone
			content = fmt.Sprintf("%s and gone/x%d.go share the lock %d.", file(f), i, i)
		case 4: // symbol only, present
			content = fmt.Sprintf("Call Func%05d() before step %d.", f, i)
		case 5: // bare name, present or not
			content = fmt.Sprintf("f%05d.go and missing%d.go are generated for step %d.", f, i, i)
		case 6: // no anchor
			content = fmt.Sprintf("Release %d goes out on a Tuesday after the freeze.", i)
		case 7: // duplicate of case 6 up to case and punctuation
			content = fmt.Sprintf("release %d goes out on a tuesday, after the freeze!", i-1)
		}
		e := ent(knowledge.MakeKey("fact", content), "fact", content, int64(1_700_000_000+i))
		if i%3 == 0 {
			e.Commit = first
		}
		entries = append(entries, e)
	}
	if err := os.WriteFile(store.LogPath(), logOf(b, entries...), 0o644); err != nil {
		b.Fatal(err)
	}
	return repo, store
}

// BenchmarkSanitize50kFiles times a full sanitize run (read, anchors
// against 50,000 tracked files, write the cache) of a 1,000-entry log.
func BenchmarkSanitize50kFiles(b *testing.B) {
	repo, store := benchRepo(b, 50_000, 1_000)
	var res Result
	for b.Loop() {
		var ran bool
		var err error
		res, ran, err = Run(store, Options{Root: repo.dir}, true)
		if err != nil || !ran {
			b.Fatalf("Run: %v %v", ran, err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/run")
	s := res.Summary
	b.Logf("tracked %d, active %d, stale %d, needs_review %d, outdated %d, duplicates %d, symbols complete %v",
		s.TrackedFiles, s.Active, s.Stale, s.Review, s.Outdated, s.Duplicates, s.SymbolsComplete)
	if s.TrackedFiles != 50_000 || s.Stale == 0 || s.Review == 0 || s.Outdated == 0 || s.Duplicates == 0 {
		b.Errorf("the log does not exercise every check: %+v", s)
	}
}

// BenchmarkBuildNoRepo times the pure pipeline (parse, fold, noise,
// duplicates, anchors extracted but not checked) over a 10,000-entry log.
func BenchmarkBuildNoRepo(b *testing.B) {
	var entries []knowledge.Entry
	for i := range 10_000 {
		var content string
		switch i % 5 {
		case 0:
			content = fmt.Sprintf("internal/pkg%d/file%d.go calls `helper%d` before Client.Do.", i%97, i, i)
		case 1:
			content = fmt.Sprintf("bd create --title=\"task %d\" --type=task", i)
		case 2:
			content = fmt.Sprintf("Deploys of service %d need the migration flag set first.", i/2)
		case 3:
			content = fmt.Sprintf("deploys of service %d need the migration flag set, first!", i/2)
		case 4:
			content = fmt.Sprintf("Prefer table tests for parser %d; they read like a spec of the grammar.", i)
		}
		entries = append(entries, ent(fmt.Sprintf("fact-%05d", i), "fact", content, int64(1_700_000_000+i)))
	}
	log := logOf(b, entries...)
	b.SetBytes(int64(len(log)))
	for b.Loop() {
		res := Build(log, nil, Options{})
		if res.Summary.Entries != 10_000 {
			b.Fatalf("entries %d", res.Summary.Entries)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/run")
}

// synthWords, synthTypes, synthTags and synthAuthors are those of the
// generator of scripts/bench.sh.
var (
	synthWords = strings.Fields(`
oauth redirect token session cache retry queue worker migration schema
index query latency timeout deadline context tenant header cookie csrf
login logout refresh expiry clock skew webhook signature payload batch
stream consumer producer offset partition lag backoff jitter circuit breaker
limiter bucket quota throttle billing invoice export import parser encoder
decoder utf8 json yaml config flag rollout canary deploy rollback release
build cache docker image layer registry pipeline lint test fixture mock
snapshot golden flaky race mutex channel goroutine leak pool connection
socket dns tls certificate proxy gateway router handler middleware
validation sanitize escape template render layout component state store
reducer effect hook prop event listener debounce scroll viewport
accessibility locale timezone currency decimal rounding float overflow
pagination cursor sort filter search ranking score embedding vector shard
replica primary failover backup restore vacuum analyze lock deadlock
transaction isolation savepoint trigger constraint foreign unique null
default enum column table view materialized partitioned archive rotation
log metric trace span alert dashboard oncall runbook incident postmortem
feature permission role admin audit secret vault kms encryption hash salt
password email notification sms push mobile android ios safari chrome
firefox upload download multipart chunk resume checksum compression gzip
`)
	synthTypes   = []string{"learned", "decision", "fact", "pattern", "investigation", "deviation", "must-check"}
	synthTags    = []string{"auth", "db", "api", "ui", "infra", "ci", "perf", "security"}
	synthAuthors = []string{"Ana", "Bo", "Chen", "Dara", "Eli"}
)

// synthLog is the log scripts/bench.sh generates: n entries of cairn's
// shape, in the log's order (the SHA-256 of the key, then ts).
func synthLog(tb testing.TB, n int) []byte {
	tb.Helper()
	seed := uint64(0x9e3779b97f4a7c15)
	next := func(m int) int {
		seed ^= seed << 13
		seed ^= seed >> 7
		seed ^= seed << 17
		return int(seed % uint64(m))
	}
	type line struct {
		hash [32]byte
		ts   int64
		json []byte
	}
	lines := make([]line, 0, n)
	for i := range n {
		ws := make([]string, 8+next(12))
		for j := range ws {
			ws[j] = synthWords[next(len(synthWords))]
		}
		content := fmt.Sprintf("%s (note %d)", strings.Join(ws, " "), i)
		typ := synthTypes[next(len(synthTypes))]
		sum := sha256.Sum256([]byte(typ + "\n" + content))
		e := knowledge.Entry{
			Key:     typ + "-" + strings.Join(ws[:4], "-") + "-" + hex.EncodeToString(sum[:3]),
			Type:    typ,
			Content: content,
			Source:  "agent",
			Tags:    []string{synthTags[next(len(synthTags))], synthTags[next(len(synthTags))]},
			TS:      1700000000 + int64(i)*60,
			Author:  synthAuthors[next(len(synthAuthors))],
			Branch:  "main",
			Commit:  hex.EncodeToString(sum[3:7])[:7],
		}
		lines = append(lines, line{sha256.Sum256([]byte(e.Key)), e.TS, []byte(marshal(tb, e) + "\n")})
	}
	sort.Slice(lines, func(a, b int) bool {
		if c := bytes.Compare(lines[a].hash[:], lines[b].hash[:]); c != 0 {
			return c < 0
		}
		return lines[a].ts < lines[b].ts
	})
	var out []byte
	for _, l := range lines {
		out = append(out, l.json...)
	}
	return out
}

// BenchmarkRun100k is the background run of the hooks over the log of
// scripts/bench.sh at 100,000 entries, in a git repository: read the log,
// decide, write the working set and the audit.
func BenchmarkRun100k(b *testing.B) {
	const n = 100_000
	repo := newGitRepo(b)
	repo.write(map[string]string{"README.md": "# x\n"})
	repo.commit("init")
	store := knowledge.Open(repo.dir)
	if err := store.Provision(); err != nil {
		b.Fatal(err)
	}
	log := synthLog(b, n)
	if err := os.WriteFile(store.LogPath(), log, 0o644); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(log)))
	b.ReportAllocs()
	for b.Loop() {
		res, ran, err := Run(store, Options{Root: repo.dir}, true)
		if err != nil || !ran || res.Summary.Active != n {
			b.Fatalf("Run: %v %v, %+v", ran, err, res.Summary)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "entries/s")
}

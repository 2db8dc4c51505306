package review

import (
	"errors"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/cairn-dev/cairn/helpers/internal/gitx"
	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
)

// fakeGit is a repository of named commits, each a set of files.
type fakeGit struct {
	revs    map[string]string            // revision -> commit
	files   map[string]map[string]string // commit -> path -> content
	base    string                       // every merge base
	changed []gitx.FileChange
	def     string
}

func (g fakeGit) Resolve(rev string) (string, error) {
	if id, ok := g.revs[rev]; ok {
		return id, nil
	}
	return "", errors.New("unknown revision " + rev)
}
func (g fakeGit) MergeBase(a, b string) (string, error)          { return g.base, nil }
func (g fakeGit) DefaultBranch() string                          { return g.def }
func (g fakeGit) ChangedSince(string) ([]gitx.FileChange, error) { return g.changed, nil }
func (g fakeGit) FileAt(id, path string, max int64) ([]byte, bool, error) {
	data, ok := g.files[id][path]
	return []byte(data), ok, nil
}

// mapTree is a work tree in memory.
type mapTree struct{ fstest.MapFS }

func (t mapTree) Lstat(name string) (fs.FileInfo, error) { return fs.Stat(t.MapFS, name) }

func line(t *testing.T, e knowledge.Entry) string {
	t.Helper()
	b, err := knowledge.Marshal(&e)
	if err != nil {
		t.Fatal(err)
	}
	return string(b) + "\n"
}

func records(data string) func() ([]knowledge.Record, error) {
	return func() ([]knowledge.Record, error) {
		var recs []knowledge.Record
		knowledge.Parse([]byte(data), func(r knowledge.Record) { recs = append(recs, r) })
		return recs, nil
	}
}

// The diff and the check run on what they are given: no git, no disk.
func TestDiffAndCheckOnInjectedSources(t *testing.T) {
	old := knowledge.Entry{Key: "fact-old", Type: "fact", Content: "retries live in client.go", TS: 1, Files: []string{"client.go"}}
	added := knowledge.Entry{Key: "fact-new", Type: "fact", Content: "the cache is disposable", TS: 2}
	then := line(t, old)
	now := then + line(t, added)
	g := fakeGit{
		revs:    map[string]string{"HEAD": "c2", "main": "c1"},
		files:   map[string]map[string]string{"c1": {".cairn/knowledge.jsonl": then}, "c2": {".cairn/knowledge.jsonl": then}},
		base:    "c1",
		changed: []gitx.FileChange{{Kind: gitx.ChangeDeleted, From: "client.go"}},
		def:     "main",
	}
	src := Sources{Git: g, Tree: mapTree{fstest.MapFS{}}, Dir: ".cairn", Log: records(now)}

	d, err := src.Diff("")
	if err != nil {
		t.Fatal(err)
	}
	if d.From != "HEAD" || d.To != "working tree" || d.Counts[knowledge.ChangeAdded] != 1 || d.Changes[0].Entry.Key != "fact-new" {
		t.Errorf("diff: %+v", d)
	}
	var b strings.Builder
	WriteDiff(&b, d)
	if !strings.Contains(b.String(), "knowledge change from HEAD to working tree: 1 added") {
		t.Errorf("diff printed:\n%s", b.String())
	}
	if _, err := src.Diff("nope..HEAD"); !errors.Is(err, ErrRevision) || err.Error() != "unknown revision nope" {
		t.Errorf("an unknown revision: %v", err)
	}

	c, err := src.Check("")
	if err != nil {
		t.Fatal(err)
	}
	if c.Base != "merge base of main and HEAD" || c.ChangedFiles != 1 || c.Stale != 1 || len(c.Entries) != 1 ||
		c.Entries[0].Entry.Key != "fact-old" || len(c.Added) != 1 || c.Added[0].Key != "fact-new" {
		t.Errorf("check: %+v", c)
	}
	if _, err := (Sources{Git: fakeGit{revs: map[string]string{"HEAD": "c1"}}, Log: records("")}).Check(""); !errors.Is(err, ErrNoDefaultBranch) {
		t.Errorf("no default branch: %v", err)
	}
}

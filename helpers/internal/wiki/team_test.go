package wiki_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
	"github.com/cairn-dev/cairn/helpers/internal/wiki"
)

func teamStore(t *testing.T) (*knowledge.Store, string) {
	t.Helper()
	root := t.TempDir()
	s := knowledge.Open(root)
	if err := s.Provision(); err != nil {
		t.Fatal(err)
	}
	var entries []knowledge.Entry
	for _, e := range []struct{ typ, content string }{
		{"decision", "Retries back off exponentially, capped at 30 s"},
		{"learned", "A retry loop must select on ctx.Done()"},
	} {
		entries = append(entries, knowledge.Entry{Type: e.typ, Content: e.content, TS: 1763770000, Author: "Ana", Key: knowledge.MakeKey(e.typ, e.content)})
	}
	if _, err := s.Insert(entries); err != nil {
		t.Fatal(err)
	}
	return s, root
}

// The team log compiles into .cairn/wiki, one source per entry type: an
// entry added changes its type's source alone; articles cite the entries
// without links no vault could resolve, and lint finds no error.
func TestTeamWiki(t *testing.T) {
	s, root := teamStore(t)
	w, err := wiki.OpenTeam(s, func(k string) string { return map[string]string{"HOME": t.TempDir()}[k] })
	if err != nil || w.Dir != filepath.Join(root, ".cairn", "wiki") {
		t.Fatalf("OpenTeam = %+v, %v", w, err)
	}
	before, err := w.Sources.List()
	if err != nil || len(before) != 2 || before["knowledge/decision.md"] == "" {
		t.Fatalf("List = %v, %v", before, err)
	}
	f := &fake{answers: []string{`{"articles":[{"path":"concepts/retry-backoff","title":"Retry backoff","summary":"Capped at 30 s.","body":"Retries back off exponentially, capped at 30 s."}]}`}}
	res, err := wiki.Compile(w.Dir, w.Sources, wiki.CompileOptions{Model: f.model(), Now: day})
	if err != nil || len(res.Sources) != 2 {
		t.Fatalf("Compile = %+v, %v", res, err)
	}
	if !strings.Contains(f.prompts[0], "A retry loop must select on ctx.Done()") && !strings.Contains(f.prompts[1], "A retry loop must select on ctx.Done()") {
		t.Error("no prompt carried the learned entries")
	}
	page, _ := os.ReadFile(filepath.Join(w.Dir, "concepts", "retry-backoff.md"))
	if !strings.Contains(string(page), "entries of `.cairn/knowledge.jsonl` (`cairn recall --type") || strings.Contains(string(page), "[[knowledge/") {
		t.Errorf("page:\n%s", page)
	}
	rep, err := wiki.Lint(w.Dir, w.Sources, wiki.LintOptions{StructuralOnly: true})
	if err != nil || rep.Errors() != 0 {
		t.Errorf("lint: %v\n%s", err, rep.Markdown())
	}

	e := knowledge.Entry{Type: "decision", Content: "Jitter every backoff", TS: 1763770001, Key: knowledge.MakeKey("decision", "Jitter every backoff")}
	if _, err := s.Insert([]knowledge.Entry{e}); err != nil {
		t.Fatal(err)
	}
	after, _ := wiki.TeamSources(s).List()
	if after["knowledge/decision.md"] == before["knowledge/decision.md"] || after["knowledge/learned.md"] != before["knowledge/learned.md"] {
		t.Errorf("hashes before %v, after %v", before, after)
	}
	pending, _ := wiki.Pending(w.Dir, wiki.TeamSources(s), false, "")
	if strings.Join(pending, " ") != "knowledge/decision.md" {
		t.Errorf("pending after a new decision: %v", pending)
	}
}

// A committed .cairn/wiki that is a symbolic link, or a link inside it,
// is never written through.
func TestTeamWikiLinks(t *testing.T) {
	s, root := teamStore(t)
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(root, ".cairn", "wiki")); err != nil {
		t.Skip("no symlinks here:", err)
	}
	if _, err := wiki.OpenTeam(s, func(string) string { return "" }); !errors.Is(err, wiki.ErrLink) {
		t.Errorf("a linked .cairn/wiki: %v", err)
	}
	os.Remove(filepath.Join(root, ".cairn", "wiki"))
	os.MkdirAll(filepath.Join(root, ".cairn", "wiki"), 0o755)
	os.Symlink(outside, filepath.Join(root, ".cairn", "wiki", "concepts"))
	f := &fake{answers: []string{`{"articles":[{"path":"concepts/x","title":"X","summary":"s","body":"Body."}]}`}}
	res, _ := wiki.Compile(filepath.Join(root, ".cairn", "wiki"), wiki.TeamSources(s), wiki.CompileOptions{Model: f.model(), Now: day})
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Fatalf("wrote through the link: %v", entries)
	}
	if len(res.Sources) == 0 || !strings.Contains(res.Sources[0].Skipped, "symbolic link") {
		t.Errorf("the refusal was not reported: %+v", res)
	}
}

// Nothing in .cairn makes cairn write outside the project: a page, the
// index, the log or the compile state that is a link to a file outside,
// or a page's directory that is one, is refused — by the compile, and by
// lint's fixes — and what it points at is unchanged.
func TestTeamWikiWritesNothingOutside(t *testing.T) {
	for _, link := range []string{"concepts/x.md", "index.md", "log.md", wiki.StateFile, "concepts"} {
		t.Run(link, func(t *testing.T) {
			s, root := teamStore(t)
			outside := t.TempDir()
			w := filepath.Join(root, ".cairn", "wiki")
			os.MkdirAll(w, 0o755)
			target := filepath.Join(outside, "target")
			if link == "concepts" {
				os.Mkdir(target, 0o755)
			} else {
				os.MkdirAll(filepath.Join(w, "concepts"), 0o755)
				os.WriteFile(target, []byte("untouched\n"), 0o644)
			}
			if err := os.Symlink(target, filepath.Join(w, filepath.FromSlash(link))); err != nil {
				t.Skip("no symlinks here:", err)
			}
			f := &fake{answers: []string{`{"articles":[{"path":"concepts/x","title":"X","summary":"s","body":"Body, see [[concepts/y]]."},` +
				`{"path":"concepts/y","title":"Y","summary":"s","body":"Body."}]}`}}
			wiki.Compile(w, wiki.TeamSources(s), wiki.CompileOptions{Model: f.model(), Now: day})
			wiki.Lint(w, wiki.TeamSources(s), wiki.LintOptions{Fix: true, StructuralOnly: true})
			if link != wiki.StateFile && len(f.prompts) == 0 {
				t.Error("the compile never ran: the test proves nothing")
			}
			if link == "concepts" {
				if entries, _ := os.ReadDir(target); len(entries) != 0 {
					t.Errorf("wrote into a linked directory: %v", entries)
				}
				return
			}
			if b, _ := os.ReadFile(target); string(b) != "untouched\n" {
				t.Errorf("wrote through the link: %q", b)
			}
		})
	}
}

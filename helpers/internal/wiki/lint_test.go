package wiki

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/helpers/internal/model"
)

// words is n filler words.
func words(n int) string {
	w := make([]string, n)
	for i := range w {
		w[i] = fmt.Sprintf("word%d", i)
	}
	return strings.Join(w, " ")
}

// art is a valid article titled title, compiled from daily/2026-11-23.md,
// with 210 filler words and then body.
func art(title, body string) string {
	return artFrom(title, "daily/2026-11-23.md", body)
}

// artFrom is a valid article compiled from source, 210 filler words, then body.
func artFrom(title, source, body string) string {
	return RenderFrontMatter(FrontMatter{Title: title, Sources: []string{source}, Created: "2026-11-23", Updated: "2026-11-23"}) +
		"# " + title + "\n\n" + words(210) + "\n\n" + body + "\n"
}

// writeWiki writes files (slash paths relative to a new directory) and
// returns the directory.
func writeWiki(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	writeFiles(t, dir, files)
	return dir
}

// writeFiles writes files under dir.
func writeFiles(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// hash is the source hash of data.
func hash(data string) string {
	sum := sha256.Sum256([]byte(data))
	return hex.EncodeToString(sum[:])[:16]
}

// mapSources are sources held in memory: names to contents.
type mapSources map[string]string

func (m mapSources) Has(target string) bool {
	_, ok := m[strings.TrimSuffix(target, ".md")+".md"]
	return ok
}

func (m mapSources) List() (map[string]string, error) {
	l := map[string]string{}
	for name, data := range m {
		l[name] = hash(data)
	}
	return l, nil
}

// failingSources cannot list.
type failingSources struct{}

func (failingSources) Has(string) bool                  { return false }
func (failingSources) List() (map[string]string, error) { return nil, errors.New("no log") }

// brief is a finding without its detail.
type brief struct{ Severity, Check, File string }

// briefs are the findings without details, in report order.
func briefs(r Report) []brief {
	var b []brief
	for _, f := range r.Findings {
		b = append(b, brief{f.Severity, f.Check, f.File})
	}
	return b
}

// detail is the detail of the one finding of check for file.
func detail(t *testing.T, r Report, check, file string) string {
	t.Helper()
	var found []string
	for _, f := range r.Findings {
		if f.Check == check && f.File == file {
			found = append(found, f.Detail)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%s findings for %s: %q, want one", check, file, found)
	}
	return found[0]
}

// TestLintDefects: a personal wiki with one instance of every defect
// yields exactly one finding for each, in severity, check, file order, with
// the right file: the stale ARTICLE (not its source), the article lacking
// the backlink, the never-compiled source.
func TestLintDefects(t *testing.T) {
	k := t.TempDir()
	daily := map[string]string{
		"daily/2026-11-23.md": "# Daily Log: 2026-11-23\n",
		"daily/2026-11-24.md": "# Daily Log: 2026-11-24\nchanged since the compile\n",
		"daily/2026-11-25.md": "# Daily Log: 2026-11-25\n",
		"daily/notes.md":      "not a daily log",
	}
	writeFiles(t, k, daily)
	w := filepath.Join(k, "knowledge")
	writeFiles(t, w, map[string]string{
		// A ring in which every link form resolves and every link has its
		// backlink; alpha also holds the broken links and the links in code.
		"concepts/alpha.md": art("Alpha", "[[concepts/beta]] [[gamma|G]] [[stale-one#Why]]\n"+
			"[[nope]] [[daily/2026-01-01]] [[daily/2026-11-23]]\n"+
			"```\n[[fenced-missing]]\n```\n`[[code-missing]]`"),
		"concepts/beta.md":  art("Beta", "[[concepts/alpha#Intro]] [[concepts/gamma#h|x]] [[short]]"),
		"concepts/gamma.md": art("Gamma", "[[alpha]] ![[beta]] [[connections/no-connects]]"),
		// The source changed since: this article is stale.
		"concepts/stale-one.md": artFrom("Stale", "daily/2026-11-24.md", "[[alpha]]"),
		// Under 200 words.
		"concepts/short.md": RenderFrontMatter(FrontMatter{Title: "Short", Sources: []string{"daily/2026-11-23.md"}, Created: "2026-11-23", Updated: "2026-11-23"}) +
			"Only a few words here, see [[beta]].\n",
		// Links only to itself and from index.md: an orphan; it links to
		// alpha, which does not link back.
		"concepts/lonely.md": art("Lonely", "[[lonely]] [[concepts/lonely#top]] [[concepts/alpha]]"),
		// Not a slug (and so an orphan).
		"concepts/Bad_Name.md": art("Bad", ""),
		// A connection without connects.
		"connections/no-connects.md": art("No connects", "[[gamma]]"),
		// Front matter never closed (and so an orphan).
		"qa/unclosed.md": "---\ntitle: \"Q\"\n" + words(250) + "\n",
		"index.md":       "| Article | Summary | Compiled from | Updated |\n|---|---|---|---|\n| [[concepts/lonely]] | s | daily/2026-11-23.md | 2026-11-23 |\n",
		"log.md":         "## [2026-11-23T10:00:00Z] compile | [[concepts/deleted-long-ago]]\n",
		"notes.txt":      "[[not-an-article]]",
	})
	if err := SaveState(w, State{Sources: map[string]SourceState{
		"daily/2026-11-23.md": {Hash: hash(daily["daily/2026-11-23.md"]), CompiledAt: time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC),
			Articles: []string{"concepts/alpha", "concepts/beta", "concepts/gamma"}},
		"daily/2026-11-24.md": {Hash: hash("# Daily Log: 2026-11-24\n"), CompiledAt: time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC),
			Articles: []string{"concepts/stale-one", "concepts/deleted"}},
	}}); err != nil {
		t.Fatal(err)
	}
	r, err := Lint(w, DailySources(k), LintOptions{StructuralOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	want := []brief{
		{"error", "broken_link", "concepts/alpha.md"},
		{"error", "broken_link", "concepts/alpha.md"},
		{"error", "invalid_article", "concepts/Bad_Name.md"},
		{"error", "invalid_article", "connections/no-connects.md"},
		{"error", "invalid_article", "qa/unclosed.md"},
		{"warning", "orphan_page", "concepts/Bad_Name.md"},
		{"warning", "orphan_page", "concepts/lonely.md"},
		{"warning", "orphan_page", "qa/unclosed.md"},
		{"warning", "orphan_source", "daily/2026-11-25.md"},
		{"warning", "stale_article", "concepts/stale-one.md"},
		{"suggestion", "missing_backlink", "concepts/alpha.md"},
		{"suggestion", "sparse_article", "concepts/short.md"},
	}
	if got := briefs(r); !reflect.DeepEqual(got, want) {
		t.Fatalf("findings:\n%s\nwant %v", r.Markdown(), want)
	}
	if r.Errors() != 5 {
		t.Errorf("Errors() = %d, want 5", r.Errors())
	}
	details := []string{r.Findings[0].Detail, r.Findings[1].Detail}
	if want := []string{
		"line 14: [[nope]] does not resolve (no such page)",
		"line 14: [[daily/2026-01-01]] does not resolve (no such source)",
	}; !reflect.DeepEqual(details, want) {
		t.Errorf("broken_link details %q, want %q", details, want)
	}
	for _, c := range []struct{ check, file, want string }{
		{"invalid_article", "concepts/Bad_Name.md", `file name "Bad_Name" is not a lowercase-hyphen slug`},
		{"invalid_article", "connections/no-connects.md", "missing front matter: connects"},
		{"invalid_article", "qa/unclosed.md", "front matter: no closing ---"},
		{"stale_article", "concepts/stale-one.md", "compiled from daily/2026-11-24.md, changed since"},
		{"missing_backlink", "concepts/alpha.md", "[[concepts/lonely]] links here; no link back"},
		{"sparse_article", "concepts/short.md", "7 words, under 200"},
		{"orphan_source", "daily/2026-11-25.md", "never compiled"},
	} {
		if got := detail(t, r, c.check, c.file); got != c.want {
			t.Errorf("%s %s: detail %q, want %q", c.check, c.file, got, c.want)
		}
	}
}

// TestLintNoFalsePositives: what the original reported wrongly, or missed,
// comes out right here, one wiki a case.
func TestLintNoFalsePositives(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		src   Sources
		state map[string]SourceState
		check string
		want  []string // the files with a finding of check
	}{
		{
			name: "alias, heading, heading and alias, embed forms resolve",
			files: map[string]string{
				"concepts/a.md": art("A", "[[concepts/b|alias]] [[concepts/b#heading]] [[concepts/b#h|a]] ![[concepts/b]] [[b#h|a]] [[#own heading]]"),
				"concepts/b.md": art("B", "[[concepts/a]]"),
			},
			check: CheckBrokenLink,
		},
		{
			name: "basename links resolve anywhere, also to index and non-articles by path",
			files: map[string]string{
				"concepts/a.md":    art("A", "[[b]] [[q]] [[index]] [[notes/n]] [[img.png]] [[connections/b.md]] [[Connections/B]]"),
				"qa/q.md":          art("Q", "[[a]]"),
				"connections/b.md": art("B", "[[a]]"),
				"index.md":         "",
				"notes/n.md":       "",
				"img.png":          "",
			},
			check: CheckBrokenLink,
		},
		{
			name: "an ambiguous basename and a path that is not there are broken",
			files: map[string]string{
				"concepts/a.md":    art("A", "[[b]] [[notes/b]] [[../a]] [[concepts/sub/b]]"),
				"concepts/b.md":    art("B", "[[a]]"),
				"connections/b.md": art("B", "[[a]]"),
			},
			check: CheckBrokenLink,
			want:  []string{"concepts/a.md", "concepts/a.md", "concepts/a.md", "concepts/a.md"},
		},
		{
			name: "links in code fences and code spans are ignored",
			files: map[string]string{
				"concepts/a.md": art("A", "```\n[[missing]]\n```\n~~~md\n[[missing-too]]\n~~~\n`[[missing-three]]` [[b]]"),
				"concepts/b.md": art("B", "[[a]]"),
			},
			check: CheckBrokenLink,
		},
		{
			name: "a link in code does not save a page from orphan",
			files: map[string]string{
				"concepts/a.md": art("A", "```\n[[b]]\n```\n[[c]]"),
				"concepts/b.md": art("B", "[[a]]"),
				"concepts/c.md": art("C", "[[a]]"),
			},
			check: CheckOrphanPage,
			want:  []string{"concepts/b.md"},
		},
		{
			name: "a self-link does not save a page from orphan",
			files: map[string]string{
				"concepts/a.md": art("A", "[[a]] [[concepts/a#x]] [[#x]]"),
			},
			check: CheckOrphanPage,
			want:  []string{"concepts/a.md"},
		},
		{
			name: "index.md links do not count as inbound",
			files: map[string]string{
				"concepts/a.md": art("A", ""),
				"index.md":      "| [[concepts/a]] | s |\n",
			},
			check: CheckOrphanPage,
			want:  []string{"concepts/a.md"},
		},
		{
			name: "inbound links count in every form",
			files: map[string]string{
				"concepts/a.md": art("A", "[[b|alias]] [[concepts/c#h]] [[D]]"),
				"concepts/b.md": art("B", "[[concepts/a#x|y]]"),
				"concepts/c.md": art("C", ""),
				"qa/d.md":       art("D", ""),
			},
			check: CheckOrphanPage,
		},
		{
			name: "index.md's broken links are reported, log.md's are not",
			files: map[string]string{
				"concepts/a.md": art("A", "[[a]]"),
				"index.md":      "| [[concepts/a]] | [[concepts/gone]] |\n",
				"log.md":        "[[concepts/gone]]\n",
			},
			check: CheckBrokenLink,
			want:  []string{"index.md"},
		},
		{
			name: "a changed source names the stale article, each once",
			files: map[string]string{
				"concepts/a.md": artFrom("A", "daily/2026-11-24.md", "[[b]]"),
				"concepts/b.md": artFrom("B", "daily/2026-11-25", "[[a]]"),
				"concepts/c.md": art("C", ""),
			},
			src: mapSources{"daily/2026-11-24.md": "new", "daily/2026-11-25.md": "new", "daily/2026-11-23.md": "same"},
			state: map[string]SourceState{
				"daily/2026-11-24.md": {Hash: hash("old"), Articles: []string{"concepts/a", "concepts/b"}},
				"daily/2026-11-25.md": {Hash: hash("old")},
				"daily/2026-11-23.md": {Hash: hash("same"), Articles: []string{"concepts/c"}},
				"daily/2026-11-22.md": {Hash: hash("deleted since"), Articles: []string{"concepts/c"}},
			},
			check: CheckStaleArticle,
			want:  []string{"concepts/a.md", "concepts/b.md"},
		},
		{
			name: "a source compiled into nothing is not an orphan",
			files: map[string]string{
				"concepts/a.md": art("A", ""),
			},
			src:   mapSources{"daily/2026-11-23.md": "x", "daily/2026-11-24.md": "y"},
			state: map[string]SourceState{"daily/2026-11-23.md": {Hash: hash("x")}},
			check: CheckOrphanSource,
			want:  []string{"daily/2026-11-24.md"},
		},
		{
			name: "a backlink in any form counts",
			files: map[string]string{
				"concepts/a.md": art("A", "[[b]] [[concepts/c]]"),
				"concepts/b.md": art("B", "[[concepts/a#h|alias]]"),
				"concepts/c.md": art("C", "![[a]]"),
			},
			check: CheckMissingBacklink,
		},
		{
			name: "sparse counts the body's words only",
			files: map[string]string{
				"concepts/a.md": RenderFrontMatter(FrontMatter{Title: words(300), Sources: []string{"daily/2026-11-23.md"}, Created: "2026-11-23", Updated: "2026-11-23"}) + words(199),
				"concepts/b.md": RenderFrontMatter(FrontMatter{Title: "B", Sources: []string{"daily/2026-11-23.md"}, Created: "2026-11-23", Updated: "2026-11-23"}) + words(200),
			},
			check: CheckSparseArticle,
			want:  []string{"concepts/a.md"},
		},
		{
			name: "required front matter per kind",
			files: map[string]string{
				"concepts/a.md":    "---\ntitle: \"A\"\ncreated: 2026-11-23\nupdated: 2026-11-23\n---\n",
				"connections/b.md": "---\ntitle: \"B\"\nsources: [\"s\"]\ncreated: 2026-11-23\nupdated: 2026-11-23\nconnects: [\"concepts/a\"]\n---\n",
				"qa/c.md":          "---\ntitle: \"C\"\nsources: [\"s\"]\ncreated: 2026-11-23\nupdated: 2026-11-23\n---\n",
				"qa/d.md":          "no front matter\n",
			},
			check: CheckInvalidArticle,
			want:  []string{"concepts/a.md", "qa/d.md"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := writeWiki(t, tt.files)
			if tt.state != nil {
				if err := SaveState(w, State{Sources: tt.state}); err != nil {
					t.Fatal(err)
				}
			}
			src := tt.src
			if src == nil {
				src = mapSources{}
			}
			r, err := Lint(w, src, LintOptions{})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range r.Findings {
				if f.Check == tt.check {
					got = append(got, f.File)
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("%s on %v, want %v\n%s", tt.check, got, tt.want, r.Markdown())
			}
		})
	}
}

// TestLintFix: Fix adds every missing backlink under ## Related, and a
// second run finds none and changes nothing.
func TestLintFix(t *testing.T) {
	w := writeWiki(t, map[string]string{
		"concepts/a.md": art("A", "[[b]] [[c]]"),
		"concepts/d.md": art("D", "[[b]] [[c]]"),
		"concepts/b.md": art("B", "## Related\n\n- [[e]]\n\n## Notes\n\nnote"),
		"concepts/c.md": strings.ReplaceAll(art("C", ""), "\n", "\r\n"),
		"concepts/e.md": art("E", "[[b]]"),
	})
	r, err := Lint(w, nil, LintOptions{Fix: true})
	if err != nil {
		t.Fatal(err)
	}
	var fixed []string
	for _, f := range r.Findings {
		if f.Check == CheckMissingBacklink {
			fixed = append(fixed, f.File+": "+f.Detail)
		}
	}
	want := []string{
		"concepts/b.md: fixed: added [[concepts/a]] under ## Related ([[concepts/a]] links here)",
		"concepts/b.md: fixed: added [[concepts/d]] under ## Related ([[concepts/d]] links here)",
		"concepts/c.md: fixed: added [[concepts/a]] under ## Related ([[concepts/a]] links here)",
		"concepts/c.md: fixed: added [[concepts/d]] under ## Related ([[concepts/d]] links here)",
	}
	if !slices.Equal(fixed, want) {
		t.Fatalf("fixes %q, want %q", fixed, want)
	}
	b := read(t, w, "concepts/b.md")
	if !strings.HasSuffix(b, "## Related\n\n- [[e]]\n- [[concepts/a]]\n- [[concepts/d]]\n\n## Notes\n\nnote\n") {
		t.Errorf("b.md ends %q", b[len(b)-80:])
	}
	c := read(t, w, "concepts/c.md")
	if !strings.HasSuffix(c, "word209\r\n\r\n## Related\r\n\r\n- [[concepts/a]]\r\n- [[concepts/d]]\r\n") {
		t.Errorf("c.md ends %q", c[len(c)-80:])
	}
	before := snapshot(t, w)
	r, err = Lint(w, nil, LintOptions{Fix: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range r.Findings {
		if f.Check == CheckMissingBacklink {
			t.Errorf("after the fix: %+v", f)
		}
	}
	if after := snapshot(t, w); !reflect.DeepEqual(after, before) {
		t.Errorf("second fix changed the wiki")
	}
}

// read is the contents of a file of wiki w.
func read(t *testing.T, w, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(w, filepath.FromSlash(name)))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// snapshot is every file under dir with its contents.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	m := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		m[p] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestWithRelated: links go at the end of the Related section, which is
// made at the end when missing; text that would not read them as links is
// refused.
func TestWithRelated(t *testing.T) {
	tests := []struct {
		name, text, target, want, wantErr string
	}{
		{"no section", "body\n\n\n", "x", "body\n\n## Related\n\n- [[x]]\n", ""},
		{"no newline at the end", "body", "x", "body\n\n## Related\n\n- [[x]]\n", ""},
		{"empty section at the end", "body\n\n## Related\n", "x", "body\n\n## Related\n\n- [[x]]\n", ""},
		{"section at the end", "body\n## Related\n- [[a]]", "x", "body\n## Related\n- [[a]]\n- [[x]]\n", ""},
		{"section before another", "## Related\n- [[a]]\n## Next\n", "x", "## Related\n- [[a]]\n- [[x]]\n\n## Next\n", ""},
		{"a deeper heading stays in the section", "## Related\n### Sub\n- [[a]]\n\n", "x", "## Related\n### Sub\n- [[a]]\n- [[x]]\n\n", ""},
		{"heading in a fence is not the section", "```\n## Related\n```\n", "x", "```\n## Related\n```\n\n## Related\n\n- [[x]]\n", ""},
		{"a backtick in the target", "## Related\n- [[a]]\n", "we`ird", "## Related\n- [[a]]\n- [[we`ird]]\n", ""},
		{"ends in an open fence", "```\ncode\n", "x", "", "ends inside a code fence"},
		{"would close an open code span", "## Related\n- `a\n", "we`ird", "", "[[we`ird]] would not be read as a link there"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := withRelated(tt.text, []string{tt.target})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("withRelated = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

// TestLintFixRefused: an article that ends in an open fence is not touched,
// and the finding says why.
func TestLintFixRefused(t *testing.T) {
	w := writeWiki(t, map[string]string{
		"concepts/a.md": art("A", "[[b]]"),
		"concepts/b.md": art("B", "```\nopen"),
	})
	before := read(t, w, "concepts/b.md")
	r, err := Lint(w, nil, LintOptions{Fix: true})
	if err != nil {
		t.Fatal(err)
	}
	if d := detail(t, r, CheckMissingBacklink, "concepts/b.md"); d != "[[concepts/a]] links here; no link back (not fixed: ends inside a code fence)" {
		t.Errorf("detail %q", d)
	}
	if read(t, w, "concepts/b.md") != before {
		t.Error("b.md changed")
	}
}

// TestLintUnreadable: a symlinked article, an oversized one and a
// symlinked article directory are invalid, not read, and still resolve as
// link targets; the lint does not follow them.
func TestLintUnreadable(t *testing.T) {
	outside := writeWiki(t, map[string]string{"x.md": art("X", "[[a]]"), "qa/y.md": art("Y", "")})
	w := writeWiki(t, map[string]string{
		"concepts/a.md":   art("A", "[[link]] [[big]]"),
		"concepts/big.md": strings.Repeat("x ", MaxFileSize),
	})
	if !symlink(t, filepath.Join(outside, "x.md"), filepath.Join(w, "concepts", "link.md")) ||
		!symlink(t, filepath.Join(outside, "qa"), filepath.Join(w, "qa")) {
		t.Skip("symlinks not available")
	}
	r, err := Lint(w, nil, LintOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := []brief{
		{"error", "invalid_article", "concepts/big.md"},
		{"error", "invalid_article", "concepts/link.md"},
		{"error", "invalid_article", "qa"},
		{"warning", "orphan_page", "concepts/a.md"},
	}
	if got := briefs(r); !reflect.DeepEqual(got, want) {
		t.Fatalf("findings %v, want %v\n%s", got, want, r.Markdown())
	}
}

// TestLintContradictions: the callback gets every article read unless
// StructuralOnly; its findings are contradiction warnings, its failure a
// contradiction error.
func TestLintContradictions(t *testing.T) {
	w := writeWiki(t, map[string]string{
		"concepts/a.md": art("A", "[[b]]"),
		"concepts/b.md": art("B", "[[a]]"),
	})
	var seen []string
	check := func(pages []Page) ([]Finding, error) {
		seen = nil
		for _, p := range pages {
			seen = append(seen, p.Path)
		}
		return []Finding{{Check: "x", Severity: "error", File: "concepts/b.md", Detail: "says 3 retries; a says 5"}}, nil
	}
	tests := []struct {
		name  string
		opts  LintOptions
		calls bool
		want  []Finding
	}{
		{"runs", LintOptions{Contradictions: check}, true,
			[]Finding{{"contradiction", "warning", "concepts/b.md", "says 3 retries; a says 5"}}},
		{"structural only", LintOptions{StructuralOnly: true, Contradictions: check}, false, []Finding{}},
		{"nil", LintOptions{}, false, []Finding{}},
		{"fails", LintOptions{Contradictions: func([]Page) ([]Finding, error) { return nil, errors.New("model down\nretry") }}, false,
			[]Finding{{"contradiction", "error", "", "check failed: model down; retry"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			seen = nil
			r, err := Lint(w, nil, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if tt.calls != (seen != nil) || tt.calls && !slices.Equal(seen, []string{"concepts/a", "concepts/b"}) {
				t.Errorf("callback saw %v", seen)
			}
			if !reflect.DeepEqual(r.Findings, tt.want) {
				t.Errorf("findings %+v, want %+v", r.Findings, tt.want)
			}
		})
	}
}

// TestLintErrors: a wiki that is not a directory, a corrupt state and
// sources that cannot list stop the lint with an error.
func TestLintErrors(t *testing.T) {
	w := writeWiki(t, map[string]string{"file": "", "bad/" + StateFile: "{", "ok/concepts/a.md": art("A", "")})
	tests := []struct {
		name, w string
		src     Sources
		want    string
	}{
		{"missing", filepath.Join(w, "missing"), nil, "lint: "},
		{"not a directory", filepath.Join(w, "file"), nil, "not a directory"},
		{"corrupt state", filepath.Join(w, "bad"), nil, StateFile},
		{"sources fail", filepath.Join(w, "ok"), failingSources{}, "lint: list sources: no log"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := Lint(tt.w, tt.src, LintOptions{}); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want %q", err, tt.want)
			}
		})
	}
}

// TestState: the state round-trips in the documented JSON, a missing state
// is empty, and saving leaves no temporary file.
func TestState(t *testing.T) {
	w := t.TempDir()
	s, err := LoadState(w)
	if err != nil || s.Sources == nil || len(s.Sources) != 0 {
		t.Fatalf("missing state = %+v, %v", s, err)
	}
	want := State{Sources: map[string]SourceState{"daily/2026-11-24.md": {
		Hash: "0123456789abcdef", CompiledAt: time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC), Articles: []string{"concepts/x"},
	}}}
	for range 2 {
		if err := SaveState(w, want); err != nil {
			t.Fatal(err)
		}
	}
	var raw map[string]map[string]map[string]any
	if err := json.Unmarshal([]byte(read(t, w, StateFile)), &raw); err != nil {
		t.Fatal(err)
	}
	if rec := raw["sources"]["daily/2026-11-24.md"]; rec["hash"] != "0123456789abcdef" || rec["compiled_at"] != "2026-11-24T10:00:00Z" ||
		!reflect.DeepEqual(rec["articles"], []any{"concepts/x"}) {
		t.Errorf("state file %v", raw)
	}
	got, err := LoadState(w)
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("LoadState = %+v, %v; want %+v", got, err, want)
	}
	entries, _ := os.ReadDir(w)
	if len(entries) != 1 {
		t.Errorf("files after saving: %v", entries)
	}
	if err := os.Mkdir(filepath.Join(w, "blocked"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(w, "blocked", StateFile), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := SaveState(filepath.Join(w, "blocked"), want); err == nil {
		t.Error("SaveState over a directory succeeded")
	}
}

// TestDailySources: the daily logs, and only they, are sources, hashed as
// the first 16 hex digits of their SHA-256.
func TestDailySources(t *testing.T) {
	k := writeWiki(t, map[string]string{
		"daily/2026-11-24.md":     "log",
		"daily/2026-11-25.md":     "other log",
		"daily/notes.md":          "not a log",
		"daily/2026-1-1.md":       "not a log",
		"daily/2026-11-26.md.bak": "",
		"2026-11-27.md":           "not in daily/",
	})
	if err := os.Mkdir(filepath.Join(k, "daily", "2026-11-28.md"), 0o755); err != nil {
		t.Fatal(err)
	}
	symlink(t, filepath.Join(k, "daily", "2026-11-24.md"), filepath.Join(k, "daily", "2026-11-29.md"))
	src := DailySources(k)
	list, err := src.List()
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]string{"daily/2026-11-24.md": hash("log"), "daily/2026-11-25.md": hash("other log")}; !reflect.DeepEqual(list, want) {
		t.Errorf("List = %v, want %v", list, want)
	}
	for target, want := range map[string]bool{
		"daily/2026-11-24": true, "daily/2026-11-24.md": true, "daily/2026-11-25": true,
		"daily/2026-11-23": false, "daily/notes": false, "daily/2026-11-28": false, "daily/2026-11-29": false,
		"2026-11-27": false, "daily/../daily/2026-11-24": false, "concepts/x": false,
	} {
		if got := src.Has(target); got != want {
			t.Errorf("Has(%q) = %v, want %v", target, got, want)
		}
	}
	if list, err := DailySources(t.TempDir()).List(); err != nil || len(list) != 0 {
		t.Errorf("no daily directory: %v, %v", list, err)
	}
}

// TestMarkdown: totals, then the three sections in order, a finding a line,
// a file in a code span that fits it, and an empty section said so.
func TestMarkdown(t *testing.T) {
	r := Report{Findings: []Finding{
		{"broken_link", "error", "concepts/a.md", "line 3: [[x]] does not resolve (no such page)"},
		{"contradiction", "error", "", "check failed: down"},
		{"missing_backlink", "suggestion", "odd`name.md", "two\nlines"},
	}}
	want := "# Wiki lint\n\n3 findings: 2 errors, 0 warnings, 1 suggestion.\n\n" +
		"## Errors\n\n- `concepts/a.md`: line 3: [[x]] does not resolve (no such page)\n- check failed: down\n\n" +
		"## Warnings\n\nNone.\n\n" +
		"## Suggestions\n\n- `` odd`name.md ``: two; lines\n"
	if got := r.Markdown(); got != want {
		t.Errorf("Markdown =\n%s\nwant\n%s", got, want)
	}
	if r.Errors() != 2 {
		t.Errorf("Errors() = %d", r.Errors())
	}
	empty := Report{Findings: []Finding{}}
	if got := empty.Markdown(); got != "# Wiki lint\n\n0 findings: 0 errors, 0 warnings, 0 suggestions.\n\n## Errors\n\nNone.\n\n## Warnings\n\nNone.\n\n## Suggestions\n\nNone.\n" {
		t.Errorf("empty report =\n%s", got)
	}
	if data, _ := json.Marshal(empty); string(data) != `{"findings":[]}` {
		t.Errorf("empty report JSON %s", data)
	}
	data, err := json.Marshal(r.Findings[0])
	if err != nil || string(data) != `{"check":"broken_link","severity":"error","file":"concepts/a.md","detail":"line 3: [[x]] does not resolve (no such page)"}` {
		t.Errorf("JSON %s, %v", data, err)
	}
}

// benchWiki writes a wiki of n articles, each about 250 words and 5 links
// (in every form), with defects: a broken link every 97th, a sparse article
// every 50th, an orphan every 200th, a changed source every 10th day.
func benchWiki(b *testing.B, n int) (w string, src Sources) {
	k := b.TempDir()
	w = filepath.Join(k, "knowledge")
	files := map[string]string{}
	state := State{Sources: map[string]SourceState{}}
	for d := range 100 {
		name := fmt.Sprintf("daily/2026-%02d-%02d.md", 1+d/28, 1+d%28)
		files[name] = "log " + name
		h := hash(files[name])
		if d%10 == 0 {
			h = hash("before")
		}
		state.Sources[name] = SourceState{Hash: h, Articles: []string{fmt.Sprintf("concepts/topic-%04d", d)}}
	}
	writeFiles(b, k, files)
	arts := map[string]string{}
	var index strings.Builder
	for i := range n {
		slug := fmt.Sprintf("topic-%04d", i)
		var body strings.Builder
		forms := []string{"[[concepts/%s]]", "[[%s|alias]]", "[[concepts/%s#Heading]]", "[[%s#h|a]]", "![[%s]]"}
		for j, form := range forms {
			target := (i + j + 1) % n
			if target%200 == 0 { // every 200th is an orphan: nobody links to it
				target = (target + 1) % n
			}
			fmt.Fprintf(&body, form+" ", fmt.Sprintf("topic-%04d", target))
			body.WriteString(words(45) + "\n\n")
		}
		if i%97 == 0 {
			body.WriteString("[[missing-page]]\n")
		}
		if i%50 == 0 {
			body.Reset()
			body.WriteString("short [[topic-0001]]\n")
		}
		body.WriteString("```\n[[in-code]]\n```\n")
		src := fmt.Sprintf("daily/2026-%02d-%02d.md", 1+(i%100)/28, 1+(i%100)%28)
		arts["concepts/"+slug+".md"] = RenderFrontMatter(FrontMatter{Title: slug, Sources: []string{src}, Created: "2026-11-23", Updated: "2026-11-23"}) + body.String()
		fmt.Fprintf(&index, "| [[concepts/%s]] | s | %s | 2026-11-23 |\n", slug, src)
	}
	arts["index.md"] = index.String()
	writeFiles(b, w, arts)
	if err := SaveState(w, state); err != nil {
		b.Fatal(err)
	}
	return w, DailySources(k)
}

// BenchmarkLint2000: the structural lint of a 2,000-article wiki.
func BenchmarkLint2000(b *testing.B) {
	w, src := benchWiki(b, 2000)
	r, err := Lint(w, src, LintOptions{StructuralOnly: true})
	if err != nil {
		b.Fatal(err)
	}
	counts := map[string]int{}
	for _, f := range r.Findings {
		counts[f.Check]++
	}
	for _, c := range []string{CheckBrokenLink, CheckOrphanPage, CheckStaleArticle, CheckMissingBacklink, CheckSparseArticle} {
		if counts[c] == 0 {
			b.Fatalf("no %s in the generated wiki: %v", c, counts)
		}
	}
	for b.Loop() {
		if _, err := Lint(w, src, LintOptions{StructuralOnly: true}); err != nil {
			b.Fatal(err)
		}
	}
}

// Issue 24: a hostile 44 MB committed .compile-state.json cost `wiki lint
// --team` 9 s and 685 MB, and one with wrong JSON types stopped it with
// no hint. The state is capped, and either error says to delete it and
// compile again; an index.md over its cap is an error of the lint that
// says the same, and a compile with nothing to do writes it again.
func TestStateAndIndexBounded(t *testing.T) {
	team := filepath.Join(t.TempDir(), ".cairn", "wiki")
	big := `{"sources": {"x": {"hash": "` + strings.Repeat("a", maxStateSize) + `"}}}`
	for _, tc := range []struct {
		name, state, want string
	}{
		{"too large", big, "is over 4 MiB; delete it and run `cairn wiki compile --team` to rebuild it"},
		{"sources a list", `{"sources": []}`, "is not a compile state (json: cannot unmarshal array"},
		{"articles a string", `{"sources": {"x": {"articles": "concepts/a"}}}`, "delete it and run `cairn wiki compile --team` to rebuild it"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			writeFiles(t, team, map[string]string{StateFile: tc.state, "concepts/a.md": art("A", "")})
			_, err := Lint(team, nil, LintOptions{StructuralOnly: true})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("lint: %v; want %q", err, tc.want)
			}
		})
	}
	personal := writeWiki(t, map[string]string{"concepts/a.md": art("A", ""), "index.md": strings.Repeat("| [[concepts/a]] | A. | x | y |\n", MaxFileSize/30+1)})
	rep, err := Lint(personal, nil, LintOptions{StructuralOnly: true})
	if err != nil || !strings.Contains(rep.Markdown(), "index.md") || !strings.Contains(rep.Markdown(), "delete it and run `cairn wiki compile` to write it again") {
		t.Errorf("lint of a wiki with an index over its cap: %v\n%s", err, rep.Markdown())
	}
	os.Remove(filepath.Join(personal, "index.md"))
	if _, err := Compile(personal, DailySources(t.TempDir()), CompileOptions{Model: func(context.Context, string) (model.Reply, error) {
		t.Fatal("the model was called")
		return model.Reply{}, nil
	}}); err != nil {
		t.Fatal(err)
	}
	if rows, err := ReadIndex(personal); err != nil || len(rows) != 1 || rows[0].Path != "concepts/a" {
		t.Errorf("index after compile: %v, %v", rows, err)
	}
}

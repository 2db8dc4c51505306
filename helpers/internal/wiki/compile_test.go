package wiki_test

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
	"github.com/cairn-dev/cairn/helpers/internal/model"
	"github.com/cairn-dev/cairn/helpers/internal/wiki"
)

const dailyLog = `# Daily Log: 2026-11-24

### Session (09:00) - Fix the hanging retry loop

**Context:** The retry loop in client.go hung on connection resets.

**Decisions Made:**
- Retry with exponential backoff capped at 30 s (why: the server rate-limits bursts)

**Lessons Learned:**
- Retry loops must watch the context: a loop that never selects on ctx.Done() hangs.
`

// edits is the fake model's answer: two good articles, a connection, and
// the invalid ones the compiler must refuse or repair.
const edits = "Here are the edits:\n```json\n" + `{"articles": [
 {"path": "concepts/retry-backoff", "title": "Retry backoff", "tags": ["Retry"], "summary": "Exponential backoff capped at 30 s.", "body": "Retries back off exponentially, capped at 30 s, because the server rate-limits bursts. See [[concepts/context-cancellation]] and [[concepts/nothing-here|a missing page]]."},
 {"path": "concepts/Context Cancellation", "title": "Context cancellation", "body": "A retry loop must select on ctx.Done(). It pairs with [[concepts/retry-backoff]]."},
 {"path": "connections/backoff-and-cancellation", "title": "Backoff and cancellation", "connects": ["concepts/retry-backoff", "concepts/context-cancellation"], "summary": "Why both matter.", "body": "A capped backoff and a cancellable loop together make retries safe: [[concepts/retry-backoff]], [[concepts/context-cancellation]]."},
 {"path": "../../etc/passwd", "title": "evil", "body": "x"},
 {"path": "notes/elsewhere", "title": "elsewhere", "body": "x"},
 {"path": "concepts/untitled", "title": "", "body": "no title"}
]}` + "\n```"

type fake struct {
	answers []string
	prompts []string
}

func (f *fake) model() model.Func {
	return func(_ context.Context, prompt string) (model.Reply, error) {
		f.prompts = append(f.prompts, prompt)
		a := f.answers[0]
		if len(f.answers) > 1 {
			f.answers = f.answers[1:]
		}
		return model.Reply{Text: a, CostUSD: 0.01, Costed: true}, nil
	}
}

func knowledgeDir(t *testing.T) (know, w string) {
	t.Helper()
	know = t.TempDir()
	os.MkdirAll(filepath.Join(know, "daily"), 0o755)
	if err := os.WriteFile(filepath.Join(know, "daily", "2026-11-24.md"), []byte(dailyLog), 0o644); err != nil {
		t.Fatal(err)
	}
	return know, filepath.Join(know, "wiki")
}

var day = func() time.Time { return time.Date(2026, 11, 24, 18, 0, 0, 0, time.UTC) }

// A daily log compiles into the articles the model's structured edits
// describe, each validated: a path outside the wiki or outside its
// article directories and a missing title are refused, an uppercase slug
// and a link to nothing are repaired, a missing summary is taken from the
// body; every article links back to its source; the index, the log and
// the state follow; lint finds no error in the result.
func TestCompile(t *testing.T) {
	know, w := knowledgeDir(t)
	src := wiki.DailySources(know)
	f := &fake{answers: []string{edits}}
	res, err := wiki.Compile(w, src, wiki.CompileOptions{Model: f.model(), Now: day})
	if err != nil || len(res.Sources) != 1 {
		t.Fatalf("Compile = %+v, %v", res, err)
	}
	sr := res.Sources[0]
	if strings.Join(sr.Created, " ") != "concepts/retry-backoff concepts/context-cancellation connections/backoff-and-cancellation" {
		t.Errorf("created %v", sr.Created)
	}
	refused := strings.Join(sr.Refused, "\n")
	for _, want := range []string{`"../../etc/passwd": a path outside the wiki`, `"notes/elsewhere": not under concepts/`, "concepts/untitled: no title"} {
		if !strings.Contains(refused, want) {
			t.Errorf("refused lacks %q:\n%s", want, refused)
		}
	}
	repaired := strings.Join(sr.Repaired, "\n")
	for _, want := range []string{`"concepts/Context Cancellation": path written as concepts/context-cancellation`,
		"concepts/retry-backoff: unlinked [[concepts/nothing-here]]", "concepts/context-cancellation: no summary"} {
		if !strings.Contains(repaired, want) {
			t.Errorf("repaired lacks %q:\n%s", want, repaired)
		}
	}
	if _, err := os.Stat(filepath.Join(know, "etc")); err == nil {
		t.Fatal("a path outside the wiki was written")
	}
	page, err := os.ReadFile(filepath.Join(w, "concepts", "retry-backoff.md"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := wiki.ParsePage("concepts/retry-backoff", page)
	if err != nil || p.Front.Title != "Retry backoff" || p.Front.Created != "2026-11-24" || p.Front.Sources[0] != "daily/2026-11-24.md" || p.Front.Tags[0] != "retry" {
		t.Errorf("front matter %+v, %v", p.Front, err)
	}
	if !strings.Contains(p.Body, "## Sources\n\n- [[daily/2026-11-24]]") || strings.Contains(p.Body, "[[concepts/nothing-here") || !strings.Contains(p.Body, "a missing page") {
		t.Errorf("body:\n%s", p.Body)
	}
	index, _ := os.ReadFile(filepath.Join(w, "index.md"))
	if !strings.Contains(string(index), "| [[concepts/context-cancellation]] | A retry loop must select on ctx.Done(). | [[daily/2026-11-24]] | 2026-11-24 |") ||
		strings.Index(string(index), "concepts/context") > strings.Index(string(index), "concepts/retry") {
		t.Errorf("index:\n%s", index)
	}
	log, _ := os.ReadFile(filepath.Join(w, "log.md"))
	for _, want := range []string{"## [2026-11-24T18:00:00Z] compile | daily/2026-11-24.md", "- created [[concepts/retry-backoff]]", "- refused", "- cost $0.0100"} {
		if !strings.Contains(string(log), want) {
			t.Errorf("log lacks %q:\n%s", want, log)
		}
	}
	rep, err := wiki.Lint(w, src, wiki.LintOptions{StructuralOnly: true})
	if err != nil || rep.Errors() != 0 {
		t.Errorf("lint of the compiled wiki: %v\n%s", err, rep.Markdown())
	}
	for _, f := range rep.Findings {
		if f.Check == "broken_link" || f.Check == "stale_article" || f.Check == "orphan_source" {
			t.Errorf("lint: %+v", f)
		}
	}

	// Unchanged: nothing to do, no model call.
	res, err = wiki.Compile(w, src, wiki.CompileOptions{Model: f.model(), Now: day})
	if err != nil || len(res.Sources) != 0 || len(f.prompts) != 1 {
		t.Fatalf("a second compile of an unchanged source: %+v, %v, %d calls", res, err, len(f.prompts))
	}
	// Changed: the prompt carries the articles it may touch, and only its
	// pages change.
	os.WriteFile(filepath.Join(know, "daily", "2026-11-24.md"), []byte(dailyLog+"\n- Jitter the backoff of the retry loop.\n"), 0o644)
	f.answers = []string{`{"articles":[{"path":"concepts/retry-backoff","title":"Retry backoff","summary":"Capped, jittered backoff.","body":"Retries back off exponentially with jitter, capped at 30 s."}]}`}
	before, _ := os.ReadFile(filepath.Join(w, "concepts", "context-cancellation.md"))
	res, err = wiki.Compile(w, src, wiki.CompileOptions{Model: f.model(), Now: day})
	if err != nil || len(res.Sources) != 1 || strings.Join(res.Sources[0].Updated, " ") != "concepts/retry-backoff" {
		t.Fatalf("changed source: %+v, %v", res, err)
	}
	if !strings.Contains(f.prompts[1], "### concepts/retry-backoff") || !strings.Contains(f.prompts[1], "Jitter the backoff") {
		t.Errorf("the second prompt lacks the article it may touch or the source:\n%s", f.prompts[1])
	}
	after, _ := os.ReadFile(filepath.Join(w, "concepts", "context-cancellation.md"))
	if string(before) != string(after) {
		t.Error("an article the change did not touch was rewritten")
	}
	p2, _ := os.ReadFile(filepath.Join(w, "concepts", "retry-backoff.md"))
	if pp, _ := wiki.ParsePage("concepts/retry-backoff", p2); pp.Front.Created != "2026-11-24" || !strings.Contains(pp.Body, "jitter") {
		t.Errorf("updated article: %+v\n%s", pp.Front, pp.Body)
	}
}

// A dry run lists what would be compiled and calls no model.
func TestCompileDryRun(t *testing.T) {
	know, w := knowledgeDir(t)
	res, err := wiki.Compile(w, wiki.DailySources(know), wiki.CompileOptions{DryRun: true})
	if err != nil || len(res.Sources) != 1 || res.Sources[0].Source != "daily/2026-11-24.md" {
		t.Fatalf("dry run: %+v, %v", res, err)
	}
	if _, err := os.Stat(w); err == nil {
		t.Error("a dry run wrote the wiki")
	}
}

// The prompt carries only the articles the source may touch, so its size
// does not grow with the wiki.
func TestCompilePromptBounded(t *testing.T) {
	var pages []wiki.Page
	for i := 0; i < 2000; i++ {
		pages = append(pages, wiki.Page{Path: "concepts/topic-" + strings.Repeat("x", i%7) + string(rune('a'+i%26)),
			Front: wiki.FrontMatter{Title: "Unrelated topic"}, Body: strings.Repeat("filler words about gardening ", 80)})
	}
	pages = append(pages, wiki.Page{Path: "concepts/retry-backoff", Front: wiki.FrontMatter{Title: "Retry backoff"}, Body: "retry backoff capped"})
	prompt := wiki.CompilePrompt("daily/2026-11-24.md", dailyLog, pages, map[string]string{})
	if len(prompt) > 60000 || !strings.Contains(prompt, "### concepts/retry-backoff") {
		t.Errorf("prompt of %d bytes; the relevant article in it: %v", len(prompt), strings.Contains(prompt, "### concepts/retry-backoff"))
	}
}

// A query picks articles from the index, answers citing them, and with
// file-back files a qa page that lint accepts.
func TestQueryFileBack(t *testing.T) {
	know, w := knowledgeDir(t)
	src := wiki.DailySources(know)
	f := &fake{answers: []string{edits}}
	if _, err := wiki.Compile(w, src, wiki.CompileOptions{Model: f.model(), Now: day}); err != nil {
		t.Fatal(err)
	}
	f.answers = []string{`{"articles": ["concepts/retry-backoff", "concepts/nope"]}`,
		"Retries back off exponentially, capped at 30 s ([[concepts/retry-backoff]]); see also [[concepts/ghost]]."}
	a, err := wiki.Query(w, src, "How do retries back off?", true, f.model(), day())
	if err != nil || a.Filed != "qa/how-do-retries-back-off" || strings.Join(a.Consulted, " ") != "concepts/retry-backoff" {
		t.Fatalf("Query = %+v, %v", a, err)
	}
	if !strings.Contains(f.prompts[1], "How do retries back off?") || !strings.Contains(f.prompts[1], "[[concepts/retry-backoff]]") {
		t.Errorf("pick prompt:\n%s", f.prompts[1])
	}
	if !strings.Contains(f.prompts[2], "Retries back off exponentially, capped at 30 s, because") {
		t.Errorf("the answer prompt lacks the picked article:\n%s", f.prompts[2])
	}
	qa, _ := os.ReadFile(filepath.Join(w, "qa", "how-do-retries-back-off.md"))
	p, _ := wiki.ParsePage("qa/how-do-retries-back-off", qa)
	if p.Front.Question != "How do retries back off?" || p.Front.Filed != "2026-11-24" || strings.Contains(p.Body, "[[concepts/ghost]]") {
		t.Errorf("qa page:\n%s", qa)
	}
	index, _ := os.ReadFile(filepath.Join(w, "index.md"))
	log, _ := os.ReadFile(filepath.Join(w, "log.md"))
	if !strings.Contains(string(index), "[[qa/how-do-retries-back-off]]") || !strings.Contains(string(log), "query | How do retries back off?") {
		t.Errorf("index or log not updated:\n%s\n%s", index, log)
	}
	rep, _ := wiki.Lint(w, src, wiki.LintOptions{StructuralOnly: true})
	if rep.Errors() != 0 {
		t.Errorf("lint:\n%s", rep.Markdown())
	}
}

// A secret the model echoes from a source never reaches a page: a team
// wiki is committed.
func TestCompileRedacts(t *testing.T) {
	know, w := knowledgeDir(t)
	const secret = "ghp_0123456789abcdefghijklmnopqrstuvwxyzAB"
	f := &fake{answers: []string{`{"articles":[{"path":"concepts/bot","title":"Bot token ` + secret + `","summary":"uses ` + secret + `","body":"The bot uses ` + secret + `."}]}`}}
	if _, err := wiki.Compile(w, wiki.DailySources(know), wiki.CompileOptions{Model: f.model(), Now: day}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"concepts/bot.md", "index.md", "log.md"} {
		data, _ := os.ReadFile(filepath.Join(w, name))
		if strings.Contains(string(data), secret) {
			t.Errorf("%s holds the secret:\n%s", name, data)
		}
	}
}

// issue 24: an answer that is not the edits asked for (the runner's error
// object, an object inside a cut answer) or a failed call (a cut answer:
// the command's ErrCut) fails the source: it is not marked compiled, and
// the next compile takes it again.
func TestCompileFailedAnswer(t *testing.T) {
	for name, ask := range map[string]model.Func{
		"error object": (&fake{answers: []string{`{"error":{"type":"overloaded_error"}}`}}).model(),
		"inner object": (&fake{answers: []string{`{"articles": [{"path": "concepts/a", "title": "A", "body": "cut`}}).model(),
		"cut": func(context.Context, string) (model.Reply, error) {
			return model.Reply{}, fmt.Errorf("sh: %w", model.ErrCut)
		},
	} {
		know, w := knowledgeDir(t)
		src := wiki.DailySources(know)
		res, err := wiki.Compile(w, src, wiki.CompileOptions{Model: ask, Now: day})
		if err != nil || len(res.Sources) != 1 || !res.Sources[0].Failed || res.Failed() != 1 {
			t.Errorf("%s: %+v, %v", name, res, err)
		}
		if pending, err := wiki.Pending(w, src, false, ""); err != nil || len(pending) != 1 {
			t.Errorf("%s: the failed source was marked compiled: %v, %v", name, pending, err)
		}
	}
}

// Issue 24: the path the model chose was not redacted, so a secret in it
// reached log.md (a repair quotes it), the file name, index.md and
// .compile-state.json. Every string the model writes passes the
// redactor: the path, and the tags and connections too.
func TestCompileRedactsPaths(t *testing.T) {
	for _, secret := range []string{
		"ghp_0123456789abcdefghijklmnopqrstuvwxyzAB",
		"AKIAIOSFODNN7EXAMPLQ",
		"xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
		"sk_live_4eC39HqLyjWDarjtT1zdp7dcQ9",
		"glpat-xY7pQ2rS9tU4vW1zA3bC",
		"AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY",
	} {
		t.Run(secret[:6], func(t *testing.T) {
			know, w := knowledgeDir(t)
			f := &fake{answers: []string{`{"articles":[` +
				`{"path":"concepts/use ` + secret + ` to push","title":"Pushing","tags":["` + secret + `"],"summary":"How the bot pushes.","body":"The bot pushes with a token."},` +
				`{"path":"connections/` + secret + `","title":"Both","connects":["concepts/` + secret + `","concepts/x"],"body":"Both."},` +
				`{"path":"elsewhere/` + secret + `","title":"Elsewhere","body":"x"}]}`}}
			if _, err := wiki.Compile(w, wiki.DailySources(know), wiki.CompileOptions{Model: f.model(), Now: day}); err != nil {
				t.Fatal(err)
			}
			forms := []string{secret, strings.ToLower(secret), knowledge.Slug(secret, 200)}
			n := 0
			filepath.WalkDir(w, func(p string, d fs.DirEntry, err error) error {
				if err != nil {
					return err
				}
				n++
				data := []byte{}
				if !d.IsDir() {
					data, _ = os.ReadFile(p)
				}
				for _, form := range forms {
					if strings.Contains(p, form) || strings.Contains(string(data), form) {
						t.Errorf("%s holds the secret (as %q):\n%s", p, form, data)
					}
				}
				return nil
			})
			if n < 4 {
				t.Fatalf("the compile wrote %d files", n)
			}
		})
	}
}

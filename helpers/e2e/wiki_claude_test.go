package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/testharness/cairntest"
	"github.com/cairn-dev/cairn/helpers/internal/testharness/claudetest"
	"github.com/cairn-dev/cairn/helpers/internal/testharness/testenv"
	"github.com/cairn-dev/cairn/helpers/internal/wiki"
)

// wikiEdits is the fake model's compile answer: good articles and the
// invalid edits cairn must refuse or repair.
const wikiEdits = "```json\n" + `{"articles": [
 {"path": "concepts/retry-backoff", "title": "Retry backoff", "summary": "Exponential backoff capped at 30 s.", "body": "Retries back off exponentially, capped at 30 s. Cancellation: [[concepts/context-cancellation]]. Also [[concepts/does-not-exist]]."},
 {"path": "concepts/context-cancellation", "title": "Context cancellation", "summary": "Loops select on ctx.Done().", "body": "A retry loop must select on ctx.Done(); see [[concepts/retry-backoff]]."},
 {"path": "../outside", "title": "outside", "body": "x"},
 {"path": "concepts/no-title", "body": "x"}
]}` + "\n```"

// cairn wiki compile and query with the real `claude -p` as the model,
// against the fake, which answers each request by its content: a daily
// log compiles into the expected pages, invalid edits refused or repaired
// with a report; a second compile of the unchanged log calls no model; a
// query files back a qa page; lint finds no error, and every link of the
// compiled wiki resolves as Obsidian reads it.
func TestWikiWithClaude(t *testing.T) {
	t.Parallel() // a real-client test: it mostly waits on the CLI
	cli := claudetest.FindCLI(t)
	api := claudetest.StartFakeAPI(t, nil)
	var compiles, picks, answers int
	api.Respond(func(r claudetest.Request) ([]claudetest.Block, bool) {
		text := r.Text()
		switch {
		case strings.Contains(text, wiki.CompileMarker):
			compiles++
			return []claudetest.Block{claudetest.Text(wikiEdits)}, true
		case strings.Contains(text, wiki.PickMarker):
			picks++
			return []claudetest.Block{claudetest.Text(`{"articles": ["concepts/retry-backoff"]}`)}, true
		case strings.Contains(text, wiki.AnswerMarker):
			answers++
			return []claudetest.Block{claudetest.Text("Retries back off exponentially up to 30 s ([[concepts/retry-backoff]]).")}, true
		}
		return nil, false
	})
	home := t.TempDir()
	bin := t.TempDir()
	os.Symlink(cli, filepath.Join(bin, "claude"))
	know := filepath.Join(home, ".local", "share", "cairn")
	os.MkdirAll(filepath.Join(know, "daily"), 0o755)
	os.WriteFile(filepath.Join(know, "daily", "2026-11-24.md"), []byte("# Daily Log: 2026-11-24\n\n### Session (09:00) - Retry loop\n\n**Decisions Made:**\n- Retry with exponential backoff capped at 30 s\n"), 0o644)
	env := api.Env(append(testenv.Home(home), "CAIRN_NO_BACKGROUND=1",
		"PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))...)
	run := func(args ...string) (string, error) {
		cmd := exec.Command(cairntest.Binary(t), args...)
		cmd.Dir, cmd.Env = home, env
		out, err := cmd.CombinedOutput()
		return string(out), err
	}

	out, err := run("wiki", "compile")
	if err != nil || compiles != 1 {
		t.Fatalf("compile: %v, %d model calls\n%s", err, compiles, out)
	}
	for _, want := range []string{"daily/2026-11-24.md: 2 created, 0 updated, 2 refused, 1 repaired",
		`refused "../outside": a path outside the wiki`, "refused concepts/no-title: no title",
		"repaired concepts/retry-backoff: unlinked [[concepts/does-not-exist]]", "cost $"} {
		if !strings.Contains(out, want) {
			t.Errorf("compile output lacks %q:\n%s", want, out)
		}
	}
	w := filepath.Join(know, "wiki")
	for _, f := range []string{"concepts/retry-backoff.md", "concepts/context-cancellation.md", "index.md", "log.md"} {
		if _, err := os.Stat(filepath.Join(w, f)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	if out, err := run("wiki", "compile"); err != nil || compiles != 1 || !strings.Contains(out, "nothing to compile") {
		t.Errorf("a second compile of the unchanged log: %v, %d calls\n%s", err, compiles, out)
	}
	out, err = run("wiki", "query", "--file-back", "How do retries back off?")
	if err != nil || picks != 1 || answers != 1 || !strings.Contains(out, "[[concepts/retry-backoff]]") {
		t.Fatalf("query: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(w, "qa", "how-do-retries-back-off.md")); err != nil {
		t.Errorf("no qa page: %v", err)
	}
	out, err = run("wiki", "lint", "--structural-only")
	if err != nil || strings.Contains(out, "broken_link") || !strings.Contains(out, " 0 errors") {
		t.Errorf("lint: %v\n%s", err, out)
	}
	checkObsidianLinks(t, know)
}

// checkObsidianLinks resolves every wikilink of every markdown file under
// the vault as Obsidian does: a path from the vault's root, or the end of
// one (a folder-qualified link), or a unique file name.
func checkObsidianLinks(t *testing.T, vault string) {
	t.Helper()
	var files []string
	filepath.Walk(vault, func(p string, info os.FileInfo, err error) error {
		if err == nil && info.Mode().IsRegular() && strings.HasSuffix(p, ".md") {
			rel, _ := filepath.Rel(vault, p)
			files = append(files, strings.TrimSuffix(filepath.ToSlash(rel), ".md"))
		}
		return nil
	})
	resolves := func(target string) bool {
		n := 0
		for _, f := range files {
			if f == target || strings.HasSuffix(f, "/"+target) {
				n++
			}
		}
		return n == 1
	}
	checked := 0
	for _, f := range files {
		if !strings.HasPrefix(f, "wiki/") {
			continue
		}
		data, _ := os.ReadFile(filepath.Join(vault, filepath.FromSlash(f)+".md"))
		for _, l := range wiki.Links(string(data)) {
			if l.Target == "" {
				continue
			}
			checked++
			if !resolves(strings.TrimSuffix(l.Target, ".md")) {
				t.Errorf("%s: [[%s]] does not resolve in the vault", f, l.Target)
			}
		}
	}
	if checked == 0 {
		t.Error("no link checked")
	}
}

package pipeline_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/testharness/qmdtest"
)

// With the real QMD on PATH and a collection over the knowledge
// directory, the worker's `qmd update` makes the learning it just wrote
// searchable (QMD's keyword search, which works offline).
func TestWorkerUpdatesQMD(t *testing.T) {
	bin := qmdtest.Find(t)
	h := newHarness(t, func(string) (string, error) { return answer, nil })
	home := filepath.Join(h.dir, "qmd-home")
	os.MkdirAll(home, 0o755)
	know := filepath.Join(h.dir, "data")
	os.MkdirAll(filepath.Join(know, "learnings"), 0o755)
	os.WriteFile(filepath.Join(know, "learnings", "seed.md"), []byte("# seed\n\nnothing yet\n"), 0o644)
	qmdtest.Run(t, bin, home, "collection", "add", know, "--name", "cairn")
	if out := qmdtest.Run(t, bin, home, "search", "ctx.Done", "--format", "json"); strings.Contains(out, "retry-loops") {
		t.Fatalf("found before the worker ran: %s", out)
	}
	// The worker finds qmd on PATH and runs it with the user's
	// environment: the test's HOME and XDG directories are QMD's.
	t.Setenv("PATH", filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"))
	for _, kv := range qmdtest.Env(t, home) {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	h.add("s-qmd", "main", 6)
	if err := h.w.Run(); err != nil {
		t.Fatal(err)
	}
	if d := h.done("s-qmd"); !d.Distilled {
		t.Fatalf("not distilled: %s", d.Outcome)
	}
	out := qmdtest.Run(t, bin, home, "search", "selects", "--format", "json")
	if !strings.Contains(out, "retry-loops-must-watch-the-context") {
		t.Errorf("qmd does not find the new learning after the worker ran:\n%s", out)
	}
}

package qmdtest

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// hit is one result of "qmd search --format json".
type hit struct {
	DocID string  `json:"docid"`
	Score float64 `json:"score"`
	File  string  `json:"file"`
	Title string  `json:"title"`
}

// search runs a BM25 search in collection know and returns its hits.
func search(t *testing.T, bin, home, word string) []hit {
	t.Helper()
	out := Run(t, bin, home, "search", word, "--format", "json", "-c", "know")
	var hits []hit
	if err := json.Unmarshal([]byte(out), &hits); err != nil {
		t.Fatalf("qmd search %s --format json: not a JSON array of hits: %v\n%s", word, err, out)
	}
	return hits
}

// writeFile writes content to dir/rel, creating its directories.
func writeFile(t *testing.T, dir, rel, content string) {
	t.Helper()
	path := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestQMDUpdateFindsNewFile is what cairn's worker relies on: a markdown file
// written into a directory registered as a QMD collection is not searchable
// until "qmd update" runs, and is afterwards, offline (BM25 needs no model).
func TestQMDUpdateFindsNewFile(t *testing.T) {
	bin := Find(t)
	home := t.TempDir()
	know := filepath.Join(t.TempDir(), "know")
	const word = "zorblattquux"

	writeFile(t, know, "sessions/2026-11/2026-11-24-abcd1234.md",
		"---\nkind: session\n---\n# Session abcd1234\n\nRefactored the hook gate; all tests pass.\n")
	out := Run(t, bin, home, "collection", "add", know, "--name", "know")
	if !strings.Contains(out, "Indexed: 1 new") {
		t.Errorf("collection add did not index the first file:\n%s", out)
	}
	out = Run(t, bin, home, "update")
	if !strings.Contains(out, "Indexed: 0 new, 0 updated, 1 unchanged, 0 removed") {
		t.Errorf("first update: unexpected counts:\n%s", out)
	}
	if hits := search(t, bin, home, "hook"); len(hits) != 1 || hits[0].File != "qmd://know/sessions/2026-11/2026-11-24-abcd1234.md" {
		t.Errorf("search hook: got %+v, want the session file", hits)
	}

	writeFile(t, know, "learnings/2026-11/2026-11-24-some-slug.md",
		"# Warm the cache first\n\nThe "+word+" cache must be warmed before the first query.\n")
	if hits := search(t, bin, home, word); len(hits) != 0 {
		t.Fatalf("search %s found %+v before qmd update; the test would prove nothing", word, hits)
	}
	out = Run(t, bin, home, "update")
	if !strings.Contains(out, "Indexed: 1 new, 0 updated, 1 unchanged, 0 removed") {
		t.Errorf("second update: unexpected counts:\n%s", out)
	}
	hits := search(t, bin, home, word)
	if len(hits) != 1 {
		t.Fatalf("search %s after update: got %d hits %+v, want 1", word, len(hits), hits)
	}
	if want := "qmd://know/learnings/2026-11/2026-11-24-some-slug.md"; hits[0].File != want {
		t.Errorf("search %s: file %q, want %q", word, hits[0].File, want)
	}
	if hits[0].Title != "Warm the cache first" {
		t.Errorf("search %s: title %q, want the file's first heading", word, hits[0].Title)
	}

	// Everything QMD wrote is under home.
	for _, rel := range []string{".config/qmd/index.yml", ".cache/qmd/index.sqlite"} {
		if _, err := os.Stat(filepath.Join(home, filepath.FromSlash(rel))); err != nil {
			t.Errorf("QMD state not under the test home: %v", err)
		}
	}
	if out := Run(t, bin, home, "status"); !strings.Contains(out, filepath.Join(home, ".cache", "qmd", "index.sqlite")) {
		t.Errorf("status does not name the index under the test home:\n%s", out)
	}
}

func TestEnvIsolates(t *testing.T) {
	t.Setenv("QMD_CONFIG_DIR", "/elsewhere/config")
	t.Setenv("INDEX_PATH", "/elsewhere/index.sqlite")
	t.Setenv("XDG_CACHE_HOME", "/elsewhere/cache")
	t.Setenv("PWD", "/elsewhere")
	t.Setenv("QMDTEST_KEEP", "kept")
	home := t.TempDir()
	got := map[string]string{}
	for _, kv := range Env(t, home) {
		k, v, _ := strings.Cut(kv, "=")
		if old, dup := got[k]; dup {
			t.Errorf("%s appears twice (%q, %q)", k, old, v)
		}
		got[k] = v
	}
	for _, k := range []string{"QMD_CONFIG_DIR", "INDEX_PATH", "PWD"} {
		if v, ok := got[k]; ok {
			t.Errorf("%s=%s kept; it would steer QMD outside home", k, v)
		}
	}
	want := map[string]string{
		"HOME":            home,
		"XDG_CONFIG_HOME": filepath.Join(home, ".config"),
		"XDG_CACHE_HOME":  filepath.Join(home, ".cache"),
		"NO_COLOR":        "1",
		"QMDTEST_KEEP":    "kept",
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s=%q, want %q", k, got[k], v)
		}
	}
}

func TestWrapperQuotes(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the wrapper is a POSIX shell script")
	}
	echo, err := exec.LookPath("echo")
	if err != nil {
		t.Skip("no echo binary")
	}
	dir := t.TempDir()
	launcher := "/odd dir/it's $HOME `x`/qmd"
	bin, err := writeWrapper(dir, echo, launcher)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(bin) != "qmd" {
		t.Errorf("wrapper is named %q, want qmd", filepath.Base(bin))
	}
	out, err := exec.Command(bin, "search", "two words").Output()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(out), launcher+" search two words\n"; got != want {
		t.Errorf("wrapper ran %q, want %q", got, want)
	}
}

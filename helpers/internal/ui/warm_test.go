package ui

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"regexp"
	"strconv"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
	"github.com/cairn-dev/cairn/helpers/internal/project"
	"github.com/cairn-dev/cairn/helpers/internal/review"
	"github.com/cairn-dev/cairn/helpers/internal/testharness/clitest"
	"github.com/cairn-dev/cairn/helpers/internal/testharness/synthlog"
)

// changedProject is a git repository whose log of n entries has two
// commits a day of work apart (see synthlog.Changed), and a working tree
// ahead of the last by 20 more entries.
func changedProject(t testing.TB, n int) *project.Project {
	t.Helper()
	clitest.IsolateGit(t)
	p := bigProject(t, 0)
	p.IsGit = true
	clitest.Git(t, p.Root, "init", "-q", "-b", "main")
	before, after := synthlog.Changed(n, 7)
	write := func(lines [][]byte) {
		t.Helper()
		if err := os.WriteFile(p.Store.LogPath(), append(bytes.Join(lines, []byte("\n")), '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for i, lines := range [][][]byte{before, after} {
		write(lines)
		clitest.Git(t, p.Root, "add", "-A")
		clitest.Git(t, p.Root, "commit", "-q", "-m", []string{"before", "after"}[i])
	}
	write(append(after, synthlog.Log(n+100, n+120, 7)...))
	return p
}

// cairn ui computes the diff page's first diff as it starts: the first
// request of the page, once that is done, computes none, and shows what
// a server that computes it on the request shows.
func TestFirstDiffPageFindsItsDiffComputed(t *testing.T) {
	p := changedProject(t, 2000)
	s, err := New(Options{Project: p, Getenv: os.Getenv, Token: "tok"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- s.Run(ctx, Listen{Addr: "127.0.0.1:0", Loopback: true, Stdout: io.Discard, Stderr: io.Discard})
	}()
	<-s.warmed
	if n := s.memo.Computed(); n != 1 {
		t.Fatalf("cairn ui computed %d diffs as it started, want 1", n)
	}
	warm := get(t, s, "/diff")
	if n := s.memo.Computed(); n != 1 {
		t.Errorf("the first diff page computed its diff (%d computed)", n)
	}
	stop()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	cold := get(t, newRealServer(t, p), "/diff")
	if warm.Code != 200 || !bytes.Contains(warm.Body.Bytes(), []byte("Added")) || warm.Body.String() != cold.Body.String() {
		t.Errorf("the page of the diff computed at start (status %d) is not the page of one computed on the request:\n%.3000s\n----\n%.3000s",
			warm.Code, warm.Body, cold.Body)
	}
}

// newRealServer is a server of p with cairn diff's own diff.
func newRealServer(t testing.TB, p *project.Project) *Server {
	t.Helper()
	s, err := New(Options{Project: p, Getenv: os.Getenv, Token: "tok"})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// The pages of a ranked search count its matches once while the cache has
// not moved, and again, truly, once the log has a new match.
func TestSearchPagesCountTheirMatchesOnce(t *testing.T) {
	p := bigProject(t, 3000)
	s := newRealServer(t, p)
	count := func(path string, computed int) string {
		t.Helper()
		w := get(t, s, path)
		m := countRE.FindStringSubmatch(w.Body.String())
		if w.Code != 200 || m == nil {
			t.Fatalf("%s: status %d, no count\n%.2000s", path, w.Code, w.Body)
		}
		if s.counts.computed != computed {
			t.Errorf("after %s: the matches counted %d times, want %d", path, s.counts.computed, computed)
		}
		return m[1]
	}
	first := count("/?q=cache", 1)
	if n := count("/?q=cache&page=2", 1); n != first {
		t.Errorf("page 2 counts %s matches, page 1 %s", n, first)
	}
	count("/?q=retry", 2)
	e := knowledge.Entry{Type: "fact", Content: "the cache is warmed when the viewer starts", TS: 1_800_000_000, Author: "dev99"}
	e.Key = knowledge.MakeKey(e.Type, e.Content)
	if _, err := p.Store.Insert([]knowledge.Entry{e}); err != nil {
		t.Fatal(err)
	}
	if n, want := count("/?q=cache&page=2", 3), atoi(t, first)+1; atoi(t, n) != want {
		t.Errorf("after a match was added, %s matches, want %d", n, want)
	}
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// countRE reads the count above the knowledge list.
var countRE = regexp.MustCompile(`<p class="count" id="count">(\d+) `)

// The diff page after the log moved while the viewer was open (its diff
// remembered for the log before) is the page of a diff computed from
// scratch.
func TestDiffPageAfterTheLogMoved(t *testing.T) {
	p := changedProject(t, 2000)
	s := newRealServer(t, p)
	first := get(t, s, "/diff")
	f, err := os.OpenFile(p.Store.LogPath(), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.Write(append(synthlog.Log(5000, 5001, 3)[0], '\n'))
	if err := errors.Join(err, f.Close()); err != nil {
		t.Fatal(err)
	}
	moved := get(t, s, "/diff")
	scratch := newRealServer(t, p)
	scratch.diff = func(rev string) (review.DiffReport, error) { return review.Diff(p, rev) } // no memo
	want := get(t, scratch, "/diff")
	if moved.Code != 200 || moved.Body.String() == first.Body.String() || moved.Body.String() != want.Body.String() {
		t.Errorf("the page after the log moved (status %d) is not the page computed from scratch:\n%.3000s\n----\n%.3000s",
			moved.Code, moved.Body, want.Body)
	}
}

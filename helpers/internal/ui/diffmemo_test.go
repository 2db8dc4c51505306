package ui

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
	"github.com/cairn-dev/cairn/helpers/internal/review"
	"github.com/cairn-dev/cairn/helpers/internal/testharness/clitest"
	"github.com/cairn-dev/cairn/helpers/internal/testharness/synthlog"
)

// The diff page of a viewer left open while the working tree's log
// changes (its diff remembered, its copy of the log kept) is, after each
// change, the page of a diff computed from scratch: an entry added, one
// retracted, a line in the middle edited, a line removed, the log
// replaced by another of the same size, by the committed one, truncated
// to empty, a FIFO in its place (the same error, and no wait for a
// writer), the log back; and a page rendered while the log changes
// (another diff overwrites the viewer's copy meanwhile) shows the log it
// read. The log (some 900 KB) spans several of the pieces the copy is
// compared in.
func TestDiffPageAfterEachChange(t *testing.T) {
	const n = 3000
	p := changedProject(t, n)
	s := newRealServer(t, p)
	scratch := newRealServer(t, p)
	scratch.diff = func(rev string) (review.DiffReport, error) { return review.Diff(p, rev) } // no memo
	path := p.Store.LogPath()
	read := func() []byte {
		t.Helper()
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	write := func(data []byte) {
		t.Helper()
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	lines := func() [][]byte { return bytes.SplitAfter(bytes.TrimSuffix(read(), []byte("\n")), []byte("\n")) }
	computed := 0
	check := func(step string, changed bool) {
		t.Helper()
		for _, page := range []string{"/diff", "/diff?page=2"} {
			got, want := get(t, s, page), get(t, scratch, page)
			if got.Code != want.Code || got.Body.String() != want.Body.String() {
				t.Errorf("%s: %s (status %d) is not the page computed from scratch (status %d):\n%.3000s\n----\n%.3000s",
					step, page, got.Code, want.Code, got.Body, want.Body)
			}
		}
		if changed {
			computed++
		}
		if n := s.memo.Computed(); n != computed {
			t.Errorf("%s: %d diffs computed in all, want %d (paging computes none; a log that did not change, none)", step, n, computed)
		}
	}
	check("the log as the viewer opened", true)
	check("the log asked again", false)

	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.Write(append(synthlog.Log(n+500, n+501, 3)[0], '\n'))
	if err := errors.Join(err, f.Close()); err != nil {
		t.Fatal(err)
	}
	check("an entry added", true)

	entry := func(line []byte) knowledge.Entry {
		t.Helper()
		var e knowledge.Entry
		knowledge.Parse(line, func(r knowledge.Record) { e = r.Entry })
		if e.Key == "" {
			t.Fatalf("no entry in %q", line)
		}
		return e
	}
	marshal := func(e knowledge.Entry) []byte {
		t.Helper()
		line, err := knowledge.Marshal(&e)
		if err != nil {
			t.Fatal(err)
		}
		return append(line, '\n')
	}
	ls := lines()
	e := entry(ls[len(ls)/4])
	e.TS, e.Status, e.ReviewReason = e.TS+60, knowledge.StatusRetracted, "no longer true"
	write(append(read(), marshal(e)...))
	check("an entry retracted", true)

	ls = lines()
	e = entry(ls[len(ls)/2])
	e.Content += " (edited in place)"
	ls[len(ls)/2] = marshal(e)
	write(bytes.Join(ls, nil))
	check("a line in the middle edited", true)

	ls = lines()
	write(bytes.Join(append(ls[:len(ls)/3:len(ls)/3], ls[len(ls)/3+1:]...), nil))
	check("a line removed", true)

	// Every entry's text another, the size the same.
	same := read()
	for i := 0; ; {
		j := bytes.Index(same[i:], []byte(`"content":"`))
		if j < 0 {
			break
		}
		for i += j + len(`"content":"`); same[i] != '"'; i++ {
			if c := same[i]; c >= 'a' && c <= 'z' {
				same[i] = 'a' + (c-'a'+1)%26
				break
			}
		}
	}
	if before := read(); len(same) != len(before) || bytes.Equal(same, before) {
		t.Fatal("the log of the same size is not another")
	}
	write(same)
	check("the log replaced by another of the same size", true)

	clitest.Git(t, p.Root, "checkout", "--", ".cairn/knowledge.jsonl")
	check("the log as committed", true)

	if err := os.Truncate(path, 0); err != nil {
		t.Fatal(err)
	}
	check("the log truncated to empty", true)

	kept := bytes.Join(ls, nil)
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := mkfifo(path); err == nil {
		for _, page := range []string{"/diff", "/diff?page=2"} {
			if w := get(t, s, page); !strings.Contains(w.Body.String(), "FIFO") {
				t.Errorf("a FIFO at the log's path: %s does not say so:\n%.2000s", page, w.Body)
			}
		}
		check("a FIFO at the log's path", false) // no diff computed: an error
		if err := os.Remove(path); err != nil {
			t.Fatal(err)
		}
	} else if !errors.Is(err, errors.ErrUnsupported) {
		t.Fatal(err)
	}
	write(kept)
	check("the log back", true)

	// A page rendered while the log changes: another diff, computed
	// meanwhile, reads the changed log into the copy the page's diff was
	// computed from. The change is at the log's start, so every byte of
	// the copy is written again.
	want := get(t, scratch, "/diff")
	ls = lines()
	e = entry(ls[0])
	e.Content = "the first line edited while a page renders, " + e.Content
	ls[0] = marshal(e)
	diff := s.diff
	s.diff = func(rev string) (review.DiffReport, error) {
		d, err := diff(rev)
		write(bytes.Join(ls, nil))
		if _, err := diff(rev); err != nil {
			t.Error(err)
		}
		return d, err
	}
	if got := get(t, s, "/diff"); got.Body.String() != want.Body.String() {
		t.Errorf("a page rendered while the log changed is not the page of the log it read:\n%.3000s\n----\n%.3000s", got.Body, want.Body)
	}
	s.diff = diff
	computed++ // the diff of the log changed
	check("the log changed while a page rendered", false)
}

package knowledge

import (
	"bytes"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
)

// markerRE recognises a conflict marker independently of the code under
// test: a whole line of exactly seven marker characters, then a space and
// a label, or nothing.
var markerRE = regexp.MustCompile(`^(<{7}|\|{7}|={7}|>{7})( |$)`)

func isMarkerLine(l []byte) bool { return markerRE.Match(bytes.TrimSpace(l)) }

// resolvedLines splits resolved output into its lines; output always ends
// with a newline, so a final piece is always empty.
func resolvedLines(t testing.TB, out []byte) []string {
	t.Helper()
	if len(out) == 0 {
		return nil
	}
	if out[len(out)-1] != '\n' {
		t.Fatalf("resolved output does not end with a newline: %q", out)
	}
	return strings.Split(string(out[:len(out)-1]), "\n")
}

// checkResolvedOrder checks that the valid lines are in log order by an
// independent reckoning (hex SHA-256 of the key, then ts).
func checkResolvedOrder(t testing.TB, out []byte) {
	t.Helper()
	checkSorted(t, out)
}

func TestResolveData(t *testing.T) {
	var (
		a  = mkLine("ra", "fact", "alpha entry", 10)
		b  = mkLine("rb", "fact", "bravo entry", 11)
		c  = mkLine("rc", "learned", "charlie entry", 12)
		d  = mkLine("rd", "decision", "delta entry", 13)
		e  = mkLine("re", "pattern", "echo entry", 14)
		f  = mkLine("rf", "fact", "foxtrot entry", 15)
		k1 = mkLine("same", "fact", "the first version", 100)
		k2 = mkLine("same", "fact", "the second version", 200)
		// Lines that hold marker-like text but are no markers.
		quoted  = mkLine("rq", "fact", "a merge leaves =======\n<<<<<<< HEAD and >>>>>>> b in a file", 16)
		eight   = "======== eight is not seven"
		glued   = "=======x"
		longer  = "<<<<<<<< HEAD"
		indent  = `  {"key":"rs","type":"fact","content":"indented","ts":17}`
		torn    = `{"key":"rt","type":"fact","content":"torn li`
		notJSON = "not json at all"
	)
	for _, tc := range []struct {
		name string
		in   string
		want []string // the lines of the output, in any order
		st   ResolveStats
	}{
		{
			name: "plain markers",
			in:   a + "\n<<<<<<< HEAD\n" + b + "\n=======\n" + c + "\n>>>>>>> feature\n" + d + "\n",
			want: []string{a, b, c, d},
			st:   ResolveStats{Hunks: 1, Markers: 3, Kept: 2, Lines: 4},
		},
		{
			name: "diff3 with a base section",
			// Base had b and e; ours kept b and added c; theirs removed
			// both and added d. e is a line only the base has: kept.
			in:   a + "\n<<<<<<< HEAD\n" + b + "\n" + c + "\n||||||| merged common ancestors\n" + b + "\n" + e + "\n=======\n" + d + "\n>>>>>>> feature\n" + f + "\n",
			want: []string{a, b, c, d, e, f},
			st:   ResolveStats{Hunks: 1, Markers: 4, Kept: 4, BaseKept: 1, Lines: 6},
		},
		{
			name: "diff3 with an empty base",
			in:   "<<<<<<< ours\n" + a + "\n||||||| base\n=======\n" + b + "\n>>>>>>> theirs\n",
			want: []string{a, b},
			st:   ResolveStats{Hunks: 1, Markers: 4, Kept: 2, Lines: 2},
		},
		{
			name: "markers at the start and the end, no final newline",
			in:   "<<<<<<< HEAD\n" + a + "\n=======\n" + b + "\n>>>>>>> feature",
			want: []string{a, b},
			st:   ResolveStats{Hunks: 1, Markers: 3, Kept: 2, Lines: 2},
		},
		{
			name: "a torn last line",
			in:   a + "\n<<<<<<< HEAD\n" + b + "\n=======\n" + c + "\n>>>>>>> feature\n" + torn,
			want: []string{a, b, c, torn},
			st:   ResolveStats{Hunks: 1, Markers: 3, Kept: 2, Lines: 4},
		},
		{
			name: "CRLF",
			in:   a + "\r\n<<<<<<< HEAD\r\n" + b + "\r\n=======\r\n" + c + "\r\n>>>>>>> feature\r\n" + d + "\r\n",
			want: []string{a, b, c, d},
			st:   ResolveStats{Hunks: 1, Markers: 3, Kept: 2, Lines: 4},
		},
		{
			name: "two conflicts",
			in: "<<<<<<< HEAD\n" + a + "\n=======\n" + b + "\n>>>>>>> feature\n" + c + "\n" +
				"<<<<<<< HEAD\n" + d + "\n" + e + "\n=======\n" + f + "\n>>>>>>> feature\n",
			want: []string{a, b, c, d, e, f},
			st:   ResolveStats{Hunks: 2, Markers: 6, Kept: 5, Lines: 6},
		},
		{
			name: "marker text inside JSON strings and lines that are no markers",
			in:   quoted + "\n" + eight + "\n" + glued + "\n" + longer + "\n<<<<<<< HEAD\n" + a + "\n=======\n" + b + "\n>>>>>>> feature\n",
			want: []string{quoted, eight, glued, longer, a, b},
			st:   ResolveStats{Hunks: 1, Markers: 3, Kept: 2, Lines: 6},
		},
		{
			name: "one key on both sides: both lines, in ts order",
			in:   "<<<<<<< HEAD\n" + k2 + "\n=======\n" + k1 + "\n>>>>>>> feature\n",
			want: []string{k1, k2},
			st:   ResolveStats{Hunks: 1, Markers: 3, Kept: 2, Lines: 2},
		},
		{
			name: "invalid lines are kept",
			in:   a + "\n<<<<<<< HEAD\n" + notJSON + "\n" + indent + "\n=======\n[1,2]\n" + torn + "\n>>>>>>> feature\n",
			want: []string{a, notJSON, indent, "[1,2]", torn},
			st:   ResolveStats{Hunks: 1, Markers: 3, Kept: 4, Lines: 5},
		},
		{
			name: "the same line on both sides and outside",
			in:   a + "\n<<<<<<< HEAD\n" + b + "\n" + a + "\n=======\n" + b + "\n" + c + "\n>>>>>>> feature\n" + c + "\n",
			want: []string{a, b, c},
			st:   ResolveStats{Hunks: 1, Markers: 3, Kept: 3, Duplicates: 3, Lines: 3},
		},
		{
			name: "blank lines and a BOM",
			in:   "\xef\xbb\xbf<<<<<<< HEAD\n\n" + a + "\n  \n=======\n" + b + "\n>>>>>>> feature\n\n",
			want: []string{a, b},
			st:   ResolveStats{Hunks: 1, Markers: 3, Kept: 2, Blank: 3, Lines: 2},
		},
		{
			name: "stray markers and a conflict the file ends inside",
			in:   a + "\n=======\n" + b + "\n>>>>>>> feature\n<<<<<<< HEAD\n" + c + "\n||||||| base\n" + d + "\n",
			want: []string{a, b, c, d},
			st:   ResolveStats{Hunks: 1, Markers: 4, Kept: 2, BaseKept: 1, Lines: 4},
		},
		{
			name: "no markers: sorted and deduplicated all the same",
			in:   d + "\n" + c + "\n" + d + "\n" + a + "\n",
			want: []string{a, c, d},
			st:   ResolveStats{Duplicates: 1, Lines: 3},
		},
		{name: "empty", in: "", want: nil},
		{name: "markers only", in: "<<<<<<< HEAD\n=======\n>>>>>>> b\n", want: nil, st: ResolveStats{Hunks: 1, Markers: 3}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, st := resolveData([]byte(tc.in))
			if st != tc.st {
				t.Errorf("stats = %+v\nwant    %+v", st, tc.st)
			}
			got := resolvedLines(t, out)
			want := slices.Clone(tc.want)
			sort.Strings(got)
			sort.Strings(want)
			if !slices.Equal(got, want) {
				t.Errorf("lines:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			checkResolvedOrder(t, out)
			if ConflictLines(out) != nil || bytes.Contains(out, []byte("\r")) || bytes.HasPrefix(out, bom) {
				t.Errorf("markers, CR or a BOM left in:\n%s", out)
			}
			again, st2 := resolveData(out)
			if !bytes.Equal(again, out) {
				t.Errorf("resolving again changed the output:\n%s\nto\n%s", out, again)
			}
			if st2.Markers != 0 || st2.Duplicates != 0 || st2.Blank != 0 || st2.Lines != st.Lines {
				t.Errorf("resolving again: %+v", st2)
			}
		})
	}
}

func TestResolveSameKeyOrder(t *testing.T) {
	// Lines of one key keep ts order whichever side they came from.
	k1 := mkLine("same", "fact", "v1", 100)
	k2 := mkLine("same", "fact", "v2", 200)
	k3 := mkLine("same", "fact", "v3", 300)
	out, _ := resolveData([]byte("<<<<<<< HEAD\n" + k3 + "\n" + k1 + "\n=======\n" + k2 + "\n>>>>>>> b\n"))
	if want := k1 + "\n" + k2 + "\n" + k3 + "\n"; string(out) != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
}

func TestConflictLines(t *testing.T) {
	data := tl1 + "\r\n<<<<<<< HEAD\n" + tl2 + "\n||||||| base\n=======\n  >>>>>>> b  \n======== no\n" + `{"content":"======="}` + "\n"
	if got := ConflictLines([]byte(data)); !slices.Equal(got, []int{2, 4, 5, 6}) {
		t.Errorf("ConflictLines = %v, want [2 4 5 6]", got)
	}
	// The reader counts the same lines as conflict markers.
	var lines []int
	rep := Parse([]byte(data), func(Record) {})
	for _, p := range rep.Problems {
		if p.Kind == ProblemConflictMarker {
			lines = append(lines, p.Line)
		}
	}
	if !slices.Equal(lines, []int{2, 4, 5, 6}) {
		t.Errorf("Parse reports conflict markers on %v, want [2 4 5 6]", lines)
	}
	if ConflictLines([]byte(tl1+"\n"+tl2)) != nil {
		t.Error("markers found in a clean log")
	}
}

func TestStoreResolve(t *testing.T) {
	s := newTestStore(t)
	a := mkLine("sa", "fact", "alpha", 10)
	b := mkLine("sb", "fact", "bravo", 11)
	c := mkLine("sc", "fact", "charlie", 12)
	logIn := a + "\n<<<<<<< HEAD\n" + b + "\n=======\n" + c + "\n>>>>>>> feature\n"
	writeLog(t, s, logIn)
	res, err := s.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	want, _ := resolveData([]byte(logIn))
	if got := readLog(t, s); !bytes.Equal(got, want) {
		t.Errorf("log after Resolve:\n%s\nwant\n%s", got, want)
	}
	if !res.Changed() || !res.Log.Resolved || res.Log.Name != LogName || res.Log.Markers != 3 || res.Log.Kept != 2 {
		t.Errorf("result = %+v", res)
	}
	if res.Archive.Resolved || res.Archive.Name != ArchiveName {
		t.Errorf("archive (missing) resolved: %+v", res.Archive)
	}
	if _, err := os.Stat(s.ArchivePath()); !os.IsNotExist(err) {
		t.Errorf("Resolve created the archive: %v", err)
	}

	// A second run finds nothing and writes nothing.
	before := readLog(t, s)
	res, err = s.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	if res.Changed() || !bytes.Equal(readLog(t, s), before) {
		t.Errorf("second Resolve changed something: %+v", res)
	}

	// A log without markers is left byte for byte, even unsorted, with
	// CRLF and duplicates; the archive with markers is resolved.
	messy := c + "\r\n" + a + "\n" + a + "\n"
	writeLog(t, s, messy)
	archIn := "<<<<<<< HEAD\n" + b + "\n=======\n" + b + "\n>>>>>>> feature\n"
	if err := os.WriteFile(s.ArchivePath(), []byte(archIn), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err = s.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	if string(readLog(t, s)) != messy || res.Log.Resolved {
		t.Errorf("a log without markers was rewritten: %+v", res.Log)
	}
	arch, err := os.ReadFile(s.ArchivePath())
	if err != nil {
		t.Fatal(err)
	}
	if string(arch) != b+"\n" || !res.Archive.Resolved || res.Archive.Duplicates != 1 || res.Archive.Kept != 1 {
		t.Errorf("archive after Resolve = %q, %+v", arch, res.Archive)
	}
}

func TestStoreResolveRefusesALink(t *testing.T) {
	s := newTestStore(t)
	target := s.Dir + "/../elsewhere.jsonl"
	if err := os.WriteFile(target, []byte("<<<<<<< HEAD\n=======\n>>>>>>> b\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(s.LogPath()); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, s.LogPath()); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Resolve(); err == nil {
		t.Fatal("Resolve followed a symlinked log")
	}
	if data, _ := os.ReadFile(target); string(data) != "<<<<<<< HEAD\n=======\n>>>>>>> b\n" {
		t.Errorf("the link's target was changed: %q", data)
	}
}

// FuzzResolve: resolving any data never loses a line that is not blank
// and not a marker, never invents one, leaves no marker and no duplicate,
// leaves the keyed lines in log order before the others, and resolving
// the result again changes nothing.
func FuzzResolve(f *testing.F) {
	for _, s := range messySeeds() {
		f.Add([]byte(s))
	}
	f.Add([]byte(tl1 + "\n<<<<<<< HEAD\n" + tl2 + "\n||||||| base\n" + tl1 + "\n" + tl3 + "\n=======\n" + tl3 + "\n>>>>>>> b\n"))
	f.Add([]byte("<<<<<<< a\r\n" + tl3 + "\r\n=======\r\n" + tl2 + "\r\n>>>>>>> b"))
	f.Add([]byte("\xef\xbb\xbf\xef\xbb\xbf" + tl1 + "\r\r\n=======\n======== x\n" + tl1))
	f.Fuzz(func(t *testing.T, data []byte) {
		out, st := resolveData(data)
		lines := resolvedLines(t, out)
		have := map[string]bool{}
		for _, l := range lines {
			if have[l] {
				t.Fatalf("line twice in the output: %q", l)
			}
			have[l] = true
			if isMarkerLine([]byte(l)) {
				t.Fatalf("marker left in the output: %q", l)
			}
			if len(bytes.TrimSpace([]byte(l))) == 0 {
				t.Fatalf("blank line in the output")
			}
		}
		// Every input line (a line as the reader splits it, with leading
		// BOMs and trailing CRs dropped) that is not blank and not a
		// marker is in the output, and nothing else is.
		in := map[string]bool{}
		markers := 0
		for _, l := range bytes.Split(data, []byte("\n")) {
			for bytes.HasPrefix(l, bom) {
				l = l[len(bom):]
			}
			l = bytes.TrimRight(l, "\r")
			switch {
			case len(bytes.TrimSpace(l)) == 0:
			case isMarkerLine(l):
				markers++
			default:
				in[string(l)] = true
				if !have[string(l)] {
					t.Fatalf("input line lost: %q", l)
				}
			}
		}
		for l := range have {
			if !in[l] {
				t.Fatalf("output line not in the input: %q", l)
			}
		}
		if st.Markers != markers || st.Lines != len(lines) || len(ConflictLines(data)) != markers {
			t.Fatalf("stats %+v for %d markers and %d lines (ConflictLines %v)", st, markers, len(lines), ConflictLines(data))
		}
		// Keyed lines (as the store places them) in order, then the rest.
		var prev sortPos
		keyed, keyless := false, false
		for _, l := range lines {
			p, ok := lineSortPos([]byte(l))
			if !ok {
				keyless = true
				continue
			}
			if keyless {
				t.Fatalf("keyed line %q after a line without a key", l)
			}
			if keyed && p.less(prev) {
				t.Fatalf("line %q out of order", l)
			}
			prev, keyed = p, true
		}
		again, st2 := resolveData(out)
		if !bytes.Equal(again, out) {
			t.Fatalf("not idempotent:\n%q\nthen\n%q", out, again)
		}
		if st2.Markers != 0 || st2.Duplicates != 0 || st2.Blank != 0 || st2.Hunks != 0 {
			t.Fatalf("second resolution found work: %+v", st2)
		}
	})
}

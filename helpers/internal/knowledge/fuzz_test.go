package knowledge

import (
	"bytes"
	"strings"
	"testing"
)

// messySeeds are logs with every kind of damage the reader must tolerate.
func messySeeds() []string {
	messy, _ := messyLog()
	return []string{
		"",
		"\n",
		tl1 + "\n" + tl2 + "\n",
		"\xef\xbb\xbf" + tl1 + "\n",
		tl1 + "\r\n" + tl2 + "\r\n",
		"\n\n" + tl1 + "\n\n",
		"<<<<<<< HEAD\n" + tl1 + "\n||||||| base\n=======\n" + tl2 + "\n>>>>>>> b\n",
		`{"key":"broken",` + "\n" + tl1 + "\n",
		tl1 + "\n" + `{"key":"k3","type":"deci`,
		tl1 + "\n" + tl2,
		encodeN(tl1, 1) + "\n" + encodeN(tl2, 2) + "\n" + encodeN(tl3, 3) + "\n",
		tl1 + tl2 + tl3 + "\n",
		`{"key":"a","type":"fact","content":"c","ts":1.5e9,"tags":"x, y"}` + "\n",
		`{"key":"a","type":"fact","content":"c","ts":"17"}` + "\n",
		`{"key":"a","type":"fact","content":"c"}` + "\n" + `{"key":"a","type":"fact","ts":1}` + "\n",
		`"{\"key\":\"x\"}"` + "\n",
		`{}{}` + "\n",
		`{"a":1}{"b":` + "\n",
		messy,
		strings.Repeat("x\n", MaxProblems+5),
	}
}

// FuzzParse: the reader never panics on any input; every record it yields
// is a valid entry; its report agrees with what it yielded.
func FuzzParse(f *testing.F) {
	for _, s := range messySeeds() {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var recs []Record
		rep := Parse(data, func(r Record) { recs = append(recs, r) })
		lines, torn := Lines(data)
		if rep.Entries != len(recs) {
			t.Fatalf("report says %d entries, %d yielded", rep.Entries, len(recs))
		}
		if rep.Lines != len(lines) {
			t.Fatalf("report says %d lines, Lines has %d", rep.Lines, len(lines))
		}
		body := bytes.TrimPrefix(data, bom)
		wantLines := bytes.Count(body, []byte("\n"))
		if torn {
			wantLines++
		}
		if len(lines) != wantLines || torn != (len(body) > 0 && body[len(body)-1] != '\n') {
			t.Fatalf("Lines = %d lines, torn %v for %d newlines", len(lines), torn, bytes.Count(body, []byte("\n")))
		}
		sum := 0
		for _, n := range rep.ByKind {
			sum += n
		}
		if sum != rep.Skipped+rep.Repaired {
			t.Fatalf("by kind sums to %d, skipped+repaired %d", sum, rep.Skipped+rep.Repaired)
		}
		if len(rep.Problems) > MaxProblems || len(rep.Problems) > sum {
			t.Fatalf("%d problems listed", len(rep.Problems))
		}
		if rep.Blank > rep.Lines {
			t.Fatalf("blank %d > lines %d", rep.Blank, rep.Lines)
		}
		prev := 0
		withRecord := map[int]bool{}
		for _, r := range recs {
			if err := r.Entry.Validate(); err != nil {
				t.Fatalf("record on line %d does not validate: %v", r.Line, err)
			}
			if r.Line < 1 || r.Line > rep.Lines || r.Line < prev {
				t.Fatalf("record line %d out of range or order (prev %d, lines %d)", r.Line, prev, rep.Lines)
			}
			prev = r.Line
			withRecord[r.Line] = true
			if !bytes.Equal(r.Raw, lines[r.Line-1]) {
				t.Fatalf("record raw %q is not line %d %q", r.Raw, r.Line, lines[r.Line-1])
			}
			if e, err := DecodeEntry(r.JSON); err != nil || e.Key != r.Entry.Key || e.TS != r.Entry.TS {
				t.Fatalf("record JSON does not decode to its entry: %v", err)
			}
		}
		// Every non-blank line yields an entry or is counted as skipped.
		nonBlank := rep.Lines - rep.Blank
		if nonBlank > len(withRecord)+rep.Skipped {
			t.Fatalf("%d non-blank lines, %d with entries, %d skipped", nonBlank, len(withRecord), rep.Skipped)
		}
		for _, p := range rep.Problems {
			if p.Line < 1 || p.Line > rep.Lines {
				t.Fatalf("problem on line %d of %d", p.Line, rep.Lines)
			}
		}
		Latest(recs)
	})
}

// FuzzInsertSorted: inserting an entry into any existing data never loses
// or alters an existing line; every entry the reader found before is still
// found, with the new one; and a sorted log stays sorted.
func FuzzInsertSorted(f *testing.F) {
	for i, s := range messySeeds() {
		f.Add([]byte(s), "learned", "seed entry number "+strings.Repeat("x", i), int64(1000+i))
	}
	sorted := tsLog("fz", 20)
	f.Add([]byte(strings.Join(sorted, "\n")+"\n"), "fact", "into a sorted log", int64(7))
	f.Add([]byte(strings.Join(sorted, "\r\n")), "fact", "into a sorted CRLF log", int64(7))
	f.Add([]byte("\xef\xbb\xbf"+strings.Join(sorted, "\n")+"\n"), "fact", "into a sorted log with a BOM", int64(7))
	f.Fuzz(func(t *testing.T, data []byte, typ, content string, ts int64) {
		if !ValidType(typ) {
			typ = Types[len(typ)%len(Types)]
		}
		if ts <= 0 {
			ts = 1
		}
		if strings.TrimSpace(content) == "" {
			content = "x"
		}
		e := Entry{Key: MakeKey(typ, content), Type: typ, Content: content, TS: ts}
		newLine, err := Marshal(&e)
		if err != nil {
			t.Fatal(err)
		}
		out := insertSorted(data, [][]byte{newLine})
		// A leading BOM is dropped by design (it would otherwise end up
		// in the middle of the file); every line is otherwise kept.
		checkSubsequence(t, bytes.TrimPrefix(data, bom), out, []string{string(newLine)})

		before := map[string]int{}
		Parse(data, func(r Record) { before[string(r.JSON)]++ })
		after := map[string]int{}
		Parse(out, func(r Record) { after[string(r.JSON)]++ })
		before[string(newLine)]++
		for js, n := range before {
			if after[js] < n {
				t.Fatalf("entry lost by the insertion: %s\nbefore: %q\nafter:  %q", js, data, out)
			}
		}
		if allWellFormed(data) && sortedErr(data) == nil {
			if err := sortedErr(out); err != nil {
				t.Fatalf("sorted log unsorted by insertion: %v", err)
			}
		}
	})
}

// allWellFormed reports whether every non-blank line is an entry exactly
// as cairn writes it (so the test's recomputed order and the code's agree
// on every line's place).
func allWellFormed(data []byte) bool {
	for _, l := range physLines(data) {
		l = strings.TrimSuffix(strings.TrimPrefix(l, "\xef\xbb\xbf"), "\r")
		if l == "" {
			continue
		}
		e, err := DecodeEntry([]byte(l))
		if err != nil {
			return false
		}
		b, err := Marshal(&e)
		if err != nil || string(b) != l {
			return false
		}
	}
	return true
}

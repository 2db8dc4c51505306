package knowledge

import (
	"bytes"
	"hash/maphash"
	"slices"
	"unicode/utf8"
)

// LogFiles is one state of the log and its archive, as files: what
// [CompareFiles] compares.
type LogFiles struct {
	Log, Archive LogFile
}

// LogFile is one file of a state. ID names its content (a git blob id;
// "" when unknown): two files of one ID are the same and neither is read.
// Read returns the content (nil for a missing file); it is called at most
// once, and not at all when nothing needs the file. The two states' Reads
// of a file may run at once, on two goroutines.
//
// Index, when set, is [IndexLines] of what Read returns, for a caller
// that keeps a file's index across comparisons (a commit's log, compared
// again after the working tree's moved); CompareFiles then calls it, not
// Read, for the file of the state before.
type LogFile struct {
	ID    string
	Read  func() ([]byte, error)
	Index func() (*LineIndex, error)
}

// Data is a LogFile of content already read.
func Data(data []byte) LogFile {
	return LogFile{Read: func() ([]byte, error) { return data, nil }}
}

// CompareFiles is [Compare] of the records of two states of the log and
// its archive, paid for by the change rather than by the log: it parses
// the lines that one state has and the other has not (a line's place does
// not count: the latest line of a key does not depend on it), and then
// only the lines of the keys those lines name, with the entries that the
// changed ones say replace them. A file the same in both states (by ID,
// else by content) has no changed line. The changes are those Compare
// gives for the whole of both states.
func CompareFiles(before, after LogFiles) ([]Change, error) {
	pairs := [2][2]LogFile{{before.Log, after.Log}, {before.Archive, after.Archive}}
	var lines [2]*LineIndex    // before's log and archive
	var gone, come [2][][]byte // the lines only before has, and only after
	// The keys of the changed lines, and the entries they say replace them.
	want := map[string]bool{}
	for i, pair := range pairs {
		if same(pair[0], pair[1]) {
			continue // read below if a changed key needs it
		}
		xb, da, err := readBoth(pair[0], pair[1])
		if err != nil {
			return nil, err
		}
		lines[i] = xb
		if bytes.Equal(xb.data, da) {
			continue
		}
		gone[i], come[i] = changedLines(xb, split(da))
		for _, l := range append(gone[i], come[i]...) {
			parseLine(l, false, func(Problem) {}, func(_ []byte, e Entry) { want[e.Key] = true })
		}
	}
	if len(want) == 0 {
		return nil, nil
	}
	for i, pair := range pairs {
		if lines[i] == nil { // the same in both
			x, err := index(pair[0])
			if err != nil {
				return nil, err
			}
			lines[i] = x
		}
	}
	// Before's lines of the wanted keys are read; after has the same
	// lines but the gone ones, and the come ones.
	var recB, recA []Record
	for round := 0; len(want) > 0; round++ {
		more := map[string]bool{}
		keep := func(recs []Record, side *[]Record) {
			*side = append(*side, recs...)
			for _, r := range recs {
				if s := r.Entry.SupersededBy; round == 0 && s != "" && !want[s] {
					more[s] = true
				}
			}
		}
		for f := range 2 {
			left := map[string]int{}
			for _, l := range gone[f] {
				left[string(l)]++
			}
			linesOf(lines[f].of(want), want, f == 1, func(line []byte, recs []Record) {
				keep(recs, &recB)
				if n := left[string(line)]; n > 0 {
					left[string(line)] = n - 1
				} else {
					keep(recs, &recA)
				}
			})
			if round == 0 {
				linesOf(come[f], want, f == 1, func(_ []byte, recs []Record) { keep(recs, &recA) })
			}
		}
		// The entries replacing a changed one are read as they are (an
		// unchanged key adds no change, and no changed line holds one),
		// for the superseded change to show its replacement; they need no
		// replacements of their own.
		want = more
	}
	return Compare(recB, recA), nil
}

// same reports whether two files are known to be the same by their IDs.
func same(x, y LogFile) bool { return x.ID != "" && x.ID == y.ID }

// readBoth indexes x and reads y at once (each a git process, for a
// commit's).
func readBoth(x, y LogFile) (ix *LineIndex, dy []byte, err error) {
	done := make(chan error, 1)
	go func() {
		var err error
		dy, err = read(y)
		done <- err
	}()
	ix, err = index(x)
	if errY := <-done; err == nil {
		err = errY
	}
	return ix, dy, err
}

func read(f LogFile) ([]byte, error) {
	if f.Read == nil {
		return nil, nil
	}
	return f.Read()
}

// index is f's Index, else IndexLines of its content.
func index(f LogFile) (*LineIndex, error) {
	if f.Index != nil {
		return f.Index()
	}
	data, err := read(f)
	if err != nil {
		return nil, err
	}
	return IndexLines(data), nil
}

// split returns the lines of data, trimmed, blank ones left out, as
// [ParseEach] reads them.
func split(data []byte) [][]byte {
	lines, _ := Lines(data)
	out := lines[:0]
	for _, l := range lines {
		if l = bytes.TrimSpace(l); len(l) > 0 {
			out = append(out, l)
		}
	}
	return out
}

// LineIndex is a file's lines (split) made ready for [CompareFiles] to
// find those another state has not and those of some keys, without
// reading the file again: each line's hash, and the lines by the key
// [quickKey] reads. It is not changed once made, and may be used by
// several comparisons at once.
type LineIndex struct {
	data  []byte
	lines [][]byte
	// first is a hash's first distinct line, + 1; next the next distinct
	// line of the same hash, + 1; orig a line's first copy.
	first map[uint64]int32
	next  []int32
	orig  []int32
	// byKey are the lines of each key quickKey reads, by the key's hash
	// (a line of another key of the same hash is read, and left out by
	// linesOf); unsure the lines whose key it cannot read.
	byKey  map[uint64][]int32
	unsure []int32
}

// lineSeed seeds the hashes of lines.
var lineSeed = maphash.MakeSeed()

// IndexLines is the LineIndex of data, the content of a log's file.
func IndexLines(data []byte) *LineIndex {
	lines := split(data)
	x := &LineIndex{data: data, lines: lines, first: make(map[uint64]int32, len(lines)),
		next: make([]int32, len(lines)), orig: make([]int32, len(lines)), byKey: make(map[uint64][]int32, len(lines))}
	for i, l := range lines {
		h := maphash.Bytes(lineSeed, l)
		if j := x.find(l, h); j >= 0 {
			x.orig[i] = int32(j)
		} else {
			x.next[i], x.first[h], x.orig[i] = x.first[h], int32(i+1), int32(i)
		}
		if k, ok := quickKey(l); ok {
			h := maphash.Bytes(lineSeed, k)
			x.byKey[h] = append(x.byKey[h], int32(i))
		} else {
			x.unsure = append(x.unsure, int32(i))
		}
	}
	return x
}

// find returns the first line of x equal to l, of hash h, or -1.
func (x *LineIndex) find(l []byte, h uint64) int {
	for j := int(x.first[h]) - 1; j >= 0; j = int(x.next[j]) - 1 {
		if bytes.Equal(x.lines[j], l) {
			return j
		}
	}
	return -1
}

// of returns the lines of x that [linesOf] could find records of want
// in, in order: those of want's keys, and those whose key quickKey
// cannot read.
func (x *LineIndex) of(want map[string]bool) [][]byte {
	idx := slices.Clone(x.unsure)
	for k := range want {
		idx = append(idx, x.byKey[maphash.String(lineSeed, k)]...)
	}
	slices.Sort(idx)
	idx = slices.Compact(idx) // two wanted keys of one hash
	out := make([][]byte, len(idx))
	for i, j := range idx {
		out[i] = x.lines[j]
	}
	return out
}

// changedLines returns the lines that before holds more often than after
// (gone) and after more often than before (come).
func changedLines(before *LineIndex, after [][]byte) (gone, come [][]byte) {
	// The lines both start and end with are kept: a change of one place
	// costs no more.
	b := before.lines
	lo := 0
	for lo < len(b) && len(after) > 0 && bytes.Equal(b[lo], after[0]) {
		lo, after = lo+1, after[1:]
	}
	hi := len(b)
	for hi > lo && len(after) > 0 && bytes.Equal(b[hi-1], after[len(after)-1]) {
		hi, after = hi-1, after[:len(after)-1]
	}
	// Each line of before is counted on its first copy, found by its
	// hash: no line is copied.
	count := make([]int32, len(b))
	for _, j := range before.orig[lo:hi] {
		count[j]++
	}
	// A line is first looked for where the last one found was followed
	// (both states mostly hold the same lines in the same order), then
	// by its hash.
	next := lo
	for _, l := range after {
		j := -1
		if next < hi && bytes.Equal(b[next], l) {
			j, next = int(before.orig[next]), next+1
		} else if k := before.find(l, maphash.Bytes(lineSeed, l)); k >= 0 {
			j, next = k, k+1
		}
		if j >= 0 && count[j] > 0 {
			count[j]--
		} else {
			come = append(come, l)
		}
	}
	for i, n := range count {
		for range n {
			gone = append(gone, b[i])
		}
	}
	return gone, come
}

// ParseKeys is [Parse] of the entries of keys alone: fn is called for
// each record of data whose key is in keys, in file order, as Parse calls
// it. A line whose key [quickKey] reads, and is not wanted, is not
// parsed: reading one entry of a big log costs a scan of it.
func ParseKeys(data []byte, keys map[string]bool, fn func(Record)) {
	lines, torn := Lines(data)
	for i, line := range lines {
		trimmed := bytes.TrimSpace(line)
		if len(trimmed) == 0 || unwanted(trimmed, keys) {
			continue
		}
		parseLine(trimmed, torn && i == len(lines)-1, func(Problem) {}, func(obj []byte, e Entry) {
			if keys[e.Key] {
				fn(Record{Line: i + 1, Raw: line, JSON: obj, Entry: e})
			}
		})
	}
}

// unwanted reports whether the line's entries are surely of none of keys.
func unwanted(line []byte, keys map[string]bool) bool {
	k, ok := quickKey(line)
	return ok && !keys[string(k)]
}

// linesOf calls fn with each of lines (split) that holds records of
// want, and those records (Archived set to archived), in order, as
// ParseKeys reads them.
func linesOf(lines [][]byte, want map[string]bool, archived bool, fn func(line []byte, recs []Record)) {
	var recs []Record
	for _, line := range lines {
		if unwanted(line, want) {
			continue
		}
		recs = recs[:0]
		parseLine(line, false, func(Problem) {}, func(obj []byte, e Entry) {
			if want[e.Key] {
				recs = append(recs, Record{Raw: line, JSON: obj, Entry: e, Archived: archived})
			}
		})
		if len(recs) > 0 {
			fn(line, recs)
		}
	}
}

// quickKey reads the key of a line cairn wrote ({"key":"...", then the
// rest) without parsing it. ok is set only when no entry of the line can
// have another key: the line's only "key" field is its first, valid UTF-8
// with no escape, and no field's name has an escape that could read as
// "key" (\u0060 to \u007f). (A second object glued on would need one of
// those to have a key.) Any other line is for the parser.
func quickKey(line []byte) (key []byte, ok bool) {
	const head = `{"key":"`
	if !bytes.HasPrefix(line, []byte(head)) {
		return nil, false
	}
	rest := line[len(head):]
	end := bytes.IndexByte(rest, '"')
	if end < 0 || bytes.IndexByte(rest[:end], '\\') >= 0 || !utf8.Valid(rest[:end]) {
		return nil, false
	}
	if bytes.Contains(rest, []byte(`"key"`)) {
		return nil, false
	}
	for r := rest; ; {
		i := bytes.Index(r, []byte(`\u00`))
		if i < 0 {
			break
		}
		if r = r[i+4:]; len(r) > 0 && (r[0] == '6' || r[0] == '7') {
			return nil, false
		}
	}
	return rest[:end], true
}

// RecordLines writes records back as the lines they were read from, the
// log's and the archive's apart (by Record.Archived): what [CompareFiles]
// reads of a state given as records. A line's records are one line; the
// lines that held no entry are not there, and read as none.
func RecordLines(recs []Record) (log, archive []byte) {
	var out [2]bytes.Buffer
	last := [2]int{-1, -1}
	for _, r := range recs {
		f := 0
		if r.Archived {
			f = 1
		}
		if r.Line != 0 && r.Line == last[f] {
			continue
		}
		last[f] = r.Line
		out[f].Write(r.Raw)
		out[f].WriteByte('\n')
	}
	return out[0].Bytes(), out[1].Bytes()
}

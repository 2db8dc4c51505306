package knowledge

import (
	"bytes"
	"hash/maphash"
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
type LogFile struct {
	ID   string
	Read func() ([]byte, error)
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
	var lines [2][][]byte      // the lines of before's log and archive
	var gone, come [2][][]byte // the lines only before has, and only after
	var known [2]bool          // lines[i] is read
	// The keys of the changed lines, and the entries they say replace them.
	want := map[string]bool{}
	for i, pair := range pairs {
		if same(pair[0], pair[1]) {
			continue // read below if a changed key needs it
		}
		db, da, err := readBoth(pair[0], pair[1])
		if err != nil {
			return nil, err
		}
		lines[i], known[i] = split(db), true
		if bytes.Equal(db, da) {
			continue
		}
		gone[i], come[i] = changedLines(lines[i], split(da))
		for _, l := range append(gone[i], come[i]...) {
			parseLine(l, false, func(Problem) {}, func(_ []byte, e Entry) { want[e.Key] = true })
		}
	}
	if len(want) == 0 {
		return nil, nil
	}
	for i, pair := range pairs {
		if !known[i] { // the same in both
			data, err := read(pair[0])
			if err != nil {
				return nil, err
			}
			lines[i] = split(data)
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
			linesOf(lines[f], want, f == 1, func(line []byte, recs []Record) {
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

// readBoth reads two files at once (each a git process, for a commit's).
func readBoth(x, y LogFile) (dx, dy []byte, err error) {
	done := make(chan error, 1)
	go func() {
		var err error
		dy, err = read(y)
		done <- err
	}()
	dx, err = read(x)
	if errY := <-done; err == nil {
		err = errY
	}
	return dx, dy, err
}

func read(f LogFile) ([]byte, error) {
	if f.Read == nil {
		return nil, nil
	}
	return f.Read()
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

// changedLines returns the lines that before holds more often than after
// (gone) and after more often than before (come).
func changedLines(before, after [][]byte) (gone, come [][]byte) {
	// The lines both start and end with are kept: a change of one place
	// costs no more.
	for len(before) > 0 && len(after) > 0 && bytes.Equal(before[0], after[0]) {
		before, after = before[1:], after[1:]
	}
	for len(before) > 0 && len(after) > 0 && bytes.Equal(before[len(before)-1], after[len(after)-1]) {
		before, after = before[:len(before)-1], after[:len(after)-1]
	}
	// Each line of before is counted on its first copy, found by its
	// hash (lines of one hash chained through next): no line is copied.
	seed := maphash.MakeSeed()
	first := make(map[uint64]int32, len(before)) // a hash's first line, + 1
	next := make([]int32, len(before))           // the next line of the same hash, + 1
	count := make([]int32, len(before))
	find := func(l []byte, h uint64) int {
		for j := int(first[h]) - 1; j >= 0; j = int(next[j]) - 1 {
			if bytes.Equal(before[j], l) {
				return j
			}
		}
		return -1
	}
	for i, l := range before {
		h := maphash.Bytes(seed, l)
		if j := find(l, h); j >= 0 {
			count[j]++
			continue
		}
		next[i], first[h], count[i] = first[h], int32(i+1), 1
	}
	for _, l := range after {
		if j := find(l, maphash.Bytes(seed, l)); j >= 0 && count[j] > 0 {
			count[j]--
		} else {
			come = append(come, l)
		}
	}
	for i, n := range count {
		for range n {
			gone = append(gone, before[i])
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

package knowledge

import (
	"bytes"
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
// once, and not at all when nothing needs the file.
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
	if same(before.Log, after.Log) && same(before.Archive, after.Archive) {
		return nil, nil
	}
	var b, a [2][]byte // log, archive
	var err error
	for i, pair := range [2][2]LogFile{{before.Log, after.Log}, {before.Archive, after.Archive}} {
		if b[i], err = read(pair[0]); err != nil {
			return nil, err
		}
		if same(pair[0], pair[1]) {
			a[i] = b[i]
		} else if a[i], err = read(pair[1]); err != nil {
			return nil, err
		}
	}
	// The keys of the changed lines, and the entries they say replace them.
	want := map[string]bool{}
	for i := range 2 {
		gone, come := changedLines(b[i], a[i])
		for _, l := range append(gone, come...) {
			parseLine(l, false, func(Problem) {}, func(_ []byte, e Entry) { want[e.Key] = true })
		}
	}
	if len(want) == 0 {
		return nil, nil
	}
	var recB, recA []Record
	for round := 0; len(want) > 0; round++ {
		more := map[string]bool{}
		for i, side := range [2]*[]Record{&recB, &recA} {
			data := [2][]byte{b[0], b[1]}
			if i == 1 {
				data = [2][]byte{a[0], a[1]}
			}
			for f := range 2 {
				linesOf(data[f], want, func(r Record) {
					r.Archived = f == 1
					*side = append(*side, r)
					if s := r.Entry.SupersededBy; round == 0 && s != "" && !want[s] {
						more[s] = true
					}
				})
			}
		}
		// The entries replacing a changed one are read as they are (an
		// unchanged key adds no change), for the superseded change to
		// show its replacement; they need no replacements of their own.
		want = more
	}
	return Compare(recB, recA), nil
}

// same reports whether two files are known to be the same by their IDs.
func same(x, y LogFile) bool { return x.ID != "" && x.ID == y.ID }

func read(f LogFile) ([]byte, error) {
	if f.Read == nil {
		return nil, nil
	}
	return f.Read()
}

// changedLines returns the lines, trimmed and not blank, that before holds
// more often than after (gone) and after more often than before (come).
func changedLines(before, after []byte) (gone, come [][]byte) {
	if bytes.Equal(before, after) {
		return nil, nil
	}
	bl, _ := Lines(before)
	al, _ := Lines(after)
	// The lines both start and end with are kept: a change of one place
	// costs no more.
	for len(bl) > 0 && len(al) > 0 && bytes.Equal(bl[0], al[0]) {
		bl, al = bl[1:], al[1:]
	}
	for len(bl) > 0 && len(al) > 0 && bytes.Equal(bl[len(bl)-1], al[len(al)-1]) {
		bl, al = bl[:len(bl)-1], al[:len(al)-1]
	}
	count := make(map[string]int, len(bl))
	for _, l := range bl {
		if l = bytes.TrimSpace(l); len(l) > 0 {
			count[string(l)]++
		}
	}
	for _, l := range al {
		if l = bytes.TrimSpace(l); len(l) == 0 {
			continue
		}
		if n := count[string(l)]; n > 0 {
			count[string(l)] = n - 1
		} else {
			come = append(come, l)
		}
	}
	for _, l := range bl {
		if l = bytes.TrimSpace(l); len(l) > 0 && count[string(l)] > 0 {
			count[string(l)]--
			gone = append(gone, l)
		}
	}
	return gone, come
}

// linesOf calls fn for each record of data whose key is in want, in file
// order. A line whose key [quickKey] reads, and is not wanted, is not
// parsed.
func linesOf(data []byte, want map[string]bool, fn func(Record)) {
	lines, torn := Lines(data)
	for i, line := range lines {
		trimmed := bytes.TrimSpace(line)
		if len(trimmed) == 0 {
			continue
		}
		if k, ok := quickKey(trimmed); ok && !want[string(k)] {
			continue
		}
		parseLine(trimmed, torn && i == len(lines)-1, func(Problem) {}, func(obj []byte, e Entry) {
			if want[e.Key] {
				fn(Record{Line: i + 1, Raw: line, JSON: obj, Entry: e})
			}
		})
	}
}

// quickKey reads the key of a line cairn wrote ({"key":"...", then the
// rest) without parsing it. ok is set only when no entry of the line can
// have another key: the line holds one object, whose only "key" field is
// the first, valid UTF-8 with no escape, and no field whose escaped name
// could read as "key" (\u0060 to \u007f). Any other line is for the parser.
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
	if bytes.Contains(rest, []byte(`"key"`)) || bytes.Contains(rest, []byte("}{")) ||
		bytes.Contains(rest, []byte(`\u006`)) || bytes.Contains(rest, []byte(`\u007`)) {
		return nil, false
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

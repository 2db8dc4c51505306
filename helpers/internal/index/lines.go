package index

import (
	"bytes"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"strings"

	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
)

// A sync after a pull costs what the pull brought. Beside the database,
// the cache keeps the list of the lines of each source file as it last
// indexed them, in file order: each line's CRC-32C and length (to see
// that a line is unchanged at memory speed) and its hash (the lines
// table's key). The log is kept in the order of its keys' hashes, so the
// lines of the file now and of the list line up: a merge-join walks both,
// and only where they differ is a line parsed (to tell an insertion from
// a deletion by its place in the order) or the database asked. A list
// that does not describe the database's files (a crash between the two
// writes, an older cache) is not used: the full diff runs, and writes a
// new one.

// linesName is the list's name under .cairn.
const linesName = name + ".lines"

// linesMagic starts the list file.
const linesMagic = "cairn-lines 1\n"

// recSize is the size of one line's record in the list file.
const recSize = 24

// tornBit marks, in a record's size, the file's last line when it has no
// newline: completed later, it is another line.
const tornBit = 1 << 31

// lineRec is what the list keeps of one line.
type lineRec struct {
	crc  uint32
	size uint32 // the line's length, with tornBit for a torn last line
	hash [16]byte
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// quickRec is a line's record without its hash.
func quickRec(line []byte, torn bool) lineRec {
	r := lineRec{crc: crc32.Checksum(line, castagnoli), size: uint32(len(line))}
	if torn {
		r.size |= tornBit
	}
	return r
}

// sameLine reports whether a and b describe the same line, as far as
// their CRC and length tell. (A line crafted to collide with the one it
// replaces keeps the old line in the cache until a rebuild; whoever can
// commit such a line can commit any line.)
func (a lineRec) sameLine(b lineRec) bool { return a.crc == b.crc && a.size == b.size }

// blank reports whether a line is skipped by the cache (whitespace only).
func blank(line []byte) bool { return len(bytes.TrimSpace(line)) == 0 }

// fileRecs are the quick records of data's non-blank lines, and the
// lines, split as [knowledge.Lines] splits them, in one pass.
func fileRecs(data []byte) ([]lineRec, [][]byte) {
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	n := bytes.Count(data, []byte{'\n'}) + 1
	recs := make([]lineRec, 0, n)
	lines := make([][]byte, 0, n)
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		var line []byte
		torn := i < 0
		if torn {
			line, data = data, nil
		} else {
			line, data = data[:i], data[i+1:]
		}
		if l := len(line); l > 0 && line[l-1] == '\r' {
			line = line[:l-1]
		}
		if (len(line) > 0 && line[0] == '{' && line[len(line)-1] == '}') || !blank(line) {
			recs = append(recs, quickRec(line, torn))
			lines = append(lines, line)
		}
	}
	return recs, lines
}

// saveLines writes the list of the sources' lines, for the files' state
// files (the JSON the database holds as meta 'files').
func (ix *Index) saveLines(files string, recs map[string][]lineRec) error {
	var n int
	for _, src := range ix.sources() {
		n += 8 + recSize*len(recs[src.path])
	}
	buf := make([]byte, 0, len(linesMagic)+len(files)+1+n)
	buf = append(buf, linesMagic...)
	buf = append(buf, files...)
	buf = append(buf, '\n')
	for _, src := range ix.sources() {
		rs := recs[src.path]
		buf = binary.LittleEndian.AppendUint64(buf, uint64(len(rs)))
		for _, r := range rs {
			buf = binary.LittleEndian.AppendUint32(buf, r.crc)
			buf = binary.LittleEndian.AppendUint32(buf, r.size)
			buf = append(buf, r.hash[:]...)
		}
	}
	if err := ix.store.Root().ReplaceFile(linesName, buf, 0o644); err != nil {
		return fmt.Errorf("save the cache's line list: %w", err)
	}
	return nil
}

// errNoLines says the list cannot be used: missing, damaged, or of other
// files than the database's.
var errNoLines = errors.New("no line list for these files")

// loadLines reads the list, if it describes files (meta 'files').
func (ix *Index) loadLines(files string) (map[string][]lineRec, error) {
	data, err := ix.store.Root().ReadFile(linesName, knowledge.MaxLogBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, errNoLines
	}
	if err != nil {
		return nil, err
	}
	head := linesMagic + files + "\n"
	if !strings.HasPrefix(string(data[:min(len(data), len(head))]), head) {
		return nil, errNoLines
	}
	data = data[len(head):]
	recs := map[string][]lineRec{}
	for _, src := range ix.sources() {
		if len(data) < 8 {
			return nil, errNoLines
		}
		n := binary.LittleEndian.Uint64(data)
		data = data[8:]
		if n > uint64(len(data)/recSize) {
			return nil, errNoLines
		}
		rs := make([]lineRec, n)
		for i := range rs {
			rs[i].crc = binary.LittleEndian.Uint32(data)
			rs[i].size = binary.LittleEndian.Uint32(data[4:])
			copy(rs[i].hash[:], data[8:recSize])
			data = data[recSize:]
		}
		recs[src.path] = rs
	}
	if len(data) != 0 {
		return nil, errNoLines
	}
	return recs, nil
}

// place is a line's place in the log's order; ok is false for a line
// with no key.
type place struct {
	hash [32]byte
	ts   int64
	ok   bool
}

func (a place) less(b place) bool {
	if c := bytes.Compare(a.hash[:], b.hash[:]); c != 0 {
		return c < 0
	}
	return a.ts < b.ts
}

// newPlace is the place of a raw line.
func newPlace(line []byte) place {
	key, ts, ok := knowledge.LineKeyTS(line)
	if !ok {
		return place{}
	}
	return place{knowledge.SortKey(key), ts, true}
}

// quickDiff is the difference between the files and the cache found by
// the merge-join: how each line hash's count changes, and the lines to
// add by hash.
type quickDiff struct {
	delta map[[16]byte]int
	lines map[[16]byte]*lineRow // the added lines, by hash
	recs  map[string][]lineRec  // the files' lists, hashes filled
	work  int                   // lines that differed
}

// mergeJoin lines up the files' lines with the list, source by source.
// It gives up (ok false) past maxWork differing lines.
func (ix *Index) mergeJoin(datas map[string][]byte, old map[string][]lineRec, maxWork int) (quickDiff, bool, error) {
	d := quickDiff{delta: map[[16]byte]int{}, lines: map[[16]byte]*lineRow{}, recs: map[string][]lineRec{}}
	placeOf := ix.oldPlaces()
	for _, src := range ix.sources() {
		recs, lines := fileRecs(datas[src.path])
		was := old[src.path]
		i, j := 0, 0
		add := func() {
			torn := recs[i].size&tornBit != 0
			h := hashLine(src.archived, torn, lines[i])
			copy(recs[i].hash[:], h)
			var k [16]byte
			copy(k[:], h)
			d.delta[k]++
			if d.lines[k] == nil {
				d.lines[k] = &lineRow{hash: h, archived: src.archived, json: lines[i], torn: torn}
			}
			d.work++
			i++
		}
		remove := func() {
			d.delta[was[j].hash]--
			d.work++
			j++
		}
		for i < len(recs) || j < len(was) {
			if d.work > maxWork {
				return d, false, nil
			}
			switch {
			case i < len(recs) && j < len(was) && recs[i].sameLine(was[j]):
				recs[i].hash = was[j].hash
				i++
				j++
				continue
			case j == len(was):
				add()
				continue
			case i == len(recs):
				remove()
				continue
			}
			pn := newPlace(lines[i])
			po, err := placeOf(was[j].hash)
			if err != nil {
				return d, false, err
			}
			switch {
			case !pn.ok:
				add()
			case !po.ok:
				remove()
			case pn.less(po):
				add()
			case po.less(pn):
				remove()
			default: // the same place, another line
				add()
				remove()
			}
		}
		d.recs[src.path] = recs
	}
	for h, n := range d.delta {
		if n == 0 {
			delete(d.delta, h) // moved, not changed
		}
	}
	return d, true, nil
}

// oldPlaces returns a lookup of the place of a cache line, by hash.
func (ix *Index) oldPlaces() func([16]byte) (place, error) {
	return func(h [16]byte) (place, error) {
		var key string
		var ts int64
		err := ix.db.QueryRow(`SELECT key, ts FROM lines WHERE hash=?`, h[:]).Scan(&key, &ts)
		if err != nil {
			return place{}, dbErr("read cache line", err)
		}
		if key == "" {
			return place{}, nil
		}
		return place{knowledge.SortKey(key), ts, true}, nil
	}
}

// lineDiffOf turns a merge-join's counts into the lines to add, drop and
// recount, asking the database only about the lines that changed.
func (ix *Index) lineDiffOf(q quickDiff) (lineDiff, error) {
	d := lineDiff{recount: map[string]int{}, keyOf: map[string]string{}}
	for h, delta := range q.delta {
		var n int
		var key string
		err := ix.db.QueryRow(`SELECT n, key FROM lines WHERE hash=? AND parent IS NULL`, h[:]).Scan(&n, &key)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			if delta > 0 {
				r := q.lines[h]
				r.n = delta
				d.added = append(d.added, r)
			}
			continue
		case err != nil:
			return d, dbErr("read cache line", err)
		}
		d.keyOf[string(h[:])] = key
		switch {
		case n+delta <= 0:
			d.removed = append(d.removed, bytes.Clone(h[:]))
			rows, err := ix.db.Query(`SELECT hash, key FROM lines WHERE parent=?`, h[:])
			if err != nil {
				return d, dbErr("read cache line", err)
			}
			for rows.Next() {
				var dh []byte
				var dk string
				if err := rows.Scan(&dh, &dk); err != nil {
					rows.Close()
					return d, dbErr("read cache line", err)
				}
				d.removed = append(d.removed, dh)
				d.keyOf[string(dh)] = dk
			}
			rows.Close()
		default:
			d.recount[string(h[:])] = n + delta
		}
	}
	return d, nil
}

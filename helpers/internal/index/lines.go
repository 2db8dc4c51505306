package index

import (
	"bytes"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"runtime"
	"slices"
	"sync"

	"github.com/cairn-dev/cairn/helpers/internal/fsx"
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

// linesMagic starts the list file. The file ends with the CRC-32C of all
// that precedes it: the list is written in place (a rewrite of a few MB
// costs less than a new file renamed over it), so a write cut short
// leaves a file whose sum does not match, which is not used.
const linesMagic = "cairn-lines 2\n"

// recSize is the size of one line's record in the list file.
const recSize = 24

// tornBit marks, in a record's size, the file's last line when it has no
// newline: completed later, it is another line.
const tornBit = 1 << 31

// lineRec is what the list keeps of one line (crc, size and hash), and,
// in memory, where the line is in its file.
type lineRec struct {
	crc  uint32
	size uint32 // the line's length, with tornBit for a torn last line
	hash [16]byte
	off  int64 // the line's offset in the file read; not in the list
}

// line is the record's line in data, the file it was made from.
func (r lineRec) line(data []byte) []byte {
	return data[r.off : r.off+int64(r.size&^tornBit)]
}

// castagnoli is the CRC-32C table, made on first use: every process
// (every hook) would pay for it at start otherwise.
var castagnoli = sync.OnceValue(func() *crc32.Table { return crc32.MakeTable(crc32.Castagnoli) })

// quickRec is a line's record without its hash.
func quickRec(line []byte, torn bool) lineRec {
	r := lineRec{crc: crc32.Checksum(line, castagnoli()), size: uint32(len(line))}
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

// fileRecs are the quick records of data's non-blank lines, split as
// [knowledge.Lines] splits them, with their offsets. A big file is split
// in as many parts as there are cores, each recorded by its own goroutine
// (CRC and line split are most of a sync after a pull). data may be
// mapped: a fault on it is returned as an error (see [fsx.Guard]).
func fileRecs(data []byte) ([]lineRec, error) {
	var base int
	if bytes.HasPrefix(data, []byte("\ufeff")) {
		base = len("\ufeff")
	}
	parts := 1
	if len(data) >= recsPartBytes {
		parts = min(runtime.GOMAXPROCS(0), len(data)/(recsPartBytes/2))
	}
	return splitRecs(data[base:], base, parts)
}

// splitRecs is fileRecs of body, which starts at offset base of its file,
// in at most parts parts.
func splitRecs(body []byte, base, parts int) ([]lineRec, error) {
	bounds := []int{0}
	for k := 1; k < parts; k++ {
		at := len(body) * k / parts
		if at <= bounds[len(bounds)-1] {
			continue
		}
		i := bytes.IndexByte(body[at:], '\n')
		if i < 0 || at+i+1 == len(body) {
			break
		}
		bounds = append(bounds, at+i+1)
	}
	bounds = append(bounds, len(body))
	recs := make([][]lineRec, len(bounds)-1)
	errs := make([]error, len(recs))
	var wg sync.WaitGroup
	for c := range recs {
		part := func() {
			errs[c] = fsx.Guard(func() {
				recs[c] = partRecs(body[bounds[c]:bounds[c+1]], int64(base+bounds[c]))
			})
		}
		if c == len(recs)-1 {
			part()
			continue
		}
		wg.Go(part)
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	if len(recs) == 1 {
		return recs[0], nil
	}
	return slices.Concat(recs...), nil
}

// recsPartBytes is the least size of file that fileRecs splits.
const recsPartBytes = 4 << 20

// partRecs are the records of the lines of part, which starts at offset
// off of its file and at a line's start; only its end may be a torn line.
func partRecs(part []byte, off int64) []lineRec {
	recs := make([]lineRec, 0, len(part)/256+16)
	for len(part) > 0 {
		i := bytes.IndexByte(part, '\n')
		var line []byte
		torn := i < 0
		if torn {
			line, part = part, nil
		} else {
			line, part = part[:i], part[i+1:]
		}
		at := off
		off += int64(len(line)) + 1
		if l := len(line); l > 0 && line[l-1] == '\r' {
			line = line[:l-1]
		}
		if (len(line) > 0 && line[0] == '{' && line[len(line)-1] == '}') || !blank(line) {
			r := quickRec(line, torn)
			r.off = at
			recs = append(recs, r)
		}
	}
	return recs
}

// saveLines writes the list of the sources' lines, for the files' state
// files (the JSON the database holds as meta 'files'), in place.
func (ix *Index) saveLines(files string, recs map[string][]lineRec) error {
	var n int
	for _, src := range ix.sources() {
		n += 8 + recSize*len(recs[src.path])
	}
	buf := make([]byte, 0, len(linesMagic)+len(files)+1+n+4)
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
	buf = binary.LittleEndian.AppendUint32(buf, crc32.Checksum(buf, castagnoli()))
	f, err := ix.store.Root().OpenFile(linesName, os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("save the cache's line list: %w", err)
	}
	_, err = f.WriteAt(buf, 0)
	if err == nil {
		err = f.Truncate(int64(len(buf)))
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("save the cache's line list: %w", err)
	}
	return nil
}

// errNoLines says the list cannot be used: missing, damaged, or of other
// files than the database's.
var errNoLines = errors.New("no line list for these files")

// recList is one source's records as the list file holds them.
type recList []byte

func (l recList) len() int { return len(l) / recSize }

// at is the j-th record, without offset.
func (l recList) at(j int) lineRec {
	b := l[j*recSize : (j+1)*recSize]
	r := lineRec{crc: binary.LittleEndian.Uint32(b), size: binary.LittleEndian.Uint32(b[4:])}
	copy(r.hash[:], b[8:])
	return r
}

// withLines calls fn with the list, mapped (fn must keep no part of it),
// if it describes files (meta 'files'); else (missing, damaged, a link in
// its place) it returns errNoLines.
func (ix *Index) withLines(files string, fn func(old map[string]recList) error) error {
	called := false
	err := ix.store.Root().MapFile(linesName, knowledge.MaxLogBytes, func(data []byte) error {
		called = true
		old, ok := parseLines(data, files, ix.sources())
		if !ok {
			return errNoLines
		}
		return fn(old)
	})
	if !called && err != nil {
		return errNoLines
	}
	return err
}

// parseLines splits a list file's data into its sources' records, if it
// is a whole list of files.
func parseLines(data []byte, files string, srcs []source) (map[string]recList, bool) {
	if len(data) < 4 {
		return nil, false
	}
	sum := binary.LittleEndian.Uint32(data[len(data)-4:])
	data = data[:len(data)-4]
	if crc32.Checksum(data, castagnoli()) != sum {
		return nil, false
	}
	head := linesMagic + files + "\n"
	if !bytes.HasPrefix(data, []byte(head)) {
		return nil, false
	}
	data = data[len(head):]
	old := map[string]recList{}
	for _, src := range srcs {
		if len(data) < 8 {
			return nil, false
		}
		n := binary.LittleEndian.Uint64(data)
		data = data[8:]
		if n > uint64(len(data)/recSize) {
			return nil, false
		}
		old[src.path] = recList(data[:n*recSize])
		data = data[n*recSize:]
	}
	return old, len(data) == 0
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
	// changed holds the files with a line that differed, by path.
	changed map[string]bool
}

// beforeMergeJoin, when set by a test, runs once the files are mapped,
// before the merge-join reads them.
var beforeMergeJoin func()

// mergeJoin lines up the files' lines with the list, source by source.
// It gives up (ok false) when about half of the lines differ.
func (ix *Index) mergeJoin(datas map[string][]byte, old map[string]recList) (quickDiff, bool, error) {
	var n int
	for _, rs := range old {
		n += rs.len()
	}
	maxWork := n/2 + 64
	d := quickDiff{delta: map[[16]byte]int{}, lines: map[[16]byte]*lineRow{}, recs: map[string][]lineRec{}, changed: map[string]bool{}}
	placeOf, done, err := ix.oldPlaces()
	if err != nil {
		return quickDiff{}, false, err
	}
	defer done()
	if beforeMergeJoin != nil {
		beforeMergeJoin()
	}
	for _, src := range ix.sources() {
		data := datas[src.path]
		recs, err := fileRecs(data)
		if err != nil {
			return d, false, err
		}
		was := old[src.path]
		work := d.work
		i, j := 0, 0
		add := func() {
			torn := recs[i].size&tornBit != 0
			line := recs[i].line(data)
			h := hashLine(src.archived, torn, line)
			copy(recs[i].hash[:], h)
			var k [16]byte
			copy(k[:], h)
			d.delta[k]++
			if d.lines[k] == nil {
				d.lines[k] = &lineRow{hash: h, archived: src.archived, json: line, torn: torn}
			}
			d.work++
			i++
		}
		remove := func() {
			d.delta[was.at(j).hash]--
			d.work++
			j++
		}
		for i < len(recs) || j < was.len() {
			if d.work > maxWork {
				return d, false, nil
			}
			switch {
			case i < len(recs) && j < was.len():
				if w := was.at(j); recs[i].sameLine(w) {
					recs[i].hash = w.hash
					i++
					j++
					continue
				}
			case j == was.len():
				add()
				continue
			default: // i == len(recs)
				remove()
				continue
			}
			pn := newPlace(recs[i].line(data))
			po, err := placeOf(was.at(j).hash)
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
		d.changed[src.path] = d.work > work
	}
	for h, n := range d.delta {
		if n == 0 {
			delete(d.delta, h) // moved, not changed
		}
	}
	return d, true, nil
}

// oldPlaces returns a lookup of the place of a cache line, by hash, and
// a func that frees it.
func (ix *Index) oldPlaces() (func([16]byte) (place, error), func(), error) {
	st, err := ix.db.Prepare(`SELECT key, ts FROM lines WHERE hash=?`)
	if err != nil {
		return nil, nil, dbErr("read cache line", err)
	}
	return func(h [16]byte) (place, error) {
		var key string
		var ts int64
		if err := st.QueryRow(h[:]).Scan(&key, &ts); err != nil {
			return place{}, dbErr("read cache line", err)
		}
		if key == "" {
			return place{}, nil
		}
		return place{knowledge.SortKey(key), ts, true}, nil
	}, func() { st.Close() }, nil
}

// lineDiffOf turns a merge-join's counts into the lines to add, drop and
// recount, asking the database only about the lines that changed.
func (ix *Index) lineDiffOf(q quickDiff) (lineDiff, error) {
	d := lineDiff{recount: map[string]int{}, keyOf: map[string]string{}}
	if len(q.delta) == 0 {
		return d, nil
	}
	line, err := ix.db.Prepare(`SELECT n, key FROM lines WHERE hash=? AND parent IS NULL`)
	if err != nil {
		return d, dbErr("read cache line", err)
	}
	defer line.Close()
	for h, delta := range q.delta {
		var n int
		var key string
		err := line.QueryRow(h[:]).Scan(&n, &key)
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

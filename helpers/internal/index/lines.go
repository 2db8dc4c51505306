package index

import (
	"bytes"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"sync"

	"github.com/cairn-dev/cairn/helpers/internal/fsx"
	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
)

// A sync after a pull costs what the pull brought. Beside the database,
// the cache keeps the list of the lines of each source file as it last
// indexed them, in file order, in groups of consecutive lines: each
// group's span of the file (its bytes, from its first line to the next
// group's) by length and CRC-32C, then each of its lines' CRC-32C and
// length and hash (the lines table's key). The log is kept in the order of
// its keys' hashes, so the file now and the list line up: a merge-join
// walks both, a group whose span is found unchanged at its place is passed
// over whole (one CRC over its bytes: no line split, no record), and
// only where they differ are lines split and compared, a line parsed (to
// tell an insertion from a deletion by its place in the order) or the
// database asked. A list that does not describe the database's files (a
// crash between the two writes, an older cache) is not used: the full diff
// runs, and writes a new one.

// linesName is the list's name under .cairn.
const linesName = name + ".lines"

// linesMagic starts the list file; then come each source's list (its
// length, a little-endian uint64, and its groups), then the files' state
// the list describes (meta 'files'). The file ends with the CRC-32C of all
// that precedes it: the list is written in place (a rewrite of a few MB
// costs less than a new file renamed over it), so a write cut short
// leaves a file whose sum does not match, which is not used.
const linesMagic = "cairn-lines 3\n"

// recSize is the size of one line's record in the list file, and
// groupHead of a group's head (span length, span CRC, line count).
const (
	recSize   = 24
	groupHead = 12
)

// groupLines is how many lines a group of a list written in full holds
// (the last may hold fewer). A catch-up copies the groups it passed over
// and writes the lines it compared in groups of up to 2×groupLines, so
// a pull's new lines join their neighbours' group instead of starting
// their own. At some 300 bytes a line, a group spans about 19 KB: a pull
// of 50 lines compares some 3,000 lines of a 100k log line by line.
const groupLines = 64

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
// replaces keeps the old line in the cache until a rebuild, and so does a
// group's span crafted to collide with the span it replaces; whoever can
// commit such a line can commit any line.)
func (a lineRec) sameLine(b lineRec) bool { return a.crc == b.crc && a.size == b.size }

// blank reports whether a line is skipped by the cache (whitespace only).
func blank(line []byte) bool { return len(bytes.TrimSpace(line)) == 0 }

// offsetIn is the offset in data of line, a part of data's (as
// [knowledge.Lines] returns them).
func offsetIn(data, line []byte) int64 { return int64(cap(data) - cap(line)) }

// lineReader reads the non-blank lines of a file's data one record at a
// time, split as [knowledge.Lines] splits them (after a BOM, on '\n',
// without a trailing '\r'), from offset at. data may be mapped: its reader
// runs under [fsx.Guard].
type lineReader struct {
	data []byte
	at   int64   // where the next line starts
	rec  lineRec // the next non-blank line's record, when peeked
	end  int64   // where the line after rec starts
	ok   bool    // rec and end are read
}

func newLineReader(data []byte) *lineReader {
	r := &lineReader{data: data}
	if bytes.HasPrefix(data, []byte("\ufeff")) {
		r.at = int64(len("\ufeff"))
	}
	return r
}

// peek is the next non-blank line's record, with its offset; false at
// the end of the data.
func (r *lineReader) peek() (lineRec, bool) {
	if r.ok {
		return r.rec, true
	}
	for r.at < int64(len(r.data)) {
		rest := r.data[r.at:]
		i := bytes.IndexByte(rest, '\n')
		line, next := rest, int64(len(r.data))
		torn := i < 0
		if !torn {
			line, next = rest[:i], r.at+int64(i)+1
		}
		at := r.at
		r.at = next
		if l := len(line); l > 0 && line[l-1] == '\r' {
			line = line[:l-1]
		}
		if (len(line) > 0 && line[0] == '{' && line[len(line)-1] == '}') || !blank(line) {
			r.rec = quickRec(line, torn)
			r.rec.off = at
			r.end, r.ok = next, true
			// r.at stays past the line: next() needs nothing more.
			return r.rec, true
		}
	}
	return lineRec{}, false
}

// ahead reports whether one of the few lines after the peeked one is
// same's.
func (r *lineReader) ahead(same func(lineRec) bool) bool {
	a := *r
	for range aheadLines {
		a.next()
		n, ok := a.peek()
		if !ok {
			return false
		}
		if same(n) {
			return true
		}
	}
	return false
}

// aheadLines is how far the merge-join looks, on each side, for a line
// the other side has where they differ.
const aheadLines = 8

// lookAhead reports whether one of the few lines of gs after group g's
// k-th is same's.
func lookAhead(gs []group, g, k int, same func(lineRec) bool) bool {
	for range aheadLines {
		k++
		for g < len(gs) && k >= gs[g].len() {
			k -= gs[g].len()
			g++
		}
		if g == len(gs) {
			return false
		}
		if same(gs[g].at(k)) {
			return true
		}
	}
	return false
}

// next moves past the peeked line.
func (r *lineReader) next() { r.ok = false }

// skip moves the reader to offset at, a line's start.
func (r *lineReader) skip(at int64) { r.at, r.ok = at, false }

// A list of one source's lines, as the file holds it: its groups, one
// after the other, each its head (span length, span CRC, count of lines,
// little-endian uint32s) and its lines' records.
type recList []byte

// group is one group of a list.
type group struct {
	span, crc uint32
	recs      []byte // its records, recSize bytes each
	raw       []byte // the whole group as the list holds it
}

func (g group) len() int { return len(g.recs) / recSize }

// at is the j-th record, without offset.
func (g group) at(j int) lineRec {
	b := g.recs[j*recSize : (j+1)*recSize]
	r := lineRec{crc: binary.LittleEndian.Uint32(b), size: binary.LittleEndian.Uint32(b[4:])}
	copy(r.hash[:], b[8:])
	return r
}

// groups splits l into its groups; false if it is not a list.
func (l recList) groups() ([]group, bool) {
	var gs []group
	for len(l) > 0 {
		if len(l) < groupHead {
			return nil, false
		}
		n := binary.LittleEndian.Uint32(l[8:])
		if n == 0 || uint64(n) > uint64(len(l)-groupHead)/recSize {
			return nil, false
		}
		size := groupHead + int(n)*recSize
		gs = append(gs, group{
			span: binary.LittleEndian.Uint32(l),
			crc:  binary.LittleEndian.Uint32(l[4:]),
			recs: l[groupHead:size],
			raw:  l[:size],
		})
		l = l[size:]
	}
	return gs, true
}

// listFile is a list file being made, in one buffer: the sources' lists
// are added in the order of [Index.sources], each by a listEncoder.
type listFile struct{ buf []byte }

// newListFile starts a list file of about size bytes.
func newListFile(size int) *listFile {
	return &listFile{buf: append(make([]byte, 0, size+4096), linesMagic...)}
}

// listSize guesses the size of the list of datas' lines: some 300 bytes
// of log a line.
func listSize(datas map[string][]byte) int {
	var n int
	for _, data := range datas {
		n += len(data)/300*recSize + len(data)/300/groupLines*groupHead
	}
	return n
}

// source starts the list of the next source, whose data is data: the
// encoder writes its groups of at most max lines into the file.
func (f *listFile) source(data []byte, max int) *listEncoder {
	f.buf = binary.LittleEndian.AppendUint64(f.buf, 0)
	return &listEncoder{data: data, max: max, buf: f.buf, start: len(f.buf)}
}

// end ends the list e wrote.
func (f *listFile) end(e *listEncoder) {
	f.buf = e.finish()
	binary.LittleEndian.PutUint64(f.buf[e.start-8:], uint64(len(f.buf)-e.start))
}

// bytes is the whole file, for the files' state files.
func (f *listFile) bytes(files string) []byte {
	b := append(f.buf, files...)
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli()))
}

// listEncoder writes a source's list as its lines' records come, in
// file order, with their offsets in data: it closes a group at max
// lines, or where a group copied whole follows.
type listEncoder struct {
	data  []byte
	max   int
	buf   []byte
	start int       // where the list starts in buf
	open  []lineRec // the lines of the group not yet written
}

// add appends r, a line's record with its offset and hash.
func (e *listEncoder) add(r lineRec) {
	if len(e.open) == e.max {
		e.close(r.off)
	}
	e.open = append(e.open, r)
}

// close writes the open group, whose span ends at offset end.
func (e *listEncoder) close(end int64) {
	if len(e.open) == 0 {
		return
	}
	span := e.data[e.open[0].off:end]
	e.buf = binary.LittleEndian.AppendUint32(e.buf, uint32(len(span)))
	e.buf = binary.LittleEndian.AppendUint32(e.buf, crc32.Checksum(span, castagnoli()))
	e.buf = binary.LittleEndian.AppendUint32(e.buf, uint32(len(e.open)))
	for _, r := range e.open {
		e.buf = binary.LittleEndian.AppendUint32(e.buf, r.crc)
		e.buf = binary.LittleEndian.AppendUint32(e.buf, r.size)
		e.buf = append(e.buf, r.hash[:]...)
	}
	e.open = e.open[:0]
}

// copyGroup appends g, an old list's group found whole at offset at.
func (e *listEncoder) copyGroup(g group, at int64) {
	e.close(at)
	e.buf = append(e.buf, g.raw...)
}

// finish is the list, its last group closed at the data's end.
func (e *listEncoder) finish() []byte {
	e.close(int64(len(e.data)))
	return e.buf
}

// encodeList is the list of data's lines, whose records (with their
// offsets and hashes) are recs, in groups of groupLines.
func encodeList(data []byte, recs []lineRec) []byte {
	e := &listEncoder{data: data, max: groupLines}
	for _, r := range recs {
		e.add(r)
	}
	return e.finish()
}

// spanAt reports whether g's span is found whole at offset at of data:
// the same length and CRC, ending with a newline (a torn last line may be
// completed later).
func (g group) spanAt(data []byte, at int64) bool {
	end := at + int64(g.span)
	if g.span == 0 || end > int64(len(data)) || data[end-1] != '\n' {
		return false
	}
	return crc32.Checksum(data[at:end], castagnoli()) == g.crc
}

// saveLines writes the list of the sources' lines, lf, for the files'
// state files (the JSON the database holds as meta 'files'), in place.
func (ix *Index) saveLines(files string, lf *listFile) error {
	buf := lf.bytes(files)
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

// withLines calls fn with the list, mapped (fn must keep no part of it),
// if it describes files (meta 'files'); else (missing, damaged, a link in
// its place) it returns errNoLines.
func (ix *Index) withLines(files string, fn func(old map[string][]group) error) error {
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

// parseLines splits a list file's data into its sources' groups, if it
// is a whole list of files.
func parseLines(data []byte, files string, srcs []source) (map[string][]group, bool) {
	if len(data) < 4 {
		return nil, false
	}
	sum := binary.LittleEndian.Uint32(data[len(data)-4:])
	data = data[:len(data)-4]
	if !bytes.HasPrefix(data, []byte(linesMagic)) || !bytes.HasSuffix(data, []byte(files)) ||
		crc32.Checksum(data, castagnoli()) != sum {
		return nil, false
	}
	data = data[len(linesMagic):]
	old := map[string][]group{}
	for _, src := range srcs {
		if len(data) < 8 {
			return nil, false
		}
		n := binary.LittleEndian.Uint64(data)
		data = data[8:]
		if n > uint64(len(data)) {
			return nil, false
		}
		gs, ok := recList(data[:n]).groups()
		if !ok {
			return nil, false
		}
		old[src.path] = gs
		data = data[n:]
	}
	return old, string(data) == files
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
	list  *listFile             // the files' lists
	work  int                   // lines that differed
	// changed holds the files with a line that differed, by path.
	changed map[string]bool
	// compared counts the lines compared one by one (for tests): the
	// rest were passed over in groups.
	compared int
}

// beforeMergeJoin, when set by a test, runs once the files are mapped,
// before the merge-join reads them.
var beforeMergeJoin func()

// splitBytes is the least size of file whose merge-join is done in two
// halves at once: most of its cost is reading the file, once. (A var:
// tests split small files.)
var splitBytes = 4 << 20

// mergeJoin lines up the files' lines with the list, source by source.
// It gives up (ok false) when about half of the lines differ.
//
// Any alignment of the two that pairs only equal lines gives the same
// difference (the lines added and removed, counted by hash): the places
// of the lines, and the groups passed over whole, only keep it short. So
// a big file is joined in two halves at once, split where a line of the
// file's second half is the first of one of the list's groups.
//
// Without keepList (a reader that writes nothing back), the files' new
// list is not made: d.list is nil.
func (ix *Index) mergeJoin(datas map[string][]byte, old map[string][]group, keepList bool) (quickDiff, bool, error) {
	var n, size int
	for _, gs := range old {
		for _, g := range gs {
			n += g.len()
			size += len(g.raw)
		}
	}
	maxWork := n/2 + 64
	d := quickDiff{delta: map[[16]byte]int{}, lines: map[[16]byte]*lineRow{}, changed: map[string]bool{}}
	if keepList {
		d.list = newListFile(size + listSize(datas)/64)
	}
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
		gs := old[src.path]
		at, g2 := splitAt(data, gs)
		var first *listEncoder
		if keepList {
			first = d.list.source(data[:at], 2*groupLines)
		}
		var second joinPart
		var wg sync.WaitGroup
		split := at < int64(len(data))
		if split {
			var size int
			for _, g := range gs[g2:] {
				size += len(g.raw)
			}
			second = joinPart{delta: map[[16]byte]int{}, lines: map[[16]byte]*lineRow{}, maxWork: maxWork}
			if keepList {
				second.enc = &listEncoder{data: data, max: 2 * groupLines, buf: make([]byte, 0, size+size/64+4096)}
			}
			wg.Go(func() {
				second.err = fsx.Guard(func() {
					second.join(src.archived, &lineReader{data: data, at: at}, gs[g2:], placeOf)
				})
			})
		}
		p := joinPart{delta: d.delta, lines: d.lines, maxWork: maxWork, enc: first}
		p.join(src.archived, newLineReader(data[:at]), gs[:g2], placeOf)
		wg.Wait()
		if p.err == nil {
			p.err = second.err
		}
		if p.err != nil {
			return d, false, p.err
		}
		if split {
			if keepList {
				first.buf = append(first.finish(), second.enc.finish()...)
			}
			for h, n := range second.delta {
				d.delta[h] += n
			}
			for h, l := range second.lines {
				if d.lines[h] == nil {
					d.lines[h] = l
				}
			}
		}
		if keepList {
			d.list.end(first)
		}
		work := p.work + second.work
		d.work += work
		d.compared += p.compared + second.compared
		d.changed[src.path] = work > 0
		if d.work > maxWork {
			return d, false, nil
		}
	}
	for h, n := range d.delta {
		if n == 0 {
			delete(d.delta, h) // moved, not changed
		}
	}
	return d, true, nil
}

// splitAt is where the merge-join of data with gs, its old list, splits
// in two: at offset at of data, a line's start, and gs's group g2, whose
// first line is that line. It is the data's end (and gs's) for a file
// too small to split, or with no such line near its middle.
func splitAt(data []byte, gs []group) (at int64, g2 int) {
	if len(data) < splitBytes || len(gs) < 4 {
		return int64(len(data)), len(gs)
	}
	firsts := make(map[[2]uint32]int, len(gs)/2)
	for g := len(gs) - 1; g >= len(gs)/4; g-- {
		r := gs[g].at(0)
		firsts[[2]uint32{r.crc, r.size}] = g
	}
	i := bytes.IndexByte(data[len(data)/2:], '\n')
	if i < 0 {
		return int64(len(data)), len(gs)
	}
	rd := &lineReader{data: data, at: int64(len(data)/2 + i + 1)}
	for range 4 * groupLines {
		r, ok := rd.peek()
		if !ok {
			break
		}
		if g, ok := firsts[[2]uint32{r.crc, r.size}]; ok {
			return r.off, g
		}
		rd.next()
	}
	return int64(len(data)), len(gs)
}

// joinPart is the merge-join of a part of a file with a part of its old
// list: the count of each line hash's change, the lines added, and the
// part's list.
type joinPart struct {
	delta          map[[16]byte]int
	lines          map[[16]byte]*lineRow
	enc            *listEncoder // nil: the part's list is not made
	work, compared int
	maxWork        int // past which it gives up
	err            error
}

// join lines up rd's lines with gs's, for a source of the archive or not.
func (p *joinPart) join(archived bool, rd *lineReader, gs []group, placeOf func([16]byte) (place, error)) {
	data := rd.data
	g, k := 0, 0 // the old line: group g's k-th
	add := func(r lineRec) {
		torn := r.size&tornBit != 0
		line := r.line(data)
		h := hashLine(archived, torn, line)
		copy(r.hash[:], h)
		p.delta[r.hash]++
		if p.lines[r.hash] == nil {
			p.lines[r.hash] = &lineRow{hash: h, archived: archived, json: line, torn: torn}
		}
		if p.enc != nil {
			p.enc.add(r)
		}
		rd.next()
		p.work++
	}
	remove := func() {
		p.delta[gs[g].at(k).hash]--
		p.work++
		k++
	}
	for p.work <= p.maxWork {
		if g < len(gs) && k == gs[g].len() {
			g, k = g+1, 0
			continue
		}
		r, rok := rd.peek()
		wok := g < len(gs)
		if rok && wok && k == 0 && r.sameLine(gs[g].at(0)) && gs[g].spanAt(data, r.off) {
			// The whole group is where it was: passed over.
			if p.enc != nil {
				p.enc.copyGroup(gs[g], r.off)
			}
			rd.skip(r.off + int64(gs[g].span))
			g++
			continue
		}
		if !rok && !wok {
			return
		}
		p.compared++
		if !wok {
			add(r)
			continue
		}
		if !rok {
			remove()
			continue
		}
		w := gs[g].at(k)
		if r.sameLine(w) {
			r.hash = w.hash
			if p.enc != nil {
				p.enc.add(r)
			}
			rd.next()
			k++
			continue
		}
		// A line of one side found a few lines ahead on the other was
		// added or removed: most pulls are told so, without parsing a
		// line or asking the database.
		if lookAhead(gs, g, k, r.sameLine) {
			remove()
			continue
		}
		if rd.ahead(w.sameLine) {
			add(r)
			continue
		}
		pn := newPlace(r.line(data))
		po, err := placeOf(w.hash)
		if err != nil {
			p.err = err
			return
		}
		switch {
		case !pn.ok:
			add(r)
		case !po.ok:
			remove()
		case pn.less(po):
			add(r)
		case po.less(pn):
			remove()
		default: // the same place, another line
			add(r)
			remove()
		}
	}
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

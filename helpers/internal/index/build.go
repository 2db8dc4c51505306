package index

import (
	"bytes"
	"crypto/sha256"
	"database/sql"
	"encoding/json"
	"fmt"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/cairn-dev/cairn/helpers/internal/fsx"
	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
	"github.com/cairn-dev/cairn/helpers/internal/relevance"
)

// A build keeps SQLite busy on the caller's goroutine, which writes rows
// many a statement, while a pool of workers parses the lines and derives
// the winning entries' columns ahead of it (see inOrder); a producer
// goroutine hands their work over in order and picks each key's winner.
// Held throughout are the raw files, one small record per distinct line
// and one version per keyed line; an entry is decoded again when it is
// written rather than kept from the parse.

// Rows a multi-row INSERT carries (SQLite allows 32766 parameters).
const (
	lineBatch  = 128
	entryBatch = 64
)

// buildGCPercent is the collector's target during a build (GOGC): the
// heap may grow by half its live size between collections, not double.
const buildGCPercent = 50

// entryRow is an entry's columns, as the entries table holds them.
type entryRow struct {
	key, typ, content, tags, status, author, idents string
	ts                                              int64
	archived                                        bool
	json                                            []byte
	anchored                                        bool // it has files (see writeAnchors)
}

// build writes a cache of the source files, complete, into a new database
// at path, and returns the state of the files it holds and their lines'
// list (see saveLines).
func (ix *Index) build(path string) (res SyncResult, files string, list *listFile, err error) {
	db, err := sql.Open("sqlite", dsn(path, buildPragmas))
	if err != nil {
		return res, "", nil, dbErr("create cache", err)
	}
	db.SetMaxOpenConns(1)
	defer func() {
		if cerr := db.Close(); err == nil {
			err = dbErr("close cache", cerr)
		}
	}()
	if _, err := db.Exec(schema); err != nil {
		return res, "", nil, dbErr("create cache schema", err)
	}
	now, err := ix.statSources()
	if err != nil {
		return res, "", nil, err
	}
	err = ix.mapSources(func(datas map[string][]byte) error {
		res, list, err = ix.fill(db, datas, now)
		return err
	})
	if err != nil {
		return res, "", nil, err
	}
	return res, now.json(), list, nil
}

// A build of a big log lets the mapped files' pages go as it reads them
// (see [fsx.Evict]): every evictLines lines of its first pass, in file
// order, and every evictScattered lines of the next two, in hash order and
// in key order, which read all over the files (each read maps the pages
// around it too) and would otherwise end up with the whole of them
// resident (300 MB at 1M entries). Files smaller than evictMinBytes in all
// are left resident.
const (
	evictLines     = 1 << 16
	evictScattered = 1 << 11
	evictMinBytes  = 64 << 20
)

// fill fills the new cache db from the source files' data, whose state
// now it records (their sums filled), and returns the list of their
// lines. The data may be mapped: every goroutine that reads it runs under
// [fsx.Guard], and the files' pages are let go as the build goes.
func (ix *Index) fill(db *sql.DB, datas map[string][]byte, now state) (res SyncResult, list *listFile, err error) {
	defer tightenGC()()
	evict := evictor(datas)
	list = newListFile(listSize(datas))
	sorted, err := ix.readSources(datas, now, list, evict)
	if err != nil {
		return res, nil, err
	}
	tx, err := db.Begin()
	if err != nil {
		return res, nil, dbErr("begin", err)
	}
	defer tx.Rollback() // after Commit, a no-op
	bw := &batchWriter{tx: tx}
	defer bw.close()
	p := newProducer(sorted, evict)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		p.run()
	}()
	added, werr := writeRows(bw, p.lines, p.entries)
	if werr != nil {
		close(p.quit)
	}
	wg.Wait()
	if werr != nil {
		return res, nil, werr
	}
	if p.err != nil {
		return res, nil, p.err
	}
	res.Added, res.Report, res.Entries = added, p.rep, p.nKeys
	if err := ix.finishBuild(tx, bw, now); err != nil {
		return res, nil, err
	}
	return res, list, nil
}

// tightenGC sets the collector's target to buildGCPercent for a build,
// unless it is tighter already, and returns what restores it. Most of
// what a build holds lives from the first line read to the last row
// written (the files, and a record of each line): the collector's usual
// headroom, as much again, would be garbage alongside it for the whole
// build. A short-lived process turns the collector off (cli's
// shortLived); a build that such a process falls into collects all the
// same.
func tightenGC() (restore func()) {
	old := debug.SetGCPercent(buildGCPercent)
	if old >= 0 && old < buildGCPercent {
		debug.SetGCPercent(old) // already tighter
		return func() {}
	}
	return func() { debug.SetGCPercent(old) }
}

// evictor returns what lets the pages of the mapped datas go, when they
// are big enough for it to matter (see evictMinBytes).
func evictor(datas map[string][]byte) func() {
	var size int
	for _, data := range datas {
		size += len(data)
	}
	return func() {
		if size < evictMinBytes {
			return
		}
		for _, data := range datas {
			fsx.Evict(data)
		}
	}
}

// readSources reads the sources' distinct lines, in hash order (the
// lines table's primary key: B-tree appends instead of random inserts),
// the sources' lines listed in list, and fills now's sums, computed
// alongside.
func (ix *Index) readSources(datas map[string][]byte, now state, list *listFile, evict func()) ([]distinct, error) {
	sums := make(chan map[string]string, 1)
	var sumErr error
	go func() {
		var m map[string]string
		sumErr = fsx.Guard(func() { m = sumData(datas) })
		sums <- m
	}()
	sorted := distinctLines(ix.sources(), datas, list, evict)
	fillSums(now, <-sums)
	if sumErr != nil {
		return nil, fmt.Errorf("read the log: it changed while read (%w)", sumErr)
	}
	evict()
	slices.SortFunc(sorted, func(a, b distinct) int { return bytes.Compare(a.hash[:], b.hash[:]) })
	return sorted, nil
}

// writeRows writes the batches of lines, then of entries, as the producer
// sends them, until it closes each; it returns how many lines it wrote.
func writeRows(bw *batchWriter, lines <-chan []*lineRow, entries <-chan []entryRow) (added int, err error) {
	for b := range lines {
		if err := bw.putLines(b); err != nil {
			return added, err
		}
		added += len(b)
	}
	id := int64(0)
	for b := range entries {
		if err := bw.putEntries(id, b); err != nil {
			return added, err
		}
		id += int64(len(b))
	}
	return added, nil
}

// finishBuild fills the text index and the indexes from the rows written,
// records the state now of the files and the schema, and commits.
func (ix *Index) finishBuild(tx *sql.Tx, bw *batchWriter, now state) error {
	// The text index is filled from the entries table in one statement.
	if _, err := tx.Exec(`INSERT INTO fts(rowid,content,tags,type,idents) SELECT id,content,tags,type,idents FROM entries ORDER BY id`); err != nil {
		return dbErr("index text", err)
	}
	// Indexes for refolds and newest-first listings (must-check at session
	// start), built once over the sorted data rather than row by row.
	if _, err := tx.Exec(indexes); err != nil {
		return dbErr("index cache", err)
	}
	bw.close()
	if err := ix.setFiles(tx, now, nil); err != nil {
		return err
	}
	if _, err := tx.Exec(`INSERT INTO meta(k,v) VALUES('schema',?)`, schemaVersion); err != nil {
		return dbErr("save cache state", err)
	}
	if err := tx.Commit(); err != nil {
		return dbErr("commit cache", err)
	}
	return nil
}

// producer hands a build's work to the writer in order: the lines parsed,
// in hash order, then the winning entries' rows, in key order, each
// prepared ahead by a pool of workers (see inOrder). It closes lines once
// it sent them all (or stops), and entries when it returns; a close of
// quit stops it. What it found (the report, the count of keys, an error)
// is read once it returned.
type producer struct {
	sorted     []distinct
	evict      func()
	workers    int
	lines      chan []*lineRow
	entries    chan []entryRow
	quit       chan struct{}
	closeLines func()

	rep   knowledge.Report
	nKeys int
	err   error
}

func newProducer(sorted []distinct, evict func()) *producer {
	p := &producer{
		sorted:  sorted,
		evict:   evict,
		workers: min(runtime.GOMAXPROCS(0), 4),
		lines:   make(chan []*lineRow, 4),
		entries: make(chan []entryRow, 4),
		quit:    make(chan struct{}),
	}
	p.closeLines = sync.OnceFunc(func() { close(p.lines) })
	return p
}

// run produces under [fsx.Guard]: the data may be mapped.
func (p *producer) run() {
	defer close(p.entries)
	defer p.closeLines()
	if err := fsx.Guard(p.produce); err != nil {
		p.err = fmt.Errorf("read the log: it changed while read (%w)", err)
	}
}

func (p *producer) produce() {
	versions, odd, ok := p.sendLines()
	p.closeLines()
	if !ok {
		return
	}
	// Problems in the order of their lines' first appearance, as a read
	// of the files reports them.
	slices.SortFunc(odd, func(a, b problems) int { return a.first - b.first })
	for _, o := range odd {
		for range o.n {
			p.rep.Merge(o.rep)
		}
	}
	winners := latestVersions(versions)
	p.nKeys = len(winners)
	p.sendEntries(winners)
}

// send hands a batch to ch, unless the writer quit.
func send[T any](p *producer, ch chan<- T, b T) bool {
	select {
	case ch <- b:
		return true
	case <-p.quit:
		return false
	}
}

// sendLines parses the distinct lines and sends their rows in batches,
// the further entries of glued lines last; it returns every keyed line's
// version and the lines read with problems, and false when it stopped.
func (p *producer) sendLines() (versions []version, odd []problems, ok bool) {
	var glued []*lineRow // further entries of glued lines, new hashes
	batch := make([]*lineRow, 0, lineBatch)
	parsed := make([]parsedChunk, (len(p.sorted)+lineBatch-1)/lineBatch)
	ok, fault := inOrder(len(parsed), p.workers, func(c int) {
		parsed[c].parse(p.sorted[c*lineBatch : min(len(p.sorted), (c+1)*lineBatch)])
	}, func(c int) bool {
		if c%(evictScattered/lineBatch) == evictScattered/lineBatch-1 {
			p.evict()
		}
		pc := parsed[c]
		parsed[c] = parsedChunk{}
		versions = append(versions, pc.versions...)
		glued = append(glued, pc.glued...)
		odd = append(odd, pc.odd...)
		p.rep.Lines += pc.rep.Lines
		p.rep.Entries += pc.rep.Entries
		p.rep.Blank += pc.rep.Blank
		batch = append(batch, pc.rows...)
		for len(batch) >= lineBatch {
			if !send(p, p.lines, batch[:lineBatch:lineBatch]) {
				return false
			}
			batch = batch[lineBatch:]
		}
		return true
	})
	if !ok {
		p.err = fault
		return nil, nil, false
	}
	slices.SortFunc(glued, func(a, b *lineRow) int { return bytes.Compare(a.hash, b.hash) })
	batch = append(batch, glued...)
	for len(batch) > 0 {
		n := min(len(batch), lineBatch)
		if !send(p, p.lines, batch[:n:n]) {
			return nil, nil, false
		}
		batch = batch[n:]
	}
	return versions, odd, true
}

// latestVersions is each key's winning version (see [knowledge.Version.Newer]),
// by key: sorted by key, each key's lines are a run, whose newest wins.
func latestVersions(versions []version) []version {
	slices.SortFunc(versions, func(a, b version) int { return strings.Compare(a.key, b.key) })
	winners := versions[:0]
	for _, v := range versions {
		switch n := len(winners); {
		case n == 0 || winners[n-1].key != v.key:
			winners = append(winners, v)
		case v.v.Newer(winners[n-1].v):
			winners[n-1] = v
		}
	}
	clear(versions[len(winners):])
	return winners
}

// sendEntries derives the winners' rows in batches and sends them.
func (p *producer) sendEntries(winners []version) {
	rowsOf := make([][]entryRow, (len(winners)+entryBatch-1)/entryBatch)
	errs := make([]error, len(rowsOf))
	_, fault := inOrder(len(rowsOf), p.workers, func(c int) {
		rowsOf[c], errs[c] = entryRows(winners[c*entryBatch : min(len(winners), (c+1)*entryBatch)])
	}, func(c int) bool {
		if c%(evictScattered/entryBatch) == evictScattered/entryBatch-1 {
			p.evict()
		}
		if errs[c] != nil {
			p.err = errs[c]
			return false
		}
		if !send(p, p.entries, rowsOf[c]) {
			return false
		}
		rowsOf[c] = nil
		return true
	})
	if fault != nil {
		p.err = fault
	}
}

// distinct is one distinct line of the sources, as a build scans them.
type distinct struct {
	hash     [16]byte
	json     []byte
	n        int // times it occurs in its file
	first    int // its place among the distinct lines, in file order
	archived bool
	torn     bool
}

// distinctLines is scanLines for a build, which needs no more of a line
// than its hash, text and count: the distinct non-blank lines of the
// sources, in file order, their lines listed in list. It calls evict
// every evictLines lines.
func distinctLines(srcs []source, datas map[string][]byte, list *listFile, evict func()) []distinct {
	var out []distinct
	at := map[[16]byte]int{}
	h := sha256.New()
	var sum [sha256.Size]byte
	for _, src := range srcs {
		data := datas[src.path]
		lines, torn := knowledge.Lines(data)
		enc := list.source(data, groupLines)
		for i, line := range lines {
			if i%evictLines == evictLines-1 {
				evict()
			}
			if blank(line) {
				continue
			}
			isTorn := torn && i == len(lines)-1
			rec := quickRec(line, isTorn)
			rec.off = offsetIn(data, line)
			// hashLine, without its allocations.
			flag := byte(0)
			if src.archived {
				flag |= 1
			}
			if isTorn {
				flag |= 2
			}
			h.Reset()
			h.Write([]byte{flag})
			h.Write(line)
			copy(rec.hash[:], h.Sum(sum[:0]))
			enc.add(rec)
			if j, ok := at[rec.hash]; ok {
				out[j].n++
				continue
			}
			at[rec.hash] = len(out)
			out = append(out, distinct{hash: rec.hash, json: line, n: 1, first: len(out), archived: src.archived, torn: isTorn})
		}
		list.end(enc)
	}
	return out
}

// version is a keyed line's version, for picking each key's winner.
type version struct {
	key string
	v   knowledge.Version
}

// problems is the report of a line the reader skipped or repaired.
type problems struct {
	first, n int // the line's place among the distinct lines; its count
	rep      knowledge.Report
}

// parsedChunk is what parsing a run of distinct lines found.
type parsedChunk struct {
	rows     []*lineRow // in the lines' order
	glued    []*lineRow // further entries of glued lines
	versions []version
	odd      []problems
	rep      knowledge.Report // counts of the lines read cleanly
}

// parse parses the lines of ds, dropping their text from ds.
func (pc *parsedChunk) parse(ds []distinct) {
	for i := range ds {
		d := &ds[i]
		parsed, prep := parseRowQuick(&lineRow{hash: d.hash[:], n: d.n, archived: d.archived, json: d.json, torn: d.torn})
		d.json = nil
		if len(prep.Problems) > 0 || len(prep.ByKind) > 0 {
			pc.odd = append(pc.odd, problems{d.first, d.n, prep})
		} else {
			pc.rep.Lines += prep.Lines * d.n
			pc.rep.Entries += prep.Entries * d.n
			pc.rep.Blank += prep.Blank * d.n
		}
		for _, p := range parsed {
			if p.key != "" {
				pc.versions = append(pc.versions, version{p.key, p.version()})
			}
			p.entry = nil // decoded again if it wins
			if p.parent != nil {
				pc.glued = append(pc.glued, p)
			} else {
				pc.rows = append(pc.rows, p)
			}
		}
	}
}

// entryRows are the entries of winning lines ws, which it clears.
func entryRows(ws []version) ([]entryRow, error) {
	out := make([]entryRow, 0, len(ws))
	for i, w := range ws {
		ws[i] = version{}
		e, err := knowledge.DecodeEntry(w.v.JSON)
		if err != nil {
			return nil, dbErr("index entry "+w.key, err)
		}
		out = append(out, entryRow{
			key: e.Key, typ: e.Type, content: e.Content, tags: strings.Join(e.Tags, " "),
			status: e.Status, author: e.Author, idents: relevance.Idents(e.Content),
			ts: e.TS, archived: w.v.Archived, json: w.v.JSON, anchored: len(e.Files) > 0,
		})
	}
	return out, nil
}

// inOrder runs work(c) for the chunks c from 0 to n-1 on up to workers
// goroutines, a few chunks ahead, and use(c) on the caller's goroutine for
// each chunk in order once its work is done. It stops at the first use
// that returns false, or the first work that faults on mapped data (see
// [fsx.Guard]), and reports whether every use returned true, and the
// fault; work and use share nothing but the chunk's own results.
func inOrder(n, workers int, work func(c int), use func(c int) bool) (bool, error) {
	done := make([]chan struct{}, n)
	for c := range done {
		done[c] = make(chan struct{})
	}
	faults := make([]error, n)
	ahead := make(chan struct{}, 2*workers) // chunks claimed, not yet used
	stop := make(chan struct{})
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				select {
				case ahead <- struct{}{}:
				case <-stop:
					return
				}
				c := int(next.Add(1) - 1)
				if c >= n {
					return
				}
				faults[c] = fsx.Guard(func() { work(c) })
				close(done[c])
			}
		})
	}
	ok := true
	var fault error
	for c := range n {
		<-done[c]
		<-ahead
		if fault = faults[c]; fault != nil || !use(c) {
			ok = false
			break
		}
	}
	close(stop)
	wg.Wait()
	if fault != nil {
		fault = fmt.Errorf("read the log: it changed while read (%w)", fault)
	}
	return ok, fault
}

// parseRowQuick is parseRowReport with a fast path for the common line,
// one valid JSON object that decodes to an entry: read as Parse reads it,
// without copying the line.
func parseRowQuick(r *lineRow) ([]*lineRow, knowledge.Report) {
	t := bytes.TrimSpace(r.json)
	if len(t) > 0 && t[0] == '{' && json.Valid(t) {
		if e, err := knowledge.DecodeEntry(t); err == nil {
			nr := *r
			nr.key = strings.Clone(e.Key)
			nr.ts = e.TS
			nr.entry = &e
			nr.json = t
			nr.problem = ""
			return []*lineRow{&nr}, knowledge.Report{Lines: 1, Entries: 1}
		}
	}
	out, rep := parseRowReport(r)
	for _, p := range out {
		p.key = strings.Clone(p.key)
	}
	return out, rep
}

// batchWriter writes a build's rows many a statement.
type batchWriter struct {
	tx             *sql.Tx
	lines, entries *sql.Stmt // for full batches
	args           []any
}

func (bw *batchWriter) close() {
	for _, st := range []*sql.Stmt{bw.lines, bw.entries} {
		if st != nil {
			st.Close()
		}
	}
	bw.lines, bw.entries = nil, nil
}

// insertSQL is an INSERT of n rows of cols columns.
func insertSQL(head string, cols, n int) string {
	row := "(" + strings.TrimSuffix(strings.Repeat("?,", cols), ",") + ")"
	return head + " VALUES" + strings.TrimSuffix(strings.Repeat(row+",", n), ",")
}

// exec runs an INSERT of rows many rows of cols columns, with the
// statement prepared for full batches when it has full batch size.
func (bw *batchWriter) exec(st **sql.Stmt, head string, cols, rows, full int) error {
	if rows != full {
		_, err := bw.tx.Exec(insertSQL(head, cols, rows), bw.args...)
		return err
	}
	if *st == nil {
		s, err := bw.tx.Prepare(insertSQL(head, cols, rows))
		if err != nil {
			return err
		}
		*st = s
	}
	_, err := (*st).Exec(bw.args...)
	return err
}

func (bw *batchWriter) putLines(rs []*lineRow) error {
	bw.args = bw.args[:0]
	for _, r := range rs {
		bw.args = append(bw.args, r.hash, r.n, boolInt(r.archived), r.key, r.ts, r.problem, r.parent, string(r.json))
	}
	err := bw.exec(&bw.lines, `INSERT OR REPLACE INTO lines(hash,n,archived,key,ts,problem,parent,json)`, 8, len(rs), lineBatch)
	if err != nil {
		return dbErr("index lines", err)
	}
	return nil
}

// putEntries writes entries with ids from after+1 on, in order, as the
// table would number them.
func (bw *batchWriter) putEntries(after int64, es []entryRow) error {
	bw.args = bw.args[:0]
	for i, e := range es {
		bw.args = append(bw.args, after+int64(i)+1, e.key, e.typ, e.content, e.tags, e.ts, e.status, e.author, boolInt(e.archived), e.idents, string(e.json), boolInt(e.anchored))
	}
	err := bw.exec(&bw.entries, `INSERT INTO entries(id,key,type,content,tags,ts,status,author,archived,idents,json,anchored)`, 12, len(es), entryBatch)
	if err != nil {
		return dbErr(fmt.Sprintf("index entries %s to %s", es[0].key, es[len(es)-1].key), err)
	}
	return nil
}

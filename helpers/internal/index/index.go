// Package index owns cairn's local search cache: an SQLite FTS5 database
// under .cairn/cache, built from the shared log and caught up with it
// incrementally, with a copy of sanitize's verdicts on the log's lines
// (the audit). The cache is disposable: it can be deleted at any time and
// is rebuilt from the log; nothing flows from it back into the log.
//
// It answers reads of entries: listings newest first, and the entries
// that match a query's terms with their BM25 scores and verdicts
// ([Index.Matches]), selected by type, archive and status ([Filter]).
// It plans a query's cost (which terms reach FTS5) but does not rank:
// how a text is read into terms is package relevance's, and what priors
// and verdicts make of a score is package rank's. It is the only package
// that imports modernc.org/sqlite.
package index

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/helpers/internal/fsx"
	"github.com/cairn-dev/cairn/helpers/internal/knowledge"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// schemaVersion changes whenever the schema or what is derived from the log
// changes; a cache of another version is rebuilt.
const schemaVersion = "10"

// FileName is the cache database's name inside .cairn/cache.
const FileName = "index.db"

const schema = `
CREATE TABLE meta(k TEXT PRIMARY KEY, v TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE lines(
  hash BLOB PRIMARY KEY,
  n INTEGER NOT NULL,
  archived INTEGER NOT NULL,
  key TEXT NOT NULL,
  ts INTEGER NOT NULL,
  problem TEXT NOT NULL,
  parent BLOB,
  json TEXT NOT NULL
) WITHOUT ROWID;
CREATE TABLE entries(
  id INTEGER PRIMARY KEY,
  key TEXT NOT NULL UNIQUE,
  type TEXT NOT NULL,
  content TEXT NOT NULL,
  tags TEXT NOT NULL,
  ts INTEGER NOT NULL,
  status TEXT NOT NULL,
  author TEXT NOT NULL,
  archived INTEGER NOT NULL,
  idents TEXT NOT NULL,
  json TEXT NOT NULL,
  anchored INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE verdicts(
  key TEXT NOT NULL,
  ts INTEGER NOT NULL,
  effect TEXT NOT NULL,
  note TEXT NOT NULL,
  PRIMARY KEY(key, ts)
) WITHOUT ROWID;
-- A sync's report of problem lines, and its dropping of a glued line's
-- further entries: both rare, so partial, and cheap to fill row by row.
CREATE INDEX lines_problem ON lines(problem) WHERE problem != '';
CREATE INDEX lines_parent ON lines(parent) WHERE parent IS NOT NULL;
CREATE VIRTUAL TABLE fts USING fts5(
  content, tags, type, idents,
  content='entries', content_rowid='id',
  tokenize='porter unicode61'
);
`

// indexes serve the refolding of a key's lines; newest-first listings,
// whole and by type (entries_ts covers a listing's order and its filter
// on archived and status, and the timeline's type and author, so a page
// read from a place, the count of the entries before it and the weeks the
// timeline draws walk the index alone, not rows in key order scattered
// through the table); and the counts every write records (entries by
// archived). A build creates them after the rows are in, each in one
// sort: filled row by row they would take random inserts (lines go in
// in hash order, entries in key order).
const indexes = `
CREATE INDEX lines_key ON lines(key);
CREATE INDEX entries_ts ON entries(ts, key, archived, status, type, author);
CREATE INDEX entries_type_ts ON entries(type, ts);
CREATE INDEX entries_archived ON entries(archived);
CREATE INDEX entries_anchored ON entries(anchored) WHERE anchored=1;
`

// Index is an open cache database.
type Index struct {
	db    *sql.DB
	lock  *fsx.Lock // held shared while open; exclusive to write (see writeLocked)
	path  string
	store *knowledge.Store
	stale bool // missing, unreadable or of another schema: Sync rebuilds
	// total is how many entries the cache holds, as the last write
	// recorded it.
	total int
	// quick counts the catch-ups done by merge-join (for tests).
	quick int
	// fullMaps counts the anchor maps built in full (for tests).
	fullMaps int
	// hook is an Index a hook opened (OpenForHook): it never rebuilds and
	// applies at most hookMaxLines changed lines; past that, ErrNotReady.
	hook bool

	// behind, set by OpenForTool, is what the log holds that the cache
	// does not yet.
	behind *behind

	// AnchorsErr is why the last Sync could not write the anchor map
	// (nil when it could, or had no need).
	AnchorsErr error

	// What the last Sync saw, for SanitizeNeeded: the log, and the log
	// the loaded audit was made from.
	log, auditLog logState
}

// logState is what SanitizeNeeded compares of a log: its identity and
// its sum ("" when not known).
type logState struct {
	id     fsx.FileID
	sum    string
	synced bool // set by a Sync; the audit's is always set
}

// noteLog notes the log's state as st, the cache's files, records it.
func (ix *Index) noteLog(st state) {
	fs := st[ix.store.LogPath()]
	ix.log = logState{id: fs.ID, sum: fs.Sum, synced: true}
}

// Path is where the cache of a store lives.
func Path(s *knowledge.Store) string { return filepath.Join(s.CachePath(), FileName) }

// name is the cache's name under .cairn.
const name = knowledge.CacheDir + "/" + FileName

// dsn is the SQLite URI of the database file at path. The path is escaped
// as a URI path, so a project directory named with '#', '?' or '%' opens
// the file it names and not another one.
func dsn(path string, pragmas string) string {
	u := url.URL{Scheme: "file", OmitHost: true, Path: path}
	return u.String() + "?" + pragmas
}

// The live cache is written without a rollback journal: a journal is a
// copy of every page a write touches, written before the page is (a few
// MB for a pull of 50 entries at 100k, with 16 KiB pages), and the cache
// is disposable. Instead, a write transaction is bracketed by a marker
// file (dirtyName): created before it begins, removed once it committed.
// A cache found with the marker was cut short mid-write (a crash, a kill,
// a failed statement that no journal can roll back) and is rebuilt.
const (
	livePragmas = "_pragma=busy_timeout(10000)&_pragma=journal_mode(OFF)&_pragma=synchronous(OFF)"
	// A build writes the whole file once, in pages of 16 KiB: a quarter
	// of the writes and reads of the default 4 KiB (about 8% of a
	// build's CPU at 100k entries), for a few MB more of page cache.
	buildPragmas = "_pragma=page_size(16384)&_pragma=journal_mode(OFF)&_pragma=synchronous(OFF)"
)

// dirtyName is the marker of a write under way (see livePragmas).
const dirtyName = name + ".dirty"

// sqliteFiles are the files SQLite opens by path for a database: they
// must be regular files (or absent) below real directories, since SQLite
// itself would follow a link.
func sqliteFiles(db string) []string {
	return []string{db, db + "-journal", db + "-wal", db + "-shm"}
}

// checkFiles refuses a database whose files are links or special files.
func (ix *Index) checkFiles(db string) error {
	for _, f := range sqliteFiles(db) {
		if err := ix.store.Root().CheckFile(f); err != nil {
			return dbErr("", err)
		}
	}
	return nil
}

// Open opens the cache of store s and holds its lock shared until Close.
// It does not sync: a cache that is missing, unreadable or of another
// schema version is rebuilt by the first [Index.Sync], which must come
// before searching.
func Open(s *knowledge.Store) (*Index, error) { return open(s, false) }

// ErrNotReady is what an Index opened by [OpenForHook] answers when the
// cache cannot serve without a rebuild or a long catch-up: it is missing,
// damaged or of another schema, a rebuild is being installed, or the log
// changed by more than a hook's share of lines. The hook answers without
// the cache and starts a sync in the background.
var ErrNotReady = errors.New("the search cache is being built")

// hookMaxLines is how many changed lines a hook's sync applies itself
// (a pull of a day's work); more is left to the background sync.
const hookMaxLines = 2000

// hookLockWait is how long a hook waits for the cache's lock: a writer
// holds it exclusively only to install a rebuilt file or to apply a
// catch-up, which is short.
const hookLockWait = 2 * time.Second

// OpenForHook opens the cache for a hook, which must never wait on a
// rebuild: it rebuilds nothing, and its Sync catches up at most a pull's
// worth of lines, else returns [ErrNotReady].
func OpenForHook(s *knowledge.Store) (*Index, error) {
	ix, err := open(s, true)
	if errors.Is(err, fsx.ErrLockTimeout) {
		return nil, fmt.Errorf("%w: %w", ErrNotReady, err)
	}
	return ix, err
}

func open(s *knowledge.Store, hook bool) (*Index, error) {
	ix := &Index{path: Path(s), store: s, hook: hook}
	if err := ix.checkFiles(name); err != nil {
		return nil, err
	}
	wait := lockWait
	if hook {
		wait = hookLockWait
	}
	lock, err := s.Root().AcquireShared(lockName, wait)
	if err != nil {
		return nil, err
	}
	ix.lock = lock
	if err := ix.open(); err == nil {
		if v, err := ix.meta("schema"); err == nil && v == schemaVersion && !ix.dirty() {
			return ix, nil
		}
		ix.db.Close()
		ix.db = nil
	}
	ix.stale = true
	return ix, nil
}

// dirty reports whether a write to the cache was cut short (see
// livePragmas); a marker that cannot be checked counts as one.
func (ix *Index) dirty() bool {
	id, err := ix.store.Root().StatID(dirtyName)
	return err != nil || id != (fsx.FileID{})
}

func (ix *Index) open() error {
	db, err := sql.Open("sqlite", dsn(ix.path, livePragmas))
	if err != nil {
		return dbErr("open cache", err)
	}
	db.SetMaxOpenConns(1)
	ix.db = db
	return nil
}

// Close closes the database and lets go of its lock.
func (ix *Index) Close() error {
	var err error
	if ix.db != nil {
		err = ix.db.Close()
		ix.db = nil
	}
	if ix.lock != nil {
		ix.lock.Release()
		ix.lock = nil
	}
	return err
}

func (ix *Index) meta(k string) (string, error) {
	var v string
	err := ix.db.QueryRow(`SELECT v FROM meta WHERE k=?`, k).Scan(&v)
	return v, err
}

// source is one file the cache is built from: its path (how the cache's
// state names it) and its name under .cairn (how it is read).
type source struct {
	path     string
	name     string
	archived bool
}

func (ix *Index) sources() []source {
	return []source{{ix.store.LogPath(), knowledge.LogName, false}, {ix.store.ArchivePath(), knowledge.ArchiveName, true}}
}

// fileState is what the cache remembers of a source file.
type fileState struct {
	ID  fsx.FileID `json:"id"`
	Sum string     `json:"sum"`
}

type state map[string]fileState

// lineRow is one distinct line of a source file.
type lineRow struct {
	hash     []byte
	n        int
	archived bool
	key      string
	ts       int64
	problem  string
	parent   []byte // the physical line's hash, for the 2nd+ entry of a glued line
	json     []byte
	torn     bool // the file's last line, without a newline
	entry    *knowledge.Entry
}

// SyncResult says what a sync did.
type SyncResult struct {
	Current bool             `json:"current"` // nothing to do
	Rebuilt bool             `json:"rebuilt"` // full rebuild
	Added   int              `json:"added"`   // lines indexed
	Removed int              `json:"removed"` // lines dropped
	Entries int              `json:"entries"` // entries in the cache after
	Report  knowledge.Report `json:"report"`  // the log's problems; filled by a rebuild only
}

// Sync brings the cache up to date with the log and the archive. It first
// compares the files' identity (size, times, inode); only when that changed
// does it read them, and only when their content changed does it index:
// the lines that appeared are parsed and added, the lines that went are
// dropped, and the entries of the keys they touch are re-folded. A full
// rebuild happens only when the cache is missing, unreadable or of another
// schema version, or when about half of the lines changed.
func (ix *Index) Sync() (SyncResult, error) {
	res, err := ix.syncLog()
	if err != nil {
		return res, err
	}
	if err := ix.syncVerdicts(); err != nil {
		return res, err
	}
	ix.keepAnchors()
	return res, nil
}

// The cache's lock (index.db.lock) is held shared by every open Index and
// exclusively by whoever writes. A rebuild renames a new file over the
// cache, and SQLite names its rollback journal after the path, not the
// file: a connection to a replaced file that wrote, or that read while a
// writer of the new file had its journal out, would take the other file's
// journal for its own hot journal and play it back or delete it (seen as
// "disk I/O error"). So no file is replaced while any process has the
// cache open, and a writer writes on a connection opened under its
// exclusive lock.
const (
	lockName      = name + ".lock"
	buildLockName = name + ".build.lock" // one rebuild at a time
	lockWait      = 60 * time.Second
)

// exclusive turns the Index's lock exclusive and reopens the database on
// it; the returned func turns it back to shared.
func (ix *Index) exclusive() (func(), error) {
	if ix.hook {
		if err := ix.lock.Exclusive(hookLockWait); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrNotReady, err)
		}
	} else if err := ix.lock.Exclusive(lockWait); err != nil {
		return nil, err
	}
	back := func() { ix.lock.Shared() }
	if ix.db != nil {
		ix.db.Close()
		ix.db = nil
	}
	if err := ix.open(); err != nil {
		back()
		return nil, err
	}
	return back, nil
}

// writeLocked runs fn, which writes to the cache, with the lock held
// exclusively on a freshly opened connection.
func (ix *Index) writeLocked(fn func() error) error {
	back, err := ix.exclusive()
	if err != nil {
		return err
	}
	defer back()
	return fn()
}

func (ix *Index) syncLog() (SyncResult, error) {
	if ix.stale || ix.db == nil {
		return ix.rebuild()
	}
	saved, _ := ix.savedFiles()
	now, err := ix.statSources()
	if err != nil {
		return SyncResult{}, err
	}
	if saved.sameIDs(now) {
		ix.noteLog(saved)
		return SyncResult{Current: true}, nil
	}
	var res SyncResult
	err = ix.mapSources(func(datas map[string][]byte) error {
		res, err = ix.catchUp(datas, now)
		return err
	})
	return res, err
}

// mapSources calls fn with the source files' content, by path, mapped
// rather than read where they can be (see [fsx.Root.MapFile]): fn must
// keep no part of it. A missing file is empty. Stat before read: a file
// that changes in between is read again by the next sync.
func (ix *Index) mapSources(fn func(datas map[string][]byte) error) error {
	datas := map[string][]byte{}
	var next func(srcs []source) error
	next = func(srcs []source) error {
		if len(srcs) == 0 {
			return fn(datas)
		}
		called := false
		err := ix.store.Root().MapFile(srcs[0].name, knowledge.MaxLogBytes, func(data []byte) error {
			called = true
			datas[srcs[0].path] = data
			return next(srcs[1:])
		})
		if !called && errors.Is(err, fs.ErrNotExist) {
			datas[srcs[0].path] = nil
			return next(srcs[1:])
		}
		return err
	}
	return next(ix.sources())
}

// savedFiles is the state of the files the cache holds, as it recorded it.
func (ix *Index) savedFiles() (state, error) {
	v, err := ix.meta("files")
	if err != nil {
		return nil, err
	}
	var saved state
	if err := json.Unmarshal([]byte(v), &saved); err != nil {
		return nil, err
	}
	return saved, nil
}

// statSources is the identity of the source files, their sums not filled.
func (ix *Index) statSources() (state, error) {
	now := state{}
	for _, src := range ix.sources() {
		id, err := ix.store.Root().StatID(src.name)
		if err != nil {
			return nil, err
		}
		now[src.path] = fileState{ID: id}
	}
	return now, nil
}

// sumData is the sum of each file's data, by path.
func sumData(datas map[string][]byte) map[string]string {
	sums := make(map[string]string, len(datas))
	for p, data := range datas {
		sums[p] = knowledge.Sum(data)
	}
	return sums
}

// fillSums fills the sums of now's files.
func fillSums(now state, sums map[string]string) {
	for p, fs := range now {
		fs.Sum = sums[p]
		now[p] = fs
	}
}

// sameIDs reports whether saved, a recorded state, names the files of now
// by the same identities; a missing state names none.
func (saved state) sameIDs(now state) bool {
	if saved == nil {
		return false
	}
	for p, fs := range now {
		if saved[p].ID != fs.ID {
			return false
		}
	}
	return true
}

// sameSums reports whether saved, a recorded state, has the same content
// as now; a missing state has none.
func (saved state) sameSums(now state) bool {
	if saved == nil {
		return false
	}
	for p, fs := range now {
		if saved[p].Sum != fs.Sum {
			return false
		}
	}
	return true
}

// setFiles records the state of the files the cache now holds, and how
// many entries it holds (see Count and Totals): every write of the cache
// ends here, so the counts are kept where entries change, not on the
// hook's path. delta, when the caller knows it, is how the write changed
// the counts recorded before; without it (or without recorded counts) they
// are counted.
func (ix *Index) setFiles(ex querier, st state, delta *counts) error {
	ix.noteLog(st) // read only after Sync succeeded
	_, err := ex.Exec(`INSERT OR REPLACE INTO meta(k,v) VALUES('files',?)`, st.json())
	if err != nil {
		return dbErr("save cache state", err)
	}
	var c counts
	var live, all string
	known := delta != nil &&
		ex.QueryRow(`SELECT (SELECT v FROM meta WHERE k='count'), (SELECT v FROM meta WHERE k='total')`).Scan(&live, &all) == nil
	if known {
		l, lerr := strconv.Atoi(live)
		a, aerr := strconv.Atoi(all)
		known = lerr == nil && aerr == nil
		c = counts{live: l + delta.live, all: a + delta.all}
	}
	if !known {
		err := ex.QueryRow(`SELECT count(*), coalesce(sum(archived=0), 0) FROM entries INDEXED BY entries_archived`).Scan(&c.all, &c.live)
		if err != nil {
			return dbErr("count entries", err)
		}
	}
	_, err = ex.Exec(`INSERT OR REPLACE INTO meta(k,v) VALUES('count',?),('total',?)`, strconv.Itoa(c.live), strconv.Itoa(c.all))
	if err != nil {
		return dbErr("save cache state", err)
	}
	ix.total = c.all
	return nil
}

// counts are how many entries the cache holds: live (not archived) and
// all.
type counts struct{ live, all int }

// querier is what setFiles writes and reads through: the database, a
// transaction or a connection.
type querier interface {
	execer
	QueryRow(query string, args ...any) *sql.Row
}

// json is the state as the cache records it (meta 'files').
func (st state) json() string {
	b, _ := json.Marshal(st)
	return string(b)
}

type execer interface {
	Exec(query string, args ...any) (sql.Result, error)
}

// hashLine identifies a line of one file of the cache's sources.
func hashLine(archived, torn bool, line []byte) []byte {
	h := sha256.New()
	flag := byte(0)
	if archived {
		flag |= 1
	}
	if torn {
		flag |= 2 // a torn line completed later is another line
	}
	h.Write([]byte{flag})
	h.Write(line)
	return h.Sum(nil)[:16]
}

// scanLines adds the distinct non-blank lines of source data to rows, by
// hash, counting repeats, and appends each new one's hash to order and
// every line's record to list, the encoder of data's list. It parses none
// of them (see parseRow).
func scanLines(data []byte, archived bool, rows map[string]*lineRow, order *[]string, list *listEncoder) {
	lines, torn := knowledge.Lines(data)
	for i, line := range lines {
		if blank(line) {
			continue
		}
		isTorn := torn && i == len(lines)-1
		rec := quickRec(line, isTorn)
		rec.off = offsetIn(data, line)
		hb := hashLine(archived, isTorn, line)
		copy(rec.hash[:], hb)
		list.add(rec)
		h := string(hb)
		if r, ok := rows[h]; ok {
			r.n++
			continue
		}
		rows[h] = &lineRow{hash: []byte(h), n: 1, archived: archived, json: line, torn: isTorn}
		*order = append(*order, h)
	}
}

// parseRow parses a row's line into rows with their key, ts, entry and
// problem. A line may hold several entries (glued lines); each becomes its
// own row, hashed from the entry and the line, and the first keeps the
// line's hash. A line with no entry is one row with the reason as problem.
func parseRow(r *lineRow) []*lineRow {
	rows, _ := parseRowReport(r)
	return rows
}

// parseRowReport is parseRow with the reader's report of the line.
func parseRowReport(r *lineRow) ([]*lineRow, knowledge.Report) {
	var out []*lineRow
	data := r.json
	if !r.torn {
		data = append(append([]byte{}, r.json...), '\n')
	}
	rep := knowledge.Parse(data, func(rec knowledge.Record) {
		nr := *r
		if len(out) > 0 {
			h := sha256.Sum256(append(append([]byte{}, r.hash...), rec.JSON...))
			nr.hash = h[:16]
			nr.parent = r.hash
		}
		nr.key = rec.Entry.Key
		nr.ts = rec.Entry.TS
		e := rec.Entry
		nr.entry = &e
		nr.json = rec.JSON
		nr.problem = ""
		out = append(out, &nr)
	})
	if len(rep.Problems) > 0 {
		if len(out) == 0 {
			// The reason it was skipped, not the repair tried first.
			pr := rep.Problems[len(rep.Problems)-1]
			for _, q := range rep.Problems {
				if !q.Repaired() {
					pr = q
					break
				}
			}
			nr := *r
			nr.problem = pr.Kind
			nr.json = []byte(pr.Detail)
			return []*lineRow{&nr}, rep
		}
		out[0].problem = rep.Problems[0].Kind // repaired
	}
	return out, rep
}

// rebuild is a rebuild a sync decided on: a hook's Index leaves it to the
// background ([ErrNotReady]).
func (ix *Index) rebuild() (SyncResult, error) {
	if ix.hook && !ix.small() {
		return SyncResult{}, ErrNotReady
	}
	return ix.Rebuild()
}

// hookInlineBytes is the size of the sources up to which a hook rebuilds
// the cache itself (about 1,500 entries, some 50 ms): a fresh clone of a
// small project gets its whole recall at its first session.
const hookInlineBytes = 512 << 10

// small reports whether the sources are small enough for a hook to
// rebuild the cache itself.
func (ix *Index) small() bool {
	now, err := ix.statSources()
	if err != nil {
		return false
	}
	var size int64
	for _, fs := range now {
		size += fs.ID.Size
	}
	return size <= hookInlineBytes
}

// buildPrefix starts the name of a rebuild's temporary file, which ends
// in the builder's process id.
const buildPrefix = FileName + ".build-"

// removeAbandoned deletes the temporary files of rebuilds that did not
// finish (a process killed mid-build). The caller holds the build lock, so
// no other rebuild is under way and every such file is abandoned.
func (ix *Index) removeAbandoned() {
	entries, err := os.ReadDir(ix.store.CachePath())
	if err != nil {
		return
	}
	for _, e := range entries {
		n := e.Name()
		if strings.HasPrefix(n, buildPrefix) && e.Type().IsRegular() {
			ix.store.Root().Remove(knowledge.CacheDir + "/" + n)
		}
	}
}

// Rebuild recreates the cache from scratch in a temporary file and renames
// it into place, so readers never see a half-built cache.
func (ix *Index) Rebuild() (SyncResult, error) {
	// Nothing is held while waiting for another rebuild: a process that
	// holds the cache's lock shared and waits for the build lock would
	// keep the builder from installing its file.
	if err := ix.lock.Unlock(); err != nil {
		return SyncResult{}, err
	}
	defer ix.lock.Shared()
	build, err := ix.store.Root().Acquire(buildLockName, lockWait)
	if err != nil {
		return SyncResult{}, err
	}
	defer build.Release()
	ix.removeAbandoned()
	if ix.db != nil {
		ix.db.Close()
		ix.db = nil
	}
	tmpName := fmt.Sprintf("%s/%s%d", knowledge.CacheDir, buildPrefix, os.Getpid())
	if err := ix.checkFiles(tmpName); err != nil {
		return SyncResult{}, err
	}
	root := ix.store.Root()
	root.Remove(tmpName)
	defer root.Remove(tmpName)
	res, files, list, err := ix.build(root.Path(tmpName))
	if err != nil {
		return res, err
	}
	// Installing the file waits until no process has the cache open.
	if err := ix.lock.Exclusive(lockWait); err != nil {
		return res, err
	}
	if err := root.Install(tmpName, name); err != nil {
		return res, dbErr("install cache", err)
	}
	if err := root.Remove(dirtyName); err != nil {
		return res, fmt.Errorf("unmark the cache: %w", err)
	}
	if err := ix.saveLines(files, list); err != nil {
		ix.store.Root().Remove(linesName) // the next sync diffs in full
	}
	res.Rebuilt = true
	ix.stale = false
	if err := ix.open(); err != nil {
		return res, err
	}
	if err := ix.refreshVerdicts(); err != nil {
		return res, err
	}
	// A rebuilt cache gets a map built in full (linear in the anchored
	// entries), whatever the map on disk records.
	if id, err := ix.savedIdentity(); err != nil {
		ix.AnchorsErr = err
	} else if err := ix.writeAnchors(id); err != nil {
		ix.AnchorsErr = err
	}
	return res, nil
}

// keepAnchors brings the anchor map up to date with the cache (see
// syncAnchors). A map it cannot write is left as it is: the hook before
// a tool call finds it out of date and answers through the cache, which
// is slower, never wrong.
func (ix *Index) keepAnchors() {
	if err := ix.syncAnchors(); err != nil {
		ix.AnchorsErr = err
	}
}

// retracts reports whether the row's line retracts its entry.
func (r *lineRow) retracts() bool {
	if r.entry != nil {
		return r.entry.Status == knowledge.StatusRetracted
	}
	if !bytes.Contains(r.json, []byte(knowledge.StatusRetracted)) {
		return false
	}
	e, err := knowledge.DecodeEntry(r.json)
	if err != nil {
		return false
	}
	r.entry = &e
	return e.Status == knowledge.StatusRetracted
}

// version is the row's line as the latest-line rule sees it (see
// [knowledge.Version.Newer]).
func (r *lineRow) version() knowledge.Version {
	return knowledge.Version{TS: r.ts, Retracted: r.retracts(), Archived: r.archived, JSON: r.json}
}

// catchUp applies the difference between the files, whose data and
// identities are given, and the cache. With the list of the lines the
// cache holds, a merge-join finds the lines that changed at the cost of
// reading the files once; without one, every line is hashed and compared
// with the cache's. A rebuild happens when about half of the lines
// changed; else the lines that went are dropped, those that appeared
// added, and the keys of both refolded, in one transaction.
func (ix *Index) catchUp(datas map[string][]byte, now state) (SyncResult, error) {
	// Serialised with rebuilds, which replace the file: another process
	// may have replaced it while this one waited for the lock, so it is
	// reopened under the lock and, if it already holds these files, left
	// as it is.
	back, err := ix.exclusive()
	if err != nil {
		return SyncResult{}, err
	}
	defer back()
	files, ferr := ix.meta("files")
	saved, serr := ix.savedFiles()
	if ferr != nil || serr != nil {
		if v, err := ix.meta("schema"); err != nil || v != schemaVersion {
			return ix.rebuild()
		}
	}
	if serr == nil && saved.sameIDs(now) {
		ix.noteLog(saved)
		return SyncResult{Current: true}, nil
	}
	if ferr == nil {
		res, done, err := ix.quickCatchUp(datas, now, saved, files)
		if done || err != nil {
			return res, err
		}
	}
	fillSums(now, sumData(datas))
	if saved.sameSums(now) {
		// Touched, not changed (a checkout, a rewrite with the same bytes).
		list, _, _ := ix.scanSources(datas)
		if err := ix.touched(saved, now); err != nil {
			return SyncResult{}, err
		}
		ix.saveOrDropLines(now, list)
		return SyncResult{Current: true}, nil
	}
	list, rows, order := ix.scanSources(datas)
	d, err := ix.diff(rows, order)
	if err != nil {
		return SyncResult{}, err
	}
	if len(d.added)+len(d.removed) > len(rows)/2+64 {
		return ix.rebuild()
	}
	if ix.hook && len(d.added)+len(d.removed) > hookMaxLines && !ix.small() {
		return SyncResult{}, ErrNotReady
	}
	return ix.applyDiff(d, now, list)
}

// scanSources scans the sources' lines (see scanLines): their list, and
// their distinct lines by hash, in order.
func (ix *Index) scanSources(datas map[string][]byte) (*listFile, map[string]*lineRow, []string) {
	rows := map[string]*lineRow{}
	var order []string
	list := newListFile(listSize(datas))
	for _, src := range ix.sources() {
		data := datas[src.path]
		enc := list.source(data, groupLines)
		scanLines(data, src.archived, rows, &order, enc)
		list.end(enc)
	}
	return list, rows, order
}

// quickCatchUp is catchUp by a merge-join with the list of the cache's
// lines, if there is one for the cache's files; done is false when there
// is none or the files differ too much for it (the caller diffs in full,
// or rebuilds).
//
// It hashes no file whole. A file none of whose lines changed keeps the
// sum saved for it; one that changed gets its sum only when it is small
// (sumInlineBytes), else none: the sum serves only to tell whether the
// audit is of this log, which the log's identity tells as well (see
// [Index.SanitizeNeeded]), and hashing the log would cost a sync after a
// pull more than all the rest (some 15 ms at 100k entries, 150 ms at 1M).
func (ix *Index) quickCatchUp(datas map[string][]byte, now, saved state, files string) (SyncResult, bool, error) {
	var q quickDiff
	var ok bool
	err := ix.withLines(files, func(old map[string][]group) error {
		var err error
		q, ok, err = ix.mergeJoin(datas, old, true)
		return err
	})
	if errors.Is(err, errNoLines) {
		return SyncResult{}, false, nil
	}
	if err != nil || !ok {
		return SyncResult{}, false, err
	}
	if ix.hook && q.work > hookMaxLines && !ix.small() {
		return SyncResult{}, true, ErrNotReady
	}
	for p, fs := range now {
		switch {
		case !q.changed[p]:
			fs.Sum = saved[p].Sum
		case len(datas[p]) <= sumInlineBytes:
			fs.Sum = knowledge.Sum(datas[p])
		}
		now[p] = fs
	}
	d, err := ix.lineDiffOf(q)
	if err != nil {
		return SyncResult{}, true, err
	}
	if len(q.delta) == 0 {
		// Touched, not changed.
		if err := ix.touched(saved, now); err != nil {
			return SyncResult{}, true, err
		}
		ix.saveOrDropLines(now, q.list)
		return SyncResult{Current: true}, true, nil
	}
	res, err := ix.applyDiff(d, now, q.list)
	ix.quick++
	return res, true, err
}

// touched records the files' state now, when they were touched but not
// changed (a checkout, a rewrite with the same bytes): the anchor map
// gets the new identity and keeps its lines.
func (ix *Index) touched(saved, now state) error {
	return ix.immediate(func(tx connExec) error {
		if err := ix.setFiles(tx, now, &counts{}); err != nil {
			return err
		}
		ix.updateAnchors(tx, newAnchorChange(), saved.identity(ix.store), now.identity(ix.store))
		return nil
	})
}

// sumInlineBytes is the size up to which a sync that found a file
// changed records its sum (a few hundred µs of hashing).
const sumInlineBytes = 1 << 20

// applyDiff writes d into the cache in one transaction, then the list of
// the files' lines.
func (ix *Index) applyDiff(d lineDiff, now state, list *listFile) (SyncResult, error) {
	before, _ := ix.savedIdentity()
	ch := newAnchorChange()
	err := ix.immediate(func(tx connExec) error {
		if err := ix.apply(tx, d, now, ch); err != nil {
			return err
		}
		// In the transaction: the new anchors are read before COMMIT
		// and the map written under the same lock.
		ix.updateAnchors(tx, ch, before, now.identity(ix.store))
		return nil
	})
	if err != nil {
		return SyncResult{}, err
	}
	ix.saveOrDropLines(now, list)
	return SyncResult{Added: len(d.added), Removed: len(d.removed), Entries: ix.total}, nil
}

// saveOrDropLines writes the list of the files' lines, now recorded in
// the database; failing that, it removes the old one, which no longer
// describes the database (the next sync diffs in full).
func (ix *Index) saveOrDropLines(now state, list *listFile) {
	if err := ix.saveLines(now.json(), list); err != nil {
		ix.store.Root().Remove(linesName)
	}
}

// lineDiff is what separates the cache's lines from the files'.
type lineDiff struct {
	added   []*lineRow        // lines of the files the cache lacks, in file order
	removed [][]byte          // hashes of the cache's lines the files lack, with the further entries of a glued line
	recount map[string]int    // lines whose count changed: hash -> count in the files
	keyOf   map[string]string // every cache line's key, by hash
}

// diff compares the files' distinct lines, rows (by hash) in order, with
// the lines the cache holds. The caller holds the lock exclusively, so the
// cache cannot change before the difference is applied.
func (ix *Index) diff(rows map[string]*lineRow, order []string) (lineDiff, error) {
	d := lineDiff{recount: map[string]int{}, keyOf: map[string]string{}}
	known := map[string]int{}
	derived := map[string][][]byte{}
	q, err := ix.db.Query(`SELECT hash, n, key, parent FROM lines`)
	if err != nil {
		return d, dbErr("read cache", err)
	}
	defer q.Close()
	for q.Next() {
		var h, parent []byte
		var n int
		var k string
		if err := q.Scan(&h, &n, &k, &parent); err != nil {
			return d, dbErr("read cache", err)
		}
		d.keyOf[string(h)] = k
		if parent != nil {
			derived[string(parent)] = append(derived[string(parent)], h)
			continue
		}
		known[string(h)] = n
	}
	if err := q.Err(); err != nil {
		return d, dbErr("read cache", err)
	}
	for _, h := range order {
		if _, ok := known[h]; !ok {
			d.added = append(d.added, rows[h])
		}
	}
	for h, n := range known {
		switch r := rows[h]; {
		case r == nil:
			d.removed = append(d.removed, []byte(h))
			d.removed = append(d.removed, derived[h]...)
		case r.n != n:
			d.recount[h] = r.n
		}
	}
	return d, nil
}

// apply writes d into the cache within transaction tx: drops the lines
// that went, adds those that appeared, updates counts, refolds the keys
// touched (noting in ch the anchors they had), and records the files'
// state now.
func (ix *Index) apply(tx connExec, d lineDiff, now state, ch *anchorChange) error {
	w, err := newWriter(tx)
	if err != nil {
		return err
	}
	w.anchors = ch
	defer w.close()
	touched := map[string]bool{}
	for _, h := range d.removed {
		if k := d.keyOf[string(h)]; k != "" {
			touched[k] = true
		}
		if _, err := tx.Exec(`DELETE FROM lines WHERE hash=?`, h); err != nil {
			return dbErr("drop line", err)
		}
	}
	for _, r := range d.added {
		for _, pr := range parseRow(r) {
			if err := w.putLine(pr); err != nil {
				return err
			}
			if pr.key != "" {
				touched[pr.key] = true
			}
		}
	}
	for h, n := range d.recount {
		if _, err := tx.Exec(`UPDATE lines SET n=? WHERE hash=?`, n, []byte(h)); err != nil {
			return dbErr("count line", err)
		}
	}
	for k := range touched {
		if err := w.refold(k); err != nil {
			return err
		}
	}
	return ix.setFiles(tx, now, &w.delta)
}

// immediate runs fn in a write transaction taken at once (BEGIN
// IMMEDIATE, which database/sql cannot begin) on one connection, between
// the creation and the removal of the dirty marker (see livePragmas):
// committed when fn succeeds; otherwise the cache is left marked, and this
// Index takes it for stale.
func (ix *Index) immediate(fn func(tx connExec) error) error {
	root := ix.store.Root()
	mark, err := root.OpenFile(dirtyName, os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("mark the cache being written: %w", err)
	}
	mark.Close()
	ctx := context.Background()
	conn, err := ix.db.Conn(ctx)
	if err != nil {
		return dbErr("cache connection", err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `BEGIN IMMEDIATE`); err != nil {
		return dbErr("lock cache", err)
	}
	err = fn(connExec{ctx: ctx, conn: conn})
	if err == nil {
		_, err = conn.ExecContext(ctx, `COMMIT`)
		err = dbErr("commit cache", err)
	}
	if err != nil {
		conn.ExecContext(ctx, `ROLLBACK`)
		ix.stale = true
		return err
	}
	if err := root.Remove(dirtyName); err != nil {
		return fmt.Errorf("unmark the cache: %w", err)
	}
	return nil
}

type connExec struct {
	ctx  context.Context
	conn *sql.Conn
}

func (c connExec) Exec(q string, args ...any) (sql.Result, error) {
	return c.conn.ExecContext(c.ctx, q, args...)
}

func (c connExec) Prepare(q string) (*sql.Stmt, error) {
	return c.conn.PrepareContext(c.ctx, q)
}

func (c connExec) QueryRow(q string, args ...any) *sql.Row {
	return c.conn.QueryRowContext(c.ctx, q, args...)
}

func (c connExec) Query(q string, args ...any) (*sql.Rows, error) {
	return c.conn.QueryContext(c.ctx, q, args...)
}

type preparer interface {
	execer
	Prepare(q string) (*sql.Stmt, error)
	QueryRow(q string, args ...any) *sql.Row
	Query(q string, args ...any) (*sql.Rows, error)
}

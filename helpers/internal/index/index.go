// Package index owns cairn's local search cache: an SQLite FTS5 database
// under .cairn/cache, built from the shared log and caught up with it
// incrementally. The cache is disposable: it can be deleted at any time and
// is rebuilt from the log; nothing flows from it back into the log. How a
// query is read and how matches are weighed is package relevance's; this
// package turns it into SQL. It is the only package that imports
// modernc.org/sqlite.
package index

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/helpers/internal/fsx"
	"github.com/cairn-dev/cairn/helpers/internal/knowledge"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// schemaVersion changes whenever the schema or what is derived from the log
// changes; a cache of another version is rebuilt.
const schemaVersion = "6"

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
CREATE INDEX lines_key ON lines(key);
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
  json TEXT NOT NULL
);
CREATE TABLE verdicts(
  key TEXT NOT NULL,
  ts INTEGER NOT NULL,
  effect TEXT NOT NULL,
  note TEXT NOT NULL,
  PRIMARY KEY(key, ts)
) WITHOUT ROWID;
CREATE VIRTUAL TABLE fts USING fts5(
  content, tags, type, idents,
  content='entries', content_rowid='id',
  tokenize='porter unicode61'
);
`

// indexes serve newest-first listings, whole and by type.
const indexes = `
CREATE INDEX entries_ts ON entries(ts);
CREATE INDEX entries_type_ts ON entries(type, ts);
`

// Index is an open cache database.
type Index struct {
	db    *sql.DB
	lock  *fsx.Lock // held shared while open; exclusive to write (see writeLocked)
	path  string
	store *knowledge.Store
	stale bool // missing, unreadable or of another schema: Sync rebuilds

	// What the last Sync saw, for SanitizeNeeded: the log's sum, and the
	// sum of the log the loaded audit was made from.
	logSum, auditLogSum string
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

const (
	livePragmas  = "_pragma=busy_timeout(10000)&_pragma=journal_mode(DELETE)&_pragma=synchronous(OFF)"
	buildPragmas = "_pragma=journal_mode(OFF)&_pragma=synchronous(OFF)"
)

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
			return err
		}
	}
	return nil
}

// Open opens the cache of store s, creating or rebuilding it when it is
// missing, unreadable or of another schema version. It does not sync; call
// [Index.Sync] before searching.
func Open(s *knowledge.Store) (*Index, error) {
	ix := &Index{path: Path(s), store: s}
	if err := ix.checkFiles(name); err != nil {
		return nil, err
	}
	lock, err := s.Root().AcquireShared(lockName, lockWait)
	if err != nil {
		return nil, err
	}
	ix.lock = lock
	if err := ix.open(); err == nil {
		if v, err := ix.meta("schema"); err == nil && v == schemaVersion {
			return ix, nil
		}
		ix.db.Close()
		ix.db = nil
	}
	ix.stale = true
	return ix, nil
}

func (ix *Index) open() error {
	db, err := sql.Open("sqlite", dsn(ix.path, livePragmas))
	if err != nil {
		return fmt.Errorf("open cache: %w", err)
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

// read reads a source file, capped; a missing file is empty.
func (ix *Index) read(src source) ([]byte, error) {
	return ix.store.ReadFile(src.name, knowledge.MaxLogBytes)
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
// rebuild happens only when most of the log changed.
func (ix *Index) Sync() (SyncResult, error) {
	res, err := ix.syncLog()
	if err != nil {
		return res, err
	}
	return res, ix.syncVerdicts(false)
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
	if err := ix.lock.Exclusive(lockWait); err != nil {
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
	var res SyncResult
	if ix.stale || ix.db == nil {
		return ix.Rebuild()
	}
	var saved state
	if v, err := ix.meta("files"); err == nil {
		_ = json.Unmarshal([]byte(v), &saved)
	}
	now := state{}
	same := saved != nil
	for _, src := range ix.sources() {
		id, err := ix.store.Root().StatID(src.name)
		if err != nil {
			return res, err
		}
		now[src.path] = fileState{ID: id}
		if saved[src.path].ID != id {
			same = false
		}
	}
	if same {
		res.Current = true
		ix.logSum = saved[ix.store.LogPath()].Sum
		return res, nil
	}
	datas := map[string][]byte{}
	contentSame := saved != nil
	for _, src := range ix.sources() {
		data, err := ix.read(src)
		if err != nil {
			return res, err
		}
		datas[src.path] = data
		fs := now[src.path]
		fs.Sum = knowledge.Sum(data)
		now[src.path] = fs
		if saved[src.path].Sum != fs.Sum {
			contentSame = false
		}
	}
	if contentSame {
		// Touched, not changed (a checkout, a rewrite with the same bytes).
		res.Current = true
		return res, ix.writeLocked(func() error { return ix.setFiles(ix.db, now) })
	}
	return ix.catchUp(datas, now)
}

// setFiles records the state of the files the cache now holds, and how
// many entries of the log it holds (see Count): every write of the cache
// ends here, so the count is counted where entries change, not on the
// hook's path.
func (ix *Index) setFiles(ex execer, st state) error {
	ix.logSum = st[ix.store.LogPath()].Sum // read only after Sync succeeded
	b, _ := json.Marshal(st)
	_, err := ex.Exec(`INSERT OR REPLACE INTO meta(k,v) VALUES('files',?)`, string(b))
	if err != nil {
		return fmt.Errorf("save cache state: %w", err)
	}
	_, err = ex.Exec(`INSERT OR REPLACE INTO meta(k,v) SELECT 'count', count(*) FROM entries WHERE archived=0`)
	if err != nil {
		return fmt.Errorf("save cache state: %w", err)
	}
	return nil
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

// scanLines turns source data into distinct line rows, parsing only the
// lines for which parse reports true.
func scanLines(data []byte, archived bool, rows map[string]*lineRow, order *[]string) {
	lines, torn := knowledge.Lines(data)
	for i, line := range lines {
		if len(strings.TrimSpace(string(line))) == 0 {
			continue
		}
		isTorn := torn && i == len(lines)-1
		h := string(hashLine(archived, isTorn, line))
		if r, ok := rows[h]; ok {
			r.n++
			continue
		}
		rows[h] = &lineRow{hash: []byte(h), n: 1, archived: archived, json: line, torn: isTorn}
		*order = append(*order, h)
	}
}

// parseRow fills a row's key, ts and problem from its line. A line may hold
// several entries (glued lines); each becomes its own row, keyed by the
// entry and the line, and the first shares the line's hash.
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

// Rebuild recreates the cache from scratch in a temporary file and renames
// it into place, so readers never see a half-built cache.
func (ix *Index) Rebuild() (SyncResult, error) {
	var res SyncResult
	// Nothing is held while waiting for another rebuild: a process that
	// holds the cache's lock shared and waits for the build lock would
	// keep the builder from installing its file.
	if err := ix.lock.Unlock(); err != nil {
		return res, err
	}
	defer ix.lock.Shared()
	build, err := ix.store.Root().Acquire(buildLockName, lockWait)
	if err != nil {
		return res, err
	}
	defer build.Release()
	if ix.db != nil {
		ix.db.Close()
		ix.db = nil
	}
	tmpName := fmt.Sprintf("%s.build-%d", name, os.Getpid())
	if err := ix.checkFiles(tmpName); err != nil {
		return res, err
	}
	root := ix.store.Root()
	root.Remove(tmpName)
	defer root.Remove(tmpName)
	db, err := sql.Open("sqlite", dsn(root.Path(tmpName), buildPragmas))
	if err != nil {
		return res, fmt.Errorf("create cache: %w", err)
	}
	db.SetMaxOpenConns(1)
	fail := func(err error) (SyncResult, error) {
		db.Close()
		return res, err
	}
	if _, err := db.Exec(schema); err != nil {
		return fail(fmt.Errorf("create cache schema: %w", err))
	}
	now := state{}
	rows := map[string]*lineRow{}
	var order []string
	for _, src := range ix.sources() {
		id, err := ix.store.Root().StatID(src.name)
		if err != nil {
			return fail(err)
		}
		data, err := ix.read(src)
		if err != nil {
			return fail(err)
		}
		now[src.path] = fileState{ID: id, Sum: knowledge.Sum(data)}
		scanLines(data, src.archived, rows, &order)
	}
	tx, err := db.Begin()
	if err != nil {
		return fail(fmt.Errorf("begin: %w", err))
	}
	w, err := newWriter(tx)
	if err != nil {
		tx.Rollback()
		return fail(err)
	}
	// Insert in key order: B-tree appends instead of random inserts.
	var all []*lineRow
	for _, h := range order {
		parsed, rep := parseRowReport(rows[h])
		all = append(all, parsed...)
		for range rows[h].n {
			res.Report.Merge(rep)
		}
	}
	sort.Slice(all, func(a, b int) bool { return bytes.Compare(all[a].hash, all[b].hash) < 0 })
	best := map[string]*lineRow{}
	for _, r := range all {
		if err := w.putLine(r); err != nil {
			tx.Rollback()
			return fail(err)
		}
		res.Added++
		if r.key == "" {
			continue
		}
		if b, ok := best[r.key]; !ok || r.version().Newer(b.version()) {
			best[r.key] = r
		}
	}
	winners := make([]*lineRow, 0, len(best))
	for _, r := range best {
		winners = append(winners, r)
	}
	sort.Slice(winners, func(a, b int) bool { return winners[a].key < winners[b].key })
	for _, r := range winners {
		if err := w.putEntry(r); err != nil {
			tx.Rollback()
			return fail(err)
		}
	}
	// Indexes for newest-first listings (must-check at session start),
	// built once over the sorted data rather than row by row.
	if _, err := tx.Exec(indexes); err != nil {
		tx.Rollback()
		return fail(fmt.Errorf("index cache: %w", err))
	}
	res.Entries = len(best)
	w.close()
	if err := ix.setFiles(tx, now); err != nil {
		tx.Rollback()
		return fail(err)
	}
	if _, err := tx.Exec(`INSERT INTO meta(k,v) VALUES('schema',?)`, schemaVersion); err != nil {
		tx.Rollback()
		return fail(err)
	}
	if err := tx.Commit(); err != nil {
		return fail(fmt.Errorf("commit cache: %w", err))
	}
	if err := db.Close(); err != nil {
		return res, fmt.Errorf("close cache: %w", err)
	}
	// Installing the file waits until no process has the cache open.
	if err := ix.lock.Exclusive(lockWait); err != nil {
		return res, err
	}
	if err := root.Rename(tmpName, name); err != nil {
		return res, fmt.Errorf("install cache: %w", err)
	}
	res.Rebuilt = true
	ix.stale = false
	if err := ix.open(); err != nil {
		return res, err
	}
	return res, ix.syncVerdicts(true)
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

// catchUp applies the difference between the files and the cache.
func (ix *Index) catchUp(datas map[string][]byte, now state) (SyncResult, error) {
	var res SyncResult
	// Serialised with rebuilds, which replace the file.
	// Another process may have rebuilt (replaced) the file while we waited:
	// reopen, and stop if it already holds these files.
	back, err := ix.exclusive()
	if err != nil {
		return res, err
	}
	defer back()
	var saved state
	if v, err := ix.meta("files"); err == nil && json.Unmarshal([]byte(v), &saved) == nil {
		same := true
		for p, fs := range now {
			if saved[p].Sum != fs.Sum {
				same = false
			}
		}
		if same {
			res.Current = true
			return res, ix.setFiles(ix.db, now)
		}
	} else if v, err := ix.meta("schema"); err != nil || v != schemaVersion {
		return ix.Rebuild()
	}
	rows := map[string]*lineRow{}
	var order []string
	for _, src := range ix.sources() {
		scanLines(datas[src.path], src.archived, rows, &order)
	}
	conn, err := ix.db.Conn(context.Background())
	if err != nil {
		return res, fmt.Errorf("cache connection: %w", err)
	}
	defer conn.Close()
	ctx := context.Background()
	if _, err := conn.ExecContext(ctx, `BEGIN IMMEDIATE`); err != nil {
		return res, fmt.Errorf("lock cache: %w", err)
	}
	committed := false
	defer func() {
		if !committed {
			conn.ExecContext(ctx, `ROLLBACK`)
		}
	}()
	known := map[string]int{}
	keyOf := map[string]string{}
	derived := map[string][][]byte{}
	q, err := conn.QueryContext(ctx, `SELECT hash, n, key, parent FROM lines`)
	if err != nil {
		return res, fmt.Errorf("read cache: %w", err)
	}
	for q.Next() {
		var h, parent []byte
		var n int
		var k string
		if err := q.Scan(&h, &n, &k, &parent); err != nil {
			q.Close()
			return res, fmt.Errorf("read cache: %w", err)
		}
		keyOf[string(h)] = k
		if parent != nil {
			derived[string(parent)] = append(derived[string(parent)], h)
			continue
		}
		known[string(h)] = n
	}
	q.Close()
	var added []*lineRow
	var removed [][]byte
	for _, h := range order {
		if _, ok := known[h]; !ok {
			added = append(added, rows[h])
		}
	}
	for h := range known {
		if rows[h] == nil {
			removed = append(removed, []byte(h))
			// The further entries of a glued line go with it.
			removed = append(removed, derived[h]...)
		}
	}
	if len(added)+len(removed) > len(rows)/2+64 {
		conn.ExecContext(ctx, `ROLLBACK`)
		committed = true
		conn.Close()
		return ix.Rebuild()
	}
	tx := connExec{ctx: ctx, conn: conn}
	w, err := newWriter(tx)
	if err != nil {
		return res, err
	}
	defer w.close()
	touched := map[string]bool{}
	for _, h := range removed {
		if k := keyOf[string(h)]; k != "" {
			touched[k] = true
		}
		if _, err := tx.Exec(`DELETE FROM lines WHERE hash=?`, h); err != nil {
			return res, fmt.Errorf("drop line: %w", err)
		}
	}
	for _, r := range added {
		for _, pr := range parseRow(r) {
			if err := w.putLine(pr); err != nil {
				return res, err
			}
			if pr.key != "" {
				touched[pr.key] = true
			}
		}
	}
	for h, n := range known {
		if r := rows[h]; r != nil && r.n != n {
			if _, err := tx.Exec(`UPDATE lines SET n=? WHERE hash=?`, r.n, []byte(h)); err != nil {
				return res, fmt.Errorf("count line: %w", err)
			}
		}
	}
	for k := range touched {
		if err := w.refold(k); err != nil {
			return res, err
		}
	}
	if err := ix.setFiles(tx, now); err != nil {
		return res, err
	}
	w.close()
	if _, err := conn.ExecContext(ctx, `COMMIT`); err != nil {
		return res, fmt.Errorf("commit cache: %w", err)
	}
	committed = true
	res.Added = len(added)
	res.Removed = len(removed)
	err = tx.QueryRow(`SELECT count(*) FROM entries`).Scan(&res.Entries)
	return res, err
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

type preparer interface {
	execer
	Prepare(q string) (*sql.Stmt, error)
	QueryRow(q string, args ...any) *sql.Row
}

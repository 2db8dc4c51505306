package index

import (
	"bytes"
	"database/sql"
	"errors"
	"io/fs"

	"github.com/cairn-dev/cairn/helpers/internal/anchor"
	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
)

// The hook before a tool call answers at every tool call, so it must not
// wait for a catch-up: after a pull of 50 entries into a log of 100k, the
// catch-up (the merge-join, the writes, the line list and the anchor map
// written again) costs some 100 ms, seven times the hook. So that hook
// reads the cache as it is, finds what the log holds that the cache does
// not yet (the same merge-join with the line list as a sync, which reads
// the log once and parses only the lines that changed), folds the keys
// those lines touch as a sync would fold them, and answers from both;
// the catch-up itself is left to a background sync. Nothing is written.

// behind is what the log holds now that the cache does not, as far as
// one tool call goes: the keys the changed lines touch that bear on its
// paths and command, with the entry each has now (see [Index.Entries]),
// and the anchor map brought up to date for them.
type behind struct {
	// now holds each such key with its live entry after the change; a
	// key with no live entry left (retracted, superseded, archived,
	// removed by sanitize, or gone) maps to nil.
	now map[string]*knowledge.Entry
	// anchors is the anchor map for the log as it is now, for the
	// call's paths and command (the lines of other anchors may be behind).
	anchors []byte
}

// OpenForTool opens the cache for the hook before a tool call on paths
// (project-relative) and command (a shell command, or ""): like
// [OpenSyncedForHook], but when the log changed since the cache's last
// write by a pull's worth of lines, it does not catch up. It finds the
// lines that changed (the merge-join of a sync, which reads the log once
// and parses only those lines), and folds, as a sync would, the keys
// they touch that bear on the call: those the map anchors there, those a
// changed line anchors there, and those a line went from. Then
// [Index.Entries] gives the entries as the log holds them now, and
// [Index.Anchors] the anchor map for the log now, as far as paths and
// command go; [Index.Behind] reports it, and the caller starts a
// background sync. An insertion leaves the cache behind the same way
// (it brings the map along with the log, not the cache), and is read so
// too. A change it cannot read so (no line list for the cache's files, an
// anchor map of neither the cache's files nor the log's, more lines than
// a hook applies) is caught up as OpenSyncedForHook does.
func OpenForTool(s *knowledge.Store, paths []string, command string) (*Index, error) {
	ix, err := OpenForHook(s)
	if err != nil {
		return nil, err
	}
	ok, err := ix.readBehind(paths, command)
	if err == nil && !ok {
		_, err = ix.Sync()
	}
	if err != nil {
		ix.Close()
		return nil, err
	}
	return ix, nil
}

// Behind reports whether the cache is behind the log and was read with
// the lines it lacks (see [OpenForTool]): a background sync should bring
// it up to date.
func (ix *Index) Behind() bool { return ix.behind != nil }

// Anchors is the anchor map for the log as it is now: the map on disk,
// or, when the cache is behind (see [OpenForTool]), that map updated in
// memory by the lines the cache lacks, for the tool call's paths and
// command. A missing map is empty.
func (ix *Index) Anchors() ([]byte, error) {
	if ix.behind != nil {
		return ix.behind.anchors, nil
	}
	data, err := ix.store.Root().ReadFile(anchor.File, anchor.MaxBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return data, err
}

// readBehind reads, when the cache is behind the log, the lines it lacks
// that bear on paths and command (see [OpenForTool]); ok is false when
// the cache is current or the change cannot be read so, and Sync must
// run.
func (ix *Index) readBehind(paths []string, command string) (ok bool, err error) {
	if ix.stale || ix.db == nil {
		return false, nil
	}
	files, ferr := ix.meta("files")
	saved, serr := ix.savedFiles()
	if ferr != nil || serr != nil {
		return false, nil
	}
	now, err := ix.statSources()
	if err != nil {
		return false, err
	}
	if saved.sameIDs(now) {
		return false, nil // current: Sync has nothing to catch up
	}
	data, err := ix.store.Root().ReadFile(anchor.File, anchor.MaxBytes)
	if err != nil {
		return false, nil
	}
	// The map is of the cache's files, or, when an insertion advanced it
	// with the log (see knowledge's advanceAnchors), of the log's now:
	// the fold's update of it is then one it holds already.
	if src, ok := anchor.SourcesOf(data); !ok || src != saved.identity(ix.store) && src != now.identity(ix.store) {
		return false, nil // a map of neither: Sync builds it
	}
	if err := ix.syncVerdicts(); err != nil {
		return false, err
	}
	var added []*lineRow
	var d lineDiff
	err = ix.mapSources(func(datas map[string][]byte) error {
		return ix.withLines(files, func(old map[string][]group) error {
			q, joined, err := ix.mergeJoin(datas, old, false)
			if err != nil || !joined || q.work > hookMaxLines {
				return err
			}
			// The lines that went, by the cache's record of them; those
			// that came need no asking (one the cache holds already
			// folds to what it folded to).
			gone := quickDiff{delta: map[[16]byte]int{}}
			for h, n := range q.delta {
				if n < 0 {
					gone.delta[h] = n
					continue
				}
				// In the mapped files: parsed here, the rows keep copies.
				r := q.lines[h]
				r.json = bytes.Clone(r.json)
				added = append(added, parseRow(r)...)
			}
			if d, err = ix.lineDiffOf(gone); err != nil {
				return err
			}
			ok = true
			return nil
		})
	})
	if errors.Is(err, errNoLines) || err == nil && !ok {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	d.added = added
	b, err := ix.foldBehind(d, data, now.identity(ix.store), bearing(d, data, paths, command))
	if err != nil || b == nil {
		return false, err
	}
	ix.behind = b
	return true, nil
}

// bearing are the keys of d that bear on a tool call on paths and
// command: those the map (data, of the cache's files) anchors there, if
// d touches them; those a line d adds anchors there; and those a line
// went from (an older line may win now).
func bearing(d lineDiff, data []byte, paths []string, command string) map[string]bool {
	touched := map[string]bool{}
	out := map[string]bool{}
	for _, h := range d.removed {
		if k := d.keyOf[string(h)]; k != "" {
			out[k] = true
		}
	}
	m := newMap()
	for _, r := range d.added {
		if r.key == "" {
			continue
		}
		touched[r.key] = true
		if r.entry != nil {
			anchorsOf(&m, *r.entry)
		}
	}
	for _, h := range anchor.Lookup(anchor.Encode(m), paths, command) {
		for _, k := range h.Keys {
			out[k] = true
		}
	}
	for _, h := range anchor.Lookup(data, paths, command) {
		for _, k := range h.Keys {
			if touched[k] {
				out[k] = true
			}
		}
	}
	return out
}

// The statements of foldBehind, each a lookup by key (see
// TestHotQueriesUseTheirIndex): a key's entry in the cache, its lines,
// and the verdict on one of them.
const (
	behindEntry   = `SELECT type, anchored, json FROM entries WHERE key=?`
	behindLines   = `SELECT hash, archived, ts, json FROM lines WHERE key=? AND ` + foldableLines
	behindVerdict = `SELECT effect, note FROM verdicts WHERE key=? AND ts=?`
)

// foldBehind folds each of keys from the cache's lines, less those d
// removes, and the lines d adds (parsed), by the latest-line rule, as a
// catch-up's refold does; and updates the anchor map data (of the cache's
// files) for them to the files of identity after, as a catch-up's
// updateAnchors does, from their entries before and after. It is nil
// when data is not a map.
func (ix *Index) foldBehind(d lineDiff, data []byte, after string, keys map[string]bool) (*behind, error) {
	removed := map[string]bool{}
	for _, h := range d.removed {
		removed[string(h)] = true
	}
	byKey := map[string][]*lineRow{}
	for k := range keys {
		byKey[k] = nil
	}
	for _, r := range d.added {
		if keys[r.key] && foldable(r.problem) {
			byKey[r.key] = append(byKey[r.key], r)
		}
	}
	b := &behind{now: map[string]*knowledge.Entry{}}
	ch := newAnchorChange()
	var live []knowledge.Entry
	old, err := ix.db.Prepare(behindEntry)
	if err != nil {
		return nil, dbErr("read cache entry", err)
	}
	defer old.Close()
	lines, err := ix.db.Prepare(behindLines)
	if err != nil {
		return nil, dbErr("read cache line", err)
	}
	defer lines.Close()
	verdict, err := ix.db.Prepare(behindVerdict)
	if err != nil {
		return nil, dbErr("read verdict", err)
	}
	defer verdict.Close()
	for key, rows := range byKey {
		var typ string
		var anchored int
		var js []byte
		switch err := old.QueryRow(key).Scan(&typ, &anchored, &js); {
		case errors.Is(err, sql.ErrNoRows):
			ch.keys[key] = true
		case err != nil:
			return nil, dbErr("read cache entry", err)
		default:
			ch.noteOld(key, js, anchored == 1, typ)
		}
		best, err := ix.latest(lines, key, rows, removed)
		if err != nil {
			return nil, err
		}
		b.now[key] = nil
		if best == nil || best.archived {
			continue
		}
		e := best.entry
		if e == nil {
			en, err := knowledge.DecodeEntry(best.json)
			if err != nil {
				continue
			}
			e = &en
		}
		var effect, note string
		if err := verdict.QueryRow(key, e.TS).Scan(&effect, &note); err != nil && !errors.Is(err, sql.ErrNoRows) {
			return nil, dbErr("read verdict", err)
		}
		if !liveEntry(*e, best.archived, effect) {
			continue
		}
		en := *e
		en.Note = note
		b.now[key] = &en
		live = append(live, en)
	}
	out, ok := anchor.Update(data, after, anchor.Change{Keys: ch.keys, Old: ch.old, New: mapOf(live)})
	if !ok {
		return nil, nil // not a map: Sync builds one
	}
	b.anchors = out
	return b, nil
}

// latest is the winning line of key among the cache's lines (read by
// stmt) that removed does not name, and rows, lines the cache lacks.
func (ix *Index) latest(stmt *sql.Stmt, key string, rows []*lineRow, removed map[string]bool) (*lineRow, error) {
	q, err := stmt.Query(key)
	if err != nil {
		return nil, dbErr("lines of "+key, err)
	}
	defer q.Close()
	var best *lineRow
	var bestV knowledge.Version
	pick := func(r *lineRow) {
		if v := r.version(); best == nil || v.Newer(bestV) {
			best, bestV = r, v
		}
	}
	for q.Next() {
		r := &lineRow{key: key}
		var arch int
		var js string
		if err := q.Scan(&r.hash, &arch, &r.ts, &js); err != nil {
			return nil, dbErr("lines of "+key, err)
		}
		if removed[string(r.hash)] {
			continue
		}
		r.archived = arch == 1
		r.json = []byte(js)
		pick(r)
	}
	if err := q.Err(); err != nil {
		return nil, dbErr("lines of "+key, err)
	}
	for _, r := range rows {
		pick(r)
	}
	return best, nil
}

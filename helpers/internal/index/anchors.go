package index

import (
	"cmp"
	"database/sql"
	"errors"
	"io"
	"io/fs"
	"slices"
	"strings"

	"github.com/cairn-dev/cairn/helpers/internal/anchor"
	"github.com/cairn-dev/cairn/helpers/internal/audit"
	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
	"github.com/cairn-dev/cairn/helpers/internal/typed"
)

// live is the condition of an entry recall may show: in the log, not
// retracted or superseded, not removed by this machine's sanitize. The
// unary plus keeps SQLite off the index on archived, which matches
// nearly every row: a lookup by key must use the key's (see
// TestHotQueriesUseTheirIndex).
const live = `+e.archived=0 AND e.status NOT IN ('retracted','superseded') AND coalesce(v.effect,'') != 'removed'`

// liveEntry is [live] for an entry folded from the log's lines rather
// than read from the cache (see [behind]): e, archived or not, with
// sanitize's verdict's effect on its line ("" for none).
func liveEntry(e knowledge.Entry, archived bool, effect string) bool {
	return !archived && e.Active() && effect != audit.EffectRemoved
}

// maxVars is how many keys one statement binds: SQLite refuses more than
// 32,766 variables, and a few hundred keep each statement's plan a
// lookup by key.
const maxVars = 500

// anchorsOf adds e's anchors with its key to m: its files, each by the
// one path rule ([anchor.Clean]), and a must-check's command prefix.
func anchorsOf(m *anchor.Map, e knowledge.Entry) {
	for _, f := range e.Files {
		if f, ok := anchor.Clean(f); ok {
			m.Files[f] = append(m.Files[f], e.Key)
		}
	}
	if e.Type == typed.MustCheck {
		if c, ok := anchor.Command(e.Content); ok {
			m.Commands[c] = append(m.Commands[c], e.Key)
		}
	}
}

func newMap() anchor.Map {
	return anchor.Map{Files: map[string][]string{}, Commands: map[string][]string{}}
}

// anchorMap is the anchor map of the entries the cache holds (see
// package anchor): the live entries' files, and the live must-checks'
// command prefixes (see [anchor.Command]), each anchor's keys newest
// first. It reads only anchored entries and must-checks, each once: a
// full build, linear in them, for a rebuilt cache or a map that is
// missing or not current.
func (ix *Index) anchorMap() (anchor.Map, error) {
	var es []knowledge.Entry
	if err := readAnchored(ix.db, anchoredAll, nil, &es); err != nil {
		return newMap(), err
	}
	return mapOf(es), nil
}

// The statements that read anchored entries and must-checks: all of
// them, and those of some keys. Neither orders in SQL: an ORDER BY ts
// would have SQLite walk every entry through the index on ts (for 50
// keys, 40% of a sync at 100k); mapOf sorts.
const anchoredAll = `SELECT e.json FROM entries e ` + verdictJoin + ` WHERE (e.anchored=1 OR e.type='` + typed.MustCheck + `') AND ` + live

func anchoredByKey(marks string) string {
	return `SELECT e.json FROM entries e ` + verdictJoin + ` WHERE e.key IN (` + marks + `) AND (+e.anchored=1 OR +e.type='` + typed.MustCheck + `') AND ` + live
}

// readAnchored appends the entries stmt selects to es.
func readAnchored(ex interface {
	Query(string, ...any) (*sql.Rows, error)
}, stmt string, args []any, es *[]knowledge.Entry) error {
	rows, err := ex.Query(stmt, args...)
	if err != nil {
		return dbErr("read anchors", err)
	}
	defer rows.Close()
	for rows.Next() {
		var js string
		if err := rows.Scan(&js); err != nil {
			return dbErr("read anchors", err)
		}
		if e, err := knowledge.DecodeEntry([]byte(js)); err == nil {
			*es = append(*es, e)
		}
	}
	return dbErr("read anchors", rows.Err())
}

// mapOf is the anchor map of es, each anchor's keys newest first.
func mapOf(es []knowledge.Entry) anchor.Map {
	slices.SortFunc(es, func(a, b knowledge.Entry) int {
		if c := cmp.Compare(b.TS, a.TS); c != 0 {
			return c
		}
		return strings.Compare(a.Key, b.Key)
	})
	m := newMap()
	for _, e := range es {
		anchorsOf(&m, e)
	}
	return m
}

// anchorChange is what a write of the cache changes of the anchor map:
// the keys it refolded or whose verdict changed, and the anchors they
// had before it.
type anchorChange struct {
	keys map[string]bool
	old  anchor.Map
}

func newAnchorChange() *anchorChange {
	return &anchorChange{keys: map[string]bool{}, old: newMap()}
}

// noteOld records key as changed, with the anchors of its entry before
// the write (js, its line; read only when the entry is anchored or a
// must-check).
func (c *anchorChange) noteOld(key string, js []byte, anchored bool, typ string) {
	c.keys[key] = true
	if !anchored && typ != typed.MustCheck {
		return
	}
	if e, err := knowledge.DecodeEntry(js); err == nil {
		anchorsOf(&c.old, e)
	}
}

// newAnchors are the anchors of keys as the cache holds them now: the
// live ones'.
func (ix *Index) newAnchors(ex preparer, keys map[string]bool) (anchor.Map, error) {
	list := make([]string, 0, len(keys))
	for k := range keys {
		list = append(list, k)
	}
	var es []knowledge.Entry
	err := eachChunk(list, func(marks string, args []any) error {
		return readAnchored(ex, anchoredByKey(marks), args, &es)
	})
	return mapOf(es), err
}

// eachChunk calls fn with the keys in chunks of at most maxVars: the
// chunk's placeholders ("?,?") and its arguments.
func eachChunk(keys []string, fn func(marks string, args []any) error) error {
	for len(keys) > 0 {
		n := min(len(keys), maxVars)
		args := make([]any, n)
		for i, k := range keys[:n] {
			args[i] = k
		}
		if err := fn(strings.TrimSuffix(strings.Repeat("?,", n), ","), args); err != nil {
			return err
		}
		keys = keys[n:]
	}
	return nil
}

// savedIdentity is the identity (see [anchor.Identity]) of the log files
// the cache holds, as its last write recorded them.
func (ix *Index) savedIdentity() (string, error) {
	saved, err := ix.savedFiles()
	if err != nil {
		return "", err
	}
	return saved.identity(ix.store), nil
}

// identity is the anchor map's identity of the files of st.
func (st state) identity(s *knowledge.Store) string {
	return anchor.FormatIDs(st[s.LogPath()].ID, st[s.ArchivePath()].ID)
}

// mapIdentity is the identity the anchor map on disk records ("" when
// there is none or it is not one).
func (ix *Index) mapIdentity() string { return mapIdentityOf(ix.store) }

// MapBehind reports whether the anchor map of s records other log files
// than the log's (see [anchor.Identity]): a pull, a merge or a checkout
// changed the log since the cache's last write, and a sync should catch
// up. A missing map is not behind. Two stats and a small read: no SQLite.
func MapBehind(s *knowledge.Store) bool {
	src := mapIdentityOf(s)
	if src == "" {
		return false
	}
	id, err := anchor.Identity(s.Root())
	return err == nil && id != src
}

// mapIdentityOf is the identity the anchor map of s records ("" when
// there is none or it is not one).
func mapIdentityOf(s *knowledge.Store) string {
	f, err := s.Root().OpenFile(anchor.File, 0, 0)
	if err != nil {
		return ""
	}
	defer f.Close()
	head := make([]byte, 512)
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return ""
	}
	src, _ := anchor.SourcesOf(head[:n])
	return src
}

// syncAnchors writes the anchor map in full when it does not record the
// files the cache holds: when it is missing, or a write of the cache
// could not update it (see [Index.updateAnchors]).
func (ix *Index) syncAnchors() error {
	id, err := ix.savedIdentity()
	if err != nil {
		return err
	}
	if ix.mapIdentity() == id {
		return nil
	}
	return ix.writeAnchors(id)
}

// writeAnchors writes the anchor map in full, recording id.
func (ix *Index) writeAnchors(id string) error {
	m, err := ix.anchorMap()
	if err != nil {
		return err
	}
	m.Sources = id
	ix.fullMaps++
	return ix.replaceMap(anchor.Encode(m))
}

func (ix *Index) replaceMap(data []byte) error {
	if err := ix.store.Root().MkdirAll(knowledge.CacheDir); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	return ix.store.Root().ReplaceFile(anchor.File, data, 0o644)
}

// updateAnchors brings the anchor map from the cache's files before a
// write (identity before) to the files after it (after), changing only
// the lines of the anchors of the keys the write changed (see
// [anchor.Update]). It runs under the cache's lock held exclusively, so
// no other write comes between. A map that was not current before is
// left to the full build of the Sync that follows; one already current
// after (an insertion brought it there, see [anchor.Advance]) is kept.
func (ix *Index) updateAnchors(ex preparer, ch *anchorChange, before, after string) {
	data, err := ix.store.Root().ReadFile(anchor.File, anchor.MaxBytes)
	if err != nil {
		return
	}
	src, ok := anchor.SourcesOf(data)
	if !ok || src != before || (src == after && len(ch.keys) == 0) {
		return
	}
	if src == after && before != after {
		return
	}
	m, err := ix.newAnchors(ex, ch.keys)
	if err != nil {
		ix.AnchorsErr = err
		return
	}
	out, ok := anchor.Update(data, after, anchor.Change{Keys: ch.keys, Old: ch.old, New: m})
	if !ok {
		return
	}
	if err := ix.replaceMap(out); err != nil {
		ix.AnchorsErr = err
	}
}

// maxEntries caps how many keys [Index.Entries] reads: a hostile log
// may anchor a hundred thousand notes to one file, and the hook before a
// tool call shows a few within its budget.
const maxEntries = 2000

// Entries returns the live entries of keys the cache holds, in the order
// of keys (a key it does not hold, or holds archived or retracted, is
// left out); when the cache is behind the log (see [OpenForTool]), as
// the log holds them now. It reads at most the first 2,000 keys, a few hundred to a
// statement, each looked up by the key's index.
func (ix *Index) Entries(keys []string) ([]knowledge.Entry, error) {
	keys = keys[:min(len(keys), maxEntries)]
	by := map[string]knowledge.Entry{}
	err := eachChunk(keys, func(marks string, args []any) error {
		hits, err := ix.readCandidates(entriesByKey(marks), args...)
		for _, h := range hits {
			by[h.Entry.Key] = h.Entry
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	if ix.behind != nil {
		for _, k := range keys {
			if e, ok := ix.behind.now[k]; ok {
				delete(by, k)
				if e != nil {
					by[k] = *e
				}
			}
		}
	}
	var out []knowledge.Entry
	for _, k := range keys {
		if e, ok := by[k]; ok {
			out = append(out, e)
			delete(by, k)
		}
	}
	return out, nil
}

// entriesByKey is Entries' statement for the keys of marks.
func entriesByKey(marks string) string {
	return `SELECT e.json, e.archived, 0, coalesce(v.effect,''), coalesce(v.note,''), e.id FROM entries e ` +
		verdictJoin + ` WHERE e.key IN (` + marks + `) AND ` + live
}

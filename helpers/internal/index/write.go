package index

import (
	"database/sql"
	"strings"

	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
	"github.com/cairn-dev/cairn/helpers/internal/relevance"
)

// writer holds the prepared statements of one write transaction.
type writer struct {
	ex        preparer
	delta     counts // how the entries written and dropped change the counts
	line      *sql.Stmt
	entry     *sql.Stmt
	ftsAdd    *sql.Stmt
	ftsDel    *sql.Stmt
	entryDel  *sql.Stmt
	findEntry *sql.Stmt
	bestLine  *sql.Stmt
	anchors   *anchorChange // where refold notes the anchors it replaces; nil: nowhere
}

func newWriter(ex preparer) (*writer, error) {
	w := &writer{ex: ex}
	for _, p := range []struct {
		dst **sql.Stmt
		q   string
	}{
		{&w.line, `INSERT OR REPLACE INTO lines(hash,n,archived,key,ts,problem,parent,json) VALUES(?,?,?,?,?,?,?,?)`},
		{&w.entry, `INSERT INTO entries(key,type,content,tags,ts,status,author,archived,idents,json,anchored) VALUES(?,?,?,?,?,?,?,?,?,?,?)`},
		{&w.ftsAdd, `INSERT INTO fts(rowid,content,tags,type,idents) VALUES(?,?,?,?,?)`},
		{&w.ftsDel, `INSERT INTO fts(fts,rowid,content,tags,type,idents) VALUES('delete',?,?,?,?,?)`},
		{&w.entryDel, `DELETE FROM entries WHERE id=?`},
		{&w.findEntry, `SELECT id,content,tags,type,idents,archived,anchored,json FROM entries WHERE key=?`},
		{&w.bestLine, `SELECT archived,ts,json FROM lines WHERE key=? AND ` + foldableLines},
	} {
		st, err := ex.Prepare(p.q)
		if err != nil {
			w.close()
			return nil, dbErr("prepare cache statement", err)
		}
		*p.dst = st
	}
	return w, nil
}

func (w *writer) close() {
	for _, st := range []*sql.Stmt{w.line, w.entry, w.ftsAdd, w.ftsDel, w.entryDel, w.findEntry, w.bestLine} {
		if st != nil {
			st.Close()
		}
	}
	*w = writer{ex: w.ex, delta: w.delta, anchors: w.anchors}
}

func (w *writer) putLine(r *lineRow) error {
	_, err := w.line.Exec(r.hash, r.n, boolInt(r.archived), r.key, r.ts, r.problem, r.parent, string(r.json))
	if err != nil {
		return dbErr("index line", err)
	}
	return nil
}

// putEntry indexes the winning line of a key.
func (w *writer) putEntry(r *lineRow) error {
	var e knowledge.Entry
	if r.entry != nil {
		e = *r.entry
	} else {
		var err error
		if e, err = knowledge.DecodeEntry(r.json); err != nil {
			return dbErr("index entry "+r.key, err)
		}
	}
	tags := strings.Join(e.Tags, " ")
	idents := relevance.Idents(e.Content)
	res, err := w.entry.Exec(e.Key, e.Type, e.Content, tags, e.TS, e.Status, e.Author, boolInt(r.archived), idents, string(r.json), boolInt(len(e.Files) > 0))
	if err != nil {
		return dbErr("index entry "+e.Key, err)
	}
	id, err := res.LastInsertId()
	if err != nil {
		return dbErr("index entry "+e.Key, err)
	}
	if _, err := w.ftsAdd.Exec(id, e.Content, tags, e.Type, idents); err != nil {
		return dbErr("index text of "+e.Key, err)
	}
	w.delta.all++
	if !r.archived {
		w.delta.live++
	}
	return nil
}

// refold replaces a key's entry by the latest of its remaining lines, and
// notes the key and the anchors it had in w.anchors.
func (w *writer) refold(key string) error {
	var id int64
	var content, tags, typ, idents string
	var js []byte
	var archived, anchored int
	err := w.findEntry.QueryRow(key).Scan(&id, &content, &tags, &typ, &idents, &archived, &anchored, &js)
	switch {
	case err == sql.ErrNoRows:
		if w.anchors != nil {
			w.anchors.keys[key] = true
		}
	case err != nil:
		return dbErr("find entry "+key, err)
	default:
		if w.anchors != nil {
			w.anchors.noteOld(key, js, anchored == 1, typ)
		}
		if _, err := w.ftsDel.Exec(id, content, tags, typ, idents); err != nil {
			return dbErr("unindex "+key, err)
		}
		if _, err := w.entryDel.Exec(id); err != nil {
			return dbErr("drop entry "+key, err)
		}
		w.delta.all--
		if archived == 0 {
			w.delta.live--
		}
	}
	rows, err := w.bestLine.Query(key)
	if err != nil {
		return dbErr("lines of "+key, err)
	}
	defer rows.Close()
	var best *lineRow
	var bestV knowledge.Version
	for rows.Next() {
		r := &lineRow{key: key}
		var arch int
		var js string
		if err := rows.Scan(&arch, &r.ts, &js); err != nil {
			return dbErr("lines of "+key, err)
		}
		r.archived = arch == 1
		r.json = []byte(js)
		if v := r.version(); best == nil || v.Newer(bestV) {
			best, bestV = r, v
		}
	}
	if err := rows.Err(); err != nil {
		return dbErr("lines of "+key, err)
	}
	rows.Close()
	if best == nil {
		return nil
	}
	return w.putEntry(best)
}

// foldableLines selects the lines a key's entry is folded from: those
// that hold an entry (read as they are, or repaired).
const foldableLines = `problem IN ('','` + knowledge.ProblemDoubleEncoded + `','` + knowledge.ProblemGluedLines + `')`

// foldable is foldableLines for a line's problem read in Go (see
// [behind]).
func foldable(problem string) bool {
	return problem == "" || problem == knowledge.ProblemDoubleEncoded || problem == knowledge.ProblemGluedLines
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

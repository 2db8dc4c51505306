package index

import (
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/cairn-dev/cairn/helpers/internal/audit"
	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
	"github.com/cairn-dev/cairn/helpers/internal/relevance"
)

// Weights are how bm25 weighs a match by the column it is in. Their
// values are ranking's knobs (package rank's Knobs.Columns), passed in
// with each read; zero weighs every column 1. SQLite's bm25 is better when
// more negative, so positive weights rank matches in the more important
// column first.
type Weights struct {
	Content float64 `knob:"content"`
	Tags    float64 `knob:"tags"`
	Type    float64 `knob:"type"`
	Idents  float64 `knob:"identifiers"`
}

// bm25 is the SQL expression of the weighted bm25 of a full-text match.
func (w Weights) bm25() string {
	if w == (Weights{}) {
		return "bm25(fts)"
	}
	return fmt.Sprintf("bm25(fts, %g, %g, %g, %g)", w.Content, w.Tags, w.Type, w.Idents)
}

// Filter selects entries of the cache, and says how a match of them is
// scored.
type Filter struct {
	Type     string // only this type
	All      bool   // include the archive
	Inactive bool   // include retracted and superseded entries, and those the audit removed
	// Narrow keeps only the entries that match each of its fields set
	// (see [Narrow]).
	Narrow Narrow
	// Weights weigh a match's columns in its BM25 (see [Weights]).
	Weights Weights
	// Older keeps only the entries after it in the newest-first order
	// (ts, newest first, then key), Newer only those before it; with
	// Newer set, [Index.Newest] reads the entries nearest it.
	Older, Newer *Place
}

// Candidate is an entry a read of the cache selected, with what the cache
// knows of it: how well it matches the read's terms and the audit's
// verdict on its line. What they make of its rank is package rank's.
type Candidate struct {
	Entry knowledge.Entry // Note holds the audit's note on its line
	// BM25 is how well the entry matches the terms, higher is better (the
	// negated bm25 of the weighted columns); 0 for a listing.
	BM25     float64
	Archived bool
	// Effect is sanitize's verdict on the entry's line on this machine
	// (see [audit.EffectFlagged]; "" when none).
	Effect string
}

// Read runs fn, a read of the cache. A cache SQLite finds damaged is
// rebuilt from the log, once, and fn runs again; on a hook's path, a
// cache too big to rebuild there answers [ErrNotReady] instead.
func (ix *Index) Read(fn func() error) error {
	err := fn()
	if errors.Is(err, ErrCorrupt) && ix.hook && !ix.small() {
		return fmt.Errorf("%w: %w", ErrNotReady, err)
	}
	if errors.Is(err, ErrCorrupt) {
		// The cache is disposable.
		if _, rerr := ix.Rebuild(); rerr != nil {
			return err
		}
		err = fn()
	}
	return err
}

// filters are the conditions on entries (alias e, verdict v) of f, with
// their arguments.
func filters(f Filter) (where []string, args []any) {
	if !f.All {
		where = append(where, "e.archived=0")
	}
	if !f.Inactive {
		where = append(where, "e.status NOT IN ('retracted','superseded')", "coalesce(v.effect,'') != '"+audit.EffectRemoved+"'")
	}
	if f.Type != "" {
		where = append(where, "e.type=?")
		args = append(args, f.Type)
	}
	where, args = f.Narrow.conditions(where, args)
	return f.placeConditions(where, args)
}

// passes reports whether an entry of archived, status and the audit's
// effect passes f's All and Inactive (the conditions of [filters], in Go).
func (f Filter) passes(archived bool, status, effect string) bool {
	if !f.All && archived {
		return false
	}
	return f.Inactive || status != knowledge.StatusRetracted && status != knowledge.StatusSuperseded && effect != audit.EffectRemoved
}

// Newest returns up to limit entries f selects, newest first, after the
// first skip of them: all of them, or with terms those that match at
// least one. With f.Newer set (and not f.Older) they are the limit
// entries nearest it, the page before it.
func (ix *Index) Newest(terms []string, f Filter, skip, limit int) ([]Candidate, error) {
	where, args := filters(f)
	order := "e.ts DESC, e.key"
	back := f.Newer != nil && f.Older == nil
	if back {
		order = "e.ts, e.key DESC" // read away from the place, then turned
	}
	var cands []Candidate
	var err error
	if len(terms) == 0 {
		cond := "1"
		if len(where) > 0 {
			// Read newest first through entries_ts and stop at the
			// limit, rather than sort them all.
			cond = strings.Join(unarchivedByTS(where), " AND ")
		}
		if skip > 0 {
			// A later page: the ids first, so that the rows skipped are
			// never decoded.
			cands, err = ix.readCandidates(`SELECT e.json, e.archived, 0, coalesce(v.effect,''), coalesce(v.note,''), e.id FROM entries e `+verdictJoin+
				` WHERE e.id IN (SELECT e.id FROM entries e `+verdictJoin+` WHERE `+cond+` ORDER BY `+order+` LIMIT ? OFFSET ?)`+
				` ORDER BY `+order, append(args, limit, skip)...)
		} else {
			cands, err = ix.readCandidates(`SELECT e.json, e.archived, 0, coalesce(v.effect,''), coalesce(v.note,''), e.id FROM entries e `+verdictJoin+
				` WHERE `+cond+` ORDER BY `+order+` LIMIT ?`, append(args, limit)...)
		}
	} else {
		expr, perr := ix.plan(terms)
		if perr != nil || expr == "" {
			return nil, perr
		}
		cands, err = ix.readCandidates(joinedMatches(f.Weights, where, order)+" OFFSET ?", append(append([]any{expr}, args...), limit, max(skip, 0))...)
	}
	if back {
		slices.Reverse(cands)
	}
	return cands, err
}

// Standing counts the entries f selects, and of them those before at in
// the newest-first order (0 when at is nil), in one read: where a page
// read from at stands in the list.
func (ix *Index) Standing(f Filter, at *Place) (total, before int, err error) {
	where, args := filters(f)
	cond := "1"
	if len(where) > 0 {
		if f.covered() {
			where = unarchivedByTS(where)
		}
		cond = strings.Join(where, " AND ")
	}
	ahead, aargs := "0", []any(nil)
	if at != nil {
		ahead, aargs = "e.ts>? OR (e.ts=? AND e.key<?)", []any{at.TS, at.TS, at.Key}
	}
	err = ix.db.QueryRow(`SELECT count(*), coalesce(sum(`+ahead+`),0) FROM entries e `+verdictJoin+` WHERE `+cond, append(aargs, args...)...).Scan(&total, &before)
	return total, before, dbErr("count entries", err)
}

// covered reports whether entries_ts holds every column f's conditions
// read, so that a count walks that index alone; else the rows are read
// in the table's order, not scattered by ts.
func (f Filter) covered() bool {
	n := f.Narrow
	return f.Type == "" && n.Author == "" && n.Branch == "" && n.File == ""
}

// unarchivedByTS is where with its condition on archived kept off the
// archived index, so that SQLite reads entries_ts, which covers it.
func unarchivedByTS(where []string) []string {
	for i, w := range where {
		if w == "e.archived=0" {
			where[i] = "+e.archived=0"
		}
	}
	return where
}

// Selected counts the entries f selects: all of them, or with terms those
// that match at least one (what [Index.Newest] pages through).
func (ix *Index) Selected(terms []string, f Filter) (int, error) {
	if len(terms) == 0 {
		n, _, err := ix.Standing(f, nil)
		return n, err
	}
	where, args := filters(f)
	var n int
	expr, err := ix.plan(terms)
	if err != nil || expr == "" {
		return 0, err
	}
	err = ix.db.QueryRow(`SELECT count(*) FROM fts JOIN entries e ON e.id = fts.rowid `+verdictJoin+` WHERE `+
		strings.Join(append([]string{"fts MATCH ?"}, where...), " AND "), append([]any{expr}, args...)...).Scan(&n)
	return n, dbErr("count entries", err)
}

// Matches reads the entries f selects that match at least one of terms,
// best BM25 first, among the max best matches, and passes each to yield.
// Before it reads a match, it asks wanted whether one of that BM25 may
// still count; the first no ends the read. When f drops so many of the
// max best matches that fewer than need remain, it reads on among the max
// best matches f selects.
func (ix *Index) Matches(terms []string, f Filter, need, max int, wanted func(bm25 float64) bool, yield func(Candidate)) error {
	expr, err := ix.plan(terms)
	if err != nil || expr == "" {
		return err
	}
	var seen map[int64]bool
	if f.Type == "" && f.Narrow == (Narrow{}) {
		var done bool
		if seen, done, err = ix.bestFirst(expr, f, need, max, wanted, yield); err != nil || done {
			return err
		}
	}
	where, args := filters(f)
	rows, err := ix.db.Query(joinedMatches(f.Weights, where, "score DESC"), append(append([]any{expr}, args...), max)...)
	if err != nil {
		return dbErr("search cache", err)
	}
	defer rows.Close()
	for rows.Next() {
		var c Candidate
		var id int64
		var js string
		var arch int
		if err := rows.Scan(&js, &arch, &c.BM25, &c.Effect, &c.Entry.Note, &id); err != nil {
			return dbErr("search cache", err)
		}
		if seen[id] {
			continue
		}
		if !wanted(c.BM25) {
			break
		}
		if c.decode(js, arch) {
			yield(c)
		}
	}
	if err := rows.Err(); err != nil {
		return dbErr("search cache", err)
	}
	return nil
}

// joinedMatches is the statement that selects the entries (with the
// conditions where) matching an expression, ordered by order, with a
// limit: json, archived, BM25, effect, note and id.
func joinedMatches(w Weights, where []string, order string) string {
	// Ordered by the selected column, so bm25 runs once a row.
	return fmt.Sprintf(`SELECT e.json, e.archived, -%s AS score, coalesce(v.effect,''), coalesce(v.note,''), e.id
FROM fts JOIN entries e ON e.id = fts.rowid `+verdictJoin+`
WHERE %s ORDER BY %s LIMIT ?`, w.bm25(), strings.Join(append([]string{"fts MATCH ?"}, where...), " AND "), order)
}

// readCandidates runs stmt, which selects an entry's json, archived,
// BM25, effect, note and id, and returns its candidates.
func (ix *Index) readCandidates(stmt string, args ...any) ([]Candidate, error) {
	rows, err := ix.db.Query(stmt, args...)
	if err != nil {
		return nil, dbErr("search cache", err)
	}
	defer rows.Close()
	var out []Candidate
	for rows.Next() {
		var c Candidate
		var js string
		var arch int
		var id int64
		if err := rows.Scan(&js, &arch, &c.BM25, &c.Effect, &c.Entry.Note, &id); err != nil {
			return nil, dbErr("search cache", err)
		}
		if c.decode(js, arch) {
			out = append(out, c)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, dbErr("search cache", err)
	}
	return out, nil
}

// decode fills the candidate's entry from its json, keeping the note
// already read; false for json that is no entry.
func (c *Candidate) decode(js string, archived int) bool {
	e, err := knowledge.DecodeEntry([]byte(js))
	if err != nil {
		return false
	}
	e.Note = c.Entry.Note
	c.Entry, c.Archived = e, archived == 1
	return true
}

// verdictJoin brings in sanitize's verdict on an entry's current line.
const verdictJoin = `LEFT JOIN verdicts v ON v.key = e.key AND v.ts = e.ts`

// Count is one group of a statistic.
type Count struct {
	Name  string `json:"name"`
	Count int    `json:"count"`
}

// Stats summarises the cache.
type Stats struct {
	Total    int            `json:"total"`
	Archived int            `json:"archived"`
	ByType   map[string]int `json:"by_type"`
	ByStatus map[string]int `json:"by_status"`
	ByAuthor map[string]int `json:"by_author"`
	ByMonth  map[string]int `json:"by_month"`
	Problems map[string]int `json:"problems"`
}

// Count returns how many entries of the log (not the archive) the cache
// holds.
//
// It reads the figure the last write of the cache recorded (counting reads
// every page of the table: milliseconds at 10k, on SessionStart's path);
// a cache written before that figure existed is counted.
func (ix *Index) Count() (int, error) {
	var n int
	if v, err := ix.meta("count"); err == nil {
		if n, err = strconv.Atoi(v); err == nil {
			return n, nil
		}
	}
	if err := ix.db.QueryRow(`SELECT count(*) FROM entries WHERE archived=0`).Scan(&n); err != nil {
		return 0, dbErr("count entries", err)
	}
	return n, nil
}

// Stats counts entries by type, status, author and month (UTC), and the
// log lines the reader skipped or repaired. Archived entries count only
// when all is set.
func (ix *Index) Stats(all bool) (Stats, error) {
	st := Stats{ByType: map[string]int{}, ByStatus: map[string]int{}, ByAuthor: map[string]int{}, ByMonth: map[string]int{}, Problems: map[string]int{}}
	cond := "archived=0"
	if all {
		cond = "1"
	}
	if err := ix.db.QueryRow(`SELECT count(*) FROM entries WHERE archived=1`).Scan(&st.Archived); err != nil {
		return st, dbErr("count entries", err)
	}
	for _, g := range []struct {
		expr string
		dst  map[string]int
	}{
		{"type", st.ByType},
		{"CASE status WHEN '' THEN 'active' ELSE status END", st.ByStatus},
		{"CASE author WHEN '' THEN '(unknown)' ELSE author END", st.ByAuthor},
		{"strftime('%Y-%m', ts, 'unixepoch')", st.ByMonth},
	} {
		if err := ix.group(`SELECT `+g.expr+`, count(*) FROM entries WHERE `+cond+` GROUP BY 1`, g.dst); err != nil {
			return st, err
		}
	}
	for _, n := range st.ByType {
		st.Total += n
	}
	if err := ix.group(`SELECT problem, sum(n) FROM lines WHERE problem != '' GROUP BY 1`, st.Problems); err != nil {
		return st, err
	}
	return st, nil
}

// Totals are what a sync reports: the entries the cache holds, archived
// ones included, and the log's problem lines by kind. Unlike [Index.Stats]
// it reads the counts every write records (and indexes), not the tables.
func (ix *Index) Totals() (total int, problems map[string]int, err error) {
	problems = map[string]int{}
	if v, err := ix.meta("total"); err == nil {
		total, err = strconv.Atoi(v)
		if err != nil {
			total = -1
		}
	} else {
		total = -1
	}
	if total < 0 {
		if err := ix.db.QueryRow(`SELECT count(*) FROM entries INDEXED BY entries_archived`).Scan(&total); err != nil {
			return 0, nil, dbErr("count entries", err)
		}
	}
	err = ix.group(`SELECT problem, sum(n) FROM lines INDEXED BY lines_problem WHERE problem != '' GROUP BY 1`, problems)
	return total, problems, err
}

func (ix *Index) group(q string, dst map[string]int) error {
	rows, err := ix.db.Query(q)
	if err != nil {
		return dbErr("count entries", err)
	}
	defer rows.Close()
	for rows.Next() {
		var name sql.NullString
		var n int
		if err := rows.Scan(&name, &n); err != nil {
			return dbErr("count entries", err)
		}
		dst[name.String] = n
	}
	return rows.Err()
}

// maxScored bounds how many matching entries one query scores with bm25,
// whatever the size of the log: scoring is the cost of a query, and a term
// that matches thousands of entries says little about any of them.
const maxScored = 2000

// quoteTerms joins terms with op for MATCH, each quoted as a string so no
// input is read as FTS5 syntax, and a long one as a prefix (see prefixed).
func quoteTerms(terms []string, op string) string {
	q := make([]string, len(terms))
	for i, t := range terms {
		q[i] = `"` + strings.ReplaceAll(t, `"`, `""`) + `"`
		if relevance.Prefixed(t) {
			q[i] += "*"
		}
	}
	return strings.Join(q, " "+op+" ")
}

// plan builds the MATCH expression for terms. On a log small enough that
// no query can match more than maxScored entries, it is every term ORed.
// On a bigger log, terms are counted (each count stops at maxScored+1),
// terms that match nothing are dropped, and the rarest terms are kept while
// their matches add up to at most maxScored; when even the rarest term is
// that common, the terms must all match (AND), and if no entry has them
// all, the rarest alone is used.
func (ix *Index) plan(terms []string) (string, error) {
	if len(terms) == 0 {
		return "", nil
	}
	var size int
	if err := ix.db.QueryRow(`SELECT coalesce(max(id), 0) FROM entries`).Scan(&size); err != nil {
		return "", dbErr("search cache", err)
	}
	if size <= maxScored || len(terms) == 1 {
		return quoteTerms(terms, "OR"), nil
	}
	type termDF struct {
		term string
		df   int
	}
	var dfs []termDF
	for _, t := range terms {
		n, err := ix.countUpTo(quoteTerms([]string{t}, "OR"), maxScored+1)
		if err != nil {
			return "", err
		}
		if n > 0 {
			dfs = append(dfs, termDF{t, n})
		}
	}
	if len(dfs) == 0 {
		return "", nil
	}
	sort.SliceStable(dfs, func(a, b int) bool { return dfs[a].df < dfs[b].df })
	if dfs[0].df > maxScored {
		all := make([]string, len(dfs))
		for i, d := range dfs {
			all[i] = d.term
		}
		and := quoteTerms(all, "AND")
		if n, err := ix.countUpTo(and, 1); err != nil || n > 0 {
			return and, err
		}
		return quoteTerms(all[:1], "OR"), nil
	}
	var keep []string
	sum := 0
	for _, d := range dfs {
		if sum+d.df > maxScored {
			break
		}
		keep = append(keep, d.term)
		sum += d.df
	}
	return quoteTerms(keep, "OR"), nil
}

// DocFreq counts the entries of the cache a search for term matches (as
// [Index.Matches] reads it: a long term as a prefix), stopping at max.
func (ix *Index) DocFreq(term string, max int) (int, error) {
	return ix.countUpTo(quoteTerms([]string{term}, "OR"), max)
}

// countUpTo counts the entries matching expr, stopping at max.
func (ix *Index) countUpTo(expr string, max int) (int, error) {
	var n int
	err := ix.db.QueryRow(`SELECT count(*) FROM (SELECT rowid FROM fts WHERE fts MATCH ? LIMIT ?)`, expr, max).Scan(&n)
	if err != nil {
		return 0, dbErr("search cache", err)
	}
	return n, nil
}

// bestFirst reads the max best matches of expr by BM25 in the full-text
// index alone, then only the entries of those wanted, in batches, and
// passes those f selects to yield. It returns the ids it passed; done is
// false when f dropped so many that fewer than need remain of a full
// max, and the joined statement must decide.
func (ix *Index) bestFirst(expr string, f Filter, need, max int, wanted func(float64) bool, yield func(Candidate)) (seen map[int64]bool, done bool, err error) {
	top, err := ix.bestIDs(expr, f.Weights, max)
	if err != nil {
		return nil, false, err
	}
	seen = map[int64]bool{}
	batch := map[int64]candidateRow{}
	read := 0 // candidates of top fetched so far
	for i, r := range top {
		if !wanted(r.bm25) {
			return seen, true, nil
		}
		if i >= read {
			// Entries are read in batches of the best candidates, one
			// statement each (every statement costs a lock round trip).
			next := top[read:min(len(top), read+need+10)]
			if err := ix.fetchRows(next, batch); err != nil {
				return nil, false, err
			}
			read += len(next)
		}
		row, found := batch[r.id]
		if !found || !f.passes(row.arch == 1, row.status, row.effect) {
			continue
		}
		c := Candidate{BM25: r.bm25, Effect: row.effect}
		c.Entry.Note = row.note
		if c.decode(row.js, row.arch) {
			seen[r.id] = true
			yield(c)
		}
	}
	// Every match was seen, or enough passed the filters.
	return seen, len(top) < max || len(seen) >= need, nil
}

// scoredID is a match of the full-text index: its row and its BM25.
type scoredID struct {
	id   int64
	bm25 float64
}

// bestIDs returns the max best matches of expr by BM25, best first.
func (ix *Index) bestIDs(expr string, w Weights, max int) ([]scoredID, error) {
	// Ordered by the selected column, so bm25 runs once a row, not twice.
	rows, err := ix.db.Query(`SELECT rowid, -`+w.bm25()+` AS score FROM fts WHERE fts MATCH ? ORDER BY score DESC LIMIT ?`, expr, max)
	if err != nil {
		return nil, dbErr("search cache", err)
	}
	defer rows.Close()
	var top []scoredID
	for rows.Next() {
		var r scoredID
		if err := rows.Scan(&r.id, &r.bm25); err != nil {
			return nil, dbErr("search cache", err)
		}
		top = append(top, r)
	}
	if err := rows.Err(); err != nil {
		return nil, dbErr("search cache", err)
	}
	return top, nil
}

// candidateRow is what bestFirst reads of an entry.
type candidateRow struct {
	js, status, effect, note string
	arch                     int
}

// fetchRows reads the entries of ids into batch, in one statement.
func (ix *Index) fetchRows(ids []scoredID, batch map[int64]candidateRow) error {
	list := make([]string, 0, len(ids))
	for _, r := range ids {
		list = append(list, strconv.FormatInt(r.id, 10))
	}
	rows, err := ix.db.Query(`SELECT e.id, e.json, e.archived, e.status, coalesce(v.effect,''), coalesce(v.note,'') FROM entries e ` +
		verdictJoin + ` WHERE e.id IN (` + strings.Join(list, ",") + `)`)
	if err != nil {
		return dbErr("search cache", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var r candidateRow
		if err := rows.Scan(&id, &r.js, &r.arch, &r.status, &r.effect, &r.note); err != nil {
			return dbErr("search cache", err)
		}
		batch[id] = r
	}
	return rows.Err()
}

// Has reports whether the cache holds an entry of key (in the log or the
// archive, whatever its status).
func (ix *Index) Has(key string) (bool, error) {
	var n int
	if err := ix.db.QueryRow(`SELECT count(*) FROM entries WHERE key = ?`, key).Scan(&n); err != nil {
		return false, dbErr("look up a key", err)
	}
	return n > 0, nil
}

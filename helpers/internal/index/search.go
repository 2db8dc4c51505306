package index

import (
	"database/sql"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/cairn-dev/cairn/helpers/internal/audit"
	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
	"github.com/cairn-dev/cairn/helpers/internal/relevance"
)

// Column weights for bm25: content matters most, then tags, then the type.
// SQLite's bm25 is better when more negative, so positive weights rank
// matches in the more important column first.
const (
	weightContent = 10.0
	weightTags    = 5.0
	weightType    = 2.0
	weightIdents  = 4.0
)

// DefaultLimit is how many hits a query without a Limit returns.
const DefaultLimit = 10

// Query selects entries from the cache.
type Query struct {
	Text        string // free text; empty lists entries newest first
	Type        string // only this type
	All         bool   // include the archive
	Inactive    bool   // include retracted and superseded entries, and those sanitize removed
	Limit       int    // at most this many (DefaultLimit when 0)
	Floor       bool   // answer only if a match is confident (see [relevance.Confident])
	NewestFirst bool   // order by ts instead of relevance
}

// Hit is one entry found, with its relevance (higher is better; 0 when the
// query had no text).
type Hit struct {
	Entry    knowledge.Entry
	Score    float64
	Archived bool
	// Effect is sanitize's verdict on the entry's line on this machine
	// (see [audit.EffectFlagged]; "" when none), which the score's
	// priors took into account.
	Effect string
	// Synonym is set when the entry came in with the query's synonyms,
	// after every match of its words as written.
	Synonym bool
}

// Search runs a query against the cache. Text with no usable term finds
// nothing rather than everything. A cache SQLite finds damaged is rebuilt
// from the log, once, and asked again; any other failure returns no hits.
func (ix *Index) Search(q Query) ([]Hit, error) {
	if q.Limit <= 0 {
		q.Limit = DefaultLimit
	}
	hits, err := ix.search(q)
	if errors.Is(err, ErrCorrupt) && ix.hook && !ix.small() {
		return nil, fmt.Errorf("%w: %w", ErrNotReady, err)
	}
	if errors.Is(err, ErrCorrupt) {
		// The cache is disposable.
		if _, rerr := ix.Rebuild(); rerr != nil {
			return nil, err
		}
		hits, err = ix.search(q)
	}
	if err != nil {
		return nil, err
	}
	return hits, nil
}

// search answers q, whose Limit is set, from the cache as it is: a listing
// without text; with text, the matches of its terms, filled up from their
// synonyms when too few, and gated by the confidence floor.
func (ix *Index) search(q Query) ([]Hit, error) {
	if strings.TrimSpace(q.Text) == "" {
		return ix.list(q)
	}
	terms := relevance.Terms(q.Text)
	hits, err := ix.matches(q, terms)
	if err != nil || q.NewestFirst {
		return hits, err
	}
	expanded := relevance.Expand(terms)
	if len(hits) < q.Limit && len(expanded) > len(terms) {
		// Too few matches for the words as written: fill up with what
		// the abbreviations and their spellings out find (parse -> pkg,
		// db -> database), ranked after every direct match.
		more, err := ix.matches(q, relevance.Terms(strings.Join(expanded[len(terms):], " ")))
		if err != nil {
			return nil, err
		}
		hits = fill(hits, more, q.Limit)
	}
	if q.Floor && !confident(hits, terms, expanded) {
		return nil, nil
	}
	return hits, nil
}

// fill appends to hits those of more it does not hold, up to limit.
func fill(hits, more []Hit, limit int) []Hit {
	seen := map[string]bool{}
	for _, h := range hits {
		seen[h.Entry.Key] = true
	}
	for _, h := range more {
		if len(hits) == limit {
			break
		}
		if !seen[h.Entry.Key] {
			seen[h.Entry.Key] = true
			h.Synonym = true
			hits = append(hits, h)
		}
	}
	return hits
}

// confident is the confidence floor: a query answers only if at least one
// of its best matches is confident (see [relevance.Confident]) for its
// terms or, when it has synonyms, for them too. Gating the whole answer,
// rather than filtering each match, keeps the entries that share one rare
// word with a real question while a question about something the log does
// not cover gets no answer.
func confident(hits []Hit, terms, expanded []string) bool {
	for _, h := range hits {
		if relevance.Confident(h.Entry, terms) || (len(expanded) > len(terms) && relevance.Confident(h.Entry, expanded)) {
			return true
		}
	}
	return false
}

// filters are the conditions on entries (alias e, verdict v) of q's
// Type, All and Inactive, with their arguments.
func filters(q Query) (where []string, args []any) {
	if !q.All {
		where = append(where, "e.archived=0")
	}
	if !q.Inactive {
		where = append(where, "e.status NOT IN ('retracted','superseded')", "coalesce(v.effect,'') != 'removed'")
	}
	if q.Type != "" {
		where = append(where, "e.type=?")
		args = append(args, q.Type)
	}
	return where, args
}

// list lists the entries q selects, newest first.
func (ix *Index) list(q Query) ([]Hit, error) {
	where, args := filters(q)
	cond := "1"
	if len(where) > 0 {
		cond = strings.Join(where, " AND ")
	}
	stmt := `SELECT e.json, e.archived, 0, e.status, coalesce(v.effect,''), coalesce(v.note,'') FROM entries e ` + verdictJoin +
		` WHERE ` + cond + ` ORDER BY e.ts DESC, e.key LIMIT ?`
	return ix.readHits(q.Limit, false, stmt, append(args, q.Limit)...)
}

// matches finds the entries q selects that match terms: ranked by bm25
// scaled by the priors, or newest first.
func (ix *Index) matches(q Query, terms []string) ([]Hit, error) {
	expr, err := ix.plan(terms)
	if err != nil || expr == "" {
		return nil, err
	}
	if q.Type == "" && !q.NewestFirst {
		if hits, ok, err := ix.rankFirst(expr, q); err != nil || ok {
			return hits, err
		}
	}
	where, args := filters(q)
	where = append([]string{"fts MATCH ?"}, where...)
	args = append([]any{expr}, args...)
	order := "score DESC"        // the column, so bm25 runs once a row
	limit := candidates(q.Limit) // priors may reorder the best few
	if q.NewestFirst {
		order, limit = "e.ts DESC, e.key", q.Limit
	}
	stmt := fmt.Sprintf(`SELECT e.json, e.archived, -%s AS score, e.status, coalesce(v.effect,''), coalesce(v.note,'')
FROM fts JOIN entries e ON e.id = fts.rowid `+verdictJoin+`
WHERE %s ORDER BY %s LIMIT ?`, bm25Expr, strings.Join(where, " AND "), order)
	return ix.readHits(q.Limit, !q.NewestFirst, stmt, append(args, limit)...)
}

// readHits runs stmt, which selects an entry's json, archived, score,
// status, effect and note, and returns the first limit hits; ranked
// scales the scores by the priors and orders by them.
func (ix *Index) readHits(limit int, ranked bool, stmt string, args ...any) ([]Hit, error) {
	rows, err := ix.db.Query(stmt, args...)
	if err != nil {
		return nil, dbErr("search cache", err)
	}
	defer rows.Close()
	var hits []Hit
	for rows.Next() {
		var js, status, effect, note string
		var arch int
		var score float64
		if err := rows.Scan(&js, &arch, &score, &status, &effect, &note); err != nil {
			return nil, dbErr("search cache", err)
		}
		e, err := knowledge.DecodeEntry([]byte(js))
		if err != nil {
			continue
		}
		e.Note = note
		if ranked {
			score *= relevance.Prior(e, effect)
		}
		hits = append(hits, Hit{Entry: e, Score: score, Archived: arch == 1, Effect: effect})
	}
	if err := rows.Err(); err != nil {
		return nil, dbErr("search cache", err)
	}
	if ranked {
		sortHits(hits)
		hits = hits[:min(len(hits), limit)]
	}
	return hits, nil
}

// verdictJoin brings in sanitize's verdict on an entry's current line.
const verdictJoin = `LEFT JOIN verdicts v ON v.key = e.key AND v.ts = e.ts`

// candidates is how many of the best bm25 matches are read for a query
// that shows limit: enough for the priors to lift a lower match into view.
func candidates(limit int) int { return limit*3 + 20 }

// sortHits orders hits best first; equal scores keep their order.
func sortHits(hits []Hit) {
	sort.SliceStable(hits, func(a, b int) bool { return hits[a].Score > hits[b].Score })
}

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

var bm25Expr = fmt.Sprintf("bm25(fts, %g, %g, %g, %g)", weightContent, weightTags, weightType, weightIdents)

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

// countUpTo counts the entries matching expr, stopping at max.
func (ix *Index) countUpTo(expr string, max int) (int, error) {
	var n int
	err := ix.db.QueryRow(`SELECT count(*) FROM (SELECT rowid FROM fts WHERE fts MATCH ? LIMIT ?)`, expr, max).Scan(&n)
	if err != nil {
		return 0, dbErr("search cache", err)
	}
	return n, nil
}

// rankFirst ranks matches in the full-text index alone, then reads only
// the few best entries; ok is false when filters removed so many that the
// joined query must decide.
func (ix *Index) rankFirst(expr string, q Query) (hits []Hit, ok bool, err error) {
	want := candidates(q.Limit)
	// Ordered by the selected column, so bm25 runs once a row, not twice.
	rows, err := ix.db.Query(`SELECT rowid, -`+bm25Expr+` AS score FROM fts WHERE fts MATCH ? ORDER BY score DESC LIMIT ?`, expr, want)
	if err != nil {
		return nil, false, dbErr("search cache", err)
	}
	type ranked struct {
		id    int64
		score float64
	}
	var top []ranked
	for rows.Next() {
		var r ranked
		if err := rows.Scan(&r.id, &r.score); err != nil {
			rows.Close()
			return nil, false, dbErr("search cache", err)
		}
		top = append(top, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, false, dbErr("search cache", err)
	}
	// Entries are read in batches of the best candidates, one statement
	// each (every statement costs a lock round trip of its own).
	type row struct {
		js, status, effect, note string
		arch                     int
	}
	batch := map[int64]row{}
	read := 0 // candidates of top fetched so far
	fetch := func(n int) error {
		next := top[read:]
		if n < len(next) {
			next = next[:n]
		}
		ids := make([]string, 0, len(next))
		for _, r := range next {
			ids = append(ids, fmt.Sprint(r.id))
		}
		read += len(ids)
		rows, err := ix.db.Query(`SELECT e.id, e.json, e.archived, e.status, coalesce(v.effect,''), coalesce(v.note,'') FROM entries e ` +
			verdictJoin + ` WHERE e.id IN (` + strings.Join(ids, ",") + `)`)
		if err != nil {
			return dbErr("search cache", err)
		}
		defer rows.Close()
		for rows.Next() {
			var id int64
			var r row
			if err := rows.Scan(&id, &r.js, &r.arch, &r.status, &r.effect, &r.note); err != nil {
				return dbErr("search cache", err)
			}
			batch[id] = r
		}
		return rows.Err()
	}
	for i, r := range top {
		// Matches come best first by bm25; once even the greatest prior
		// cannot lift the next one into the top Limit, stop reading.
		if len(hits) >= q.Limit {
			sortHits(hits)
			if r.score*relevance.MaxPrior < hits[q.Limit-1].Score {
				break
			}
		}
		if i >= read {
			if err := fetch(q.Limit + 10); err != nil {
				return nil, false, err
			}
		}
		e0, found := batch[r.id]
		if !found {
			continue
		}
		js, arch, status, effect, note := e0.js, e0.arch, e0.status, e0.effect, e0.note
		if (!q.All && arch == 1) || (!q.Inactive && (status == knowledge.StatusRetracted || status == knowledge.StatusSuperseded || effect == audit.EffectRemoved)) {
			continue
		}
		e, err := knowledge.DecodeEntry([]byte(js))
		if err != nil {
			continue
		}
		e.Note = note
		hits = append(hits, Hit{Entry: e, Score: r.score * relevance.Prior(e, effect), Archived: arch == 1, Effect: effect})
	}
	sortHits(hits)
	// Every match was seen, or enough survived the filters.
	ok = len(top) < want || len(hits) >= q.Limit
	return hits[:min(len(hits), q.Limit)], ok, nil
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

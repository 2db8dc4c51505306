package index

import (
	"database/sql"
	"fmt"
	"strings"
	"unicode"

	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
)

// MaxTerms caps how many terms of a query reach FTS5, so a pasted page of
// text cannot make a query slow.
const MaxTerms = 16

// Column weights for bm25: content matters most, then tags, then the type.
// SQLite's bm25 is better when more negative, so positive weights rank
// matches in the more important column first.
const (
	weightContent = 10.0
	weightTags    = 5.0
	weightType    = 2.0
)

// stopWords are dropped from queries: they match nearly every entry and
// add cost, not meaning.
var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a about above after again against all am an and any are as at be because been
before being below between both but by can could did do does doing down during each few for from further had has
have having he her here hers herself him himself his how i if in into is it its itself just let me more most my
myself no nor not now of off on once only or other our ours ourselves out over own same she should so some such
than that the their theirs them themselves then there these they this those through to too under until up very
was we were what when where which while who whom why will with would you your yours yourself yourselves also
get got use used using via per vs etc ie eg`) {
		m[w] = true
	}
	return m
}()

// Terms splits text into the lower-case search terms a query uses: runs of
// letters and digits, stop words and one-letter words dropped, duplicates
// removed, at most MaxTerms.
func Terms(text string) []string {
	var terms []string
	seen := map[string]bool{}
	for _, f := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		if len([]rune(f)) < 2 || stopWords[f] || seen[f] {
			continue
		}
		seen[f] = true
		terms = append(terms, f)
		if len(terms) == MaxTerms {
			break
		}
	}
	return terms
}

// MatchExpr builds an FTS5 MATCH expression from any user text: every term
// quoted as a string and joined with OR, so no input can be read as FTS5
// syntax. It returns "" when the text has no usable term.
func MatchExpr(text string) string {
	terms := Terms(text)
	for i, t := range terms {
		terms[i] = `"` + strings.ReplaceAll(t, `"`, `""`) + `"`
	}
	return strings.Join(terms, " OR ")
}

// Query selects entries from the cache.
type Query struct {
	Text        string // free text; empty lists entries newest first
	Type        string // only this type
	All         bool   // include the archive
	Inactive    bool   // include retracted and superseded entries
	Limit       int    // at most this many (default 10)
	NewestFirst bool   // order by ts instead of relevance
}

// Hit is one entry found, with its relevance (higher is better; 0 when the
// query had no text).
type Hit struct {
	Entry    knowledge.Entry
	Score    float64
	Archived bool
}

// Search runs a query against the cache. Text with no usable term finds
// nothing rather than everything.
func (ix *Index) Search(q Query) ([]Hit, error) {
	if q.Limit <= 0 {
		q.Limit = 10
	}
	var where []string
	var args []any
	if !q.All {
		where = append(where, "e.archived=0")
	}
	if !q.Inactive {
		where = append(where, "e.status NOT IN ('retracted','superseded')")
	}
	if q.Type != "" {
		where = append(where, "e.type=?")
		args = append(args, q.Type)
	}
	order := fmt.Sprintf("bm25(fts, %g, %g, %g)", weightContent, weightTags, weightType)
	if q.NewestFirst {
		order = "e.ts DESC, e.key"
	}
	var query string
	if strings.TrimSpace(q.Text) != "" {
		expr := MatchExpr(q.Text)
		if expr == "" {
			return nil, nil
		}
		where = append([]string{"fts MATCH ?"}, where...)
		args = append([]any{expr}, args...)
		query = fmt.Sprintf(`SELECT e.json, e.archived, -bm25(fts, %g, %g, %g) AS score
FROM fts JOIN entries e ON e.id = fts.rowid
WHERE %s ORDER BY %s LIMIT ?`,
			weightContent, weightTags, weightType, strings.Join(where, " AND "), order)
	} else {
		cond := "1"
		if len(where) > 0 {
			cond = strings.Join(where, " AND ")
		}
		query = `SELECT e.json, e.archived, 0 FROM entries e WHERE ` + cond + ` ORDER BY e.ts DESC, e.key LIMIT ?`
	}
	args = append(args, q.Limit)
	rows, err := ix.db.Query(query, args...)
	if err != nil {
		return nil, fmt.Errorf("search cache: %w", err)
	}
	defer rows.Close()
	var hits []Hit
	for rows.Next() {
		var js string
		var arch int
		var score float64
		if err := rows.Scan(&js, &arch, &score); err != nil {
			return nil, fmt.Errorf("search cache: %w", err)
		}
		e, err := entryFromJSON(js)
		if err != nil {
			continue
		}
		hits = append(hits, Hit{Entry: e, Score: score, Archived: arch == 1})
	}
	return hits, rows.Err()
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
		return st, fmt.Errorf("count entries: %w", err)
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

func (ix *Index) group(q string, dst map[string]int) error {
	rows, err := ix.db.Query(q)
	if err != nil {
		return fmt.Errorf("count entries: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var name sql.NullString
		var n int
		if err := rows.Scan(&name, &n); err != nil {
			return fmt.Errorf("count entries: %w", err)
		}
		dst[name.String] = n
	}
	return rows.Err()
}

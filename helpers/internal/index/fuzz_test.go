package index

import (
	"database/sql"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
	"github.com/cairn-dev/cairn/helpers/internal/relevance"
)

var matchSeeds = []string{
	"",
	" ",
	`" OR NEAR( * - ^ : AND NOT {col}:x`,
	`"unterminated`,
	`""`,
	`"a" "b"`,
	"NEAR(oauth redirect, 2)",
	"content:oauth",
	"{content tags}: oauth",
	"oauth*",
	"-oauth",
	"^oauth",
	"oauth + redirect",
	"AND", "OR", "NOT", "NEAR", "and or not",
	"()", "(((", ")))", "[]", "{}", ":", "*", "^", "-", "+",
	"'", "''", "`", "\\", "\\\"",
	"OAuth redirect URI must match exactly",
	"日本語のテキスト 検索",
	"naïve café résumé",
	"e\u0301 combining marks a\u0308",
	"İstanbul ǅemal ß ﬁle",
	"Ⅻ ① ٣ ²",
	"emoji 🦫 and flags 🇫🇷",
	"\x00nul\x00bytes\x00",
	"\xff\xfe invalid \xc3 utf8",
	"zero\u200bwidth\u200djoiner",
	"right\u202eto\u202cleft",
	strings.Repeat("word ", 200),
	strings.Repeat("x", 5000),
	strings.Repeat("\"(", 100),
	"a1 b2 c3 42 3.14 v1.2.3",
	"under_score dash-ed dot.ted slash/ed",
}

// FuzzMatchExpr: whatever the user types, the MATCH expression built from
// it is valid FTS5 — the query never fails — against a real FTS5 table
// with the cache's tokenizer, and through the cache's own Search.
func FuzzMatchExpr(f *testing.F) {
	for _, s := range matchSeeds {
		f.Add(s)
	}
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		f.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	f.Cleanup(func() { db.Close() })
	if _, err := db.Exec(`CREATE VIRTUAL TABLE fts USING fts5(content, tags, type, tokenize='porter unicode61')`); err != nil {
		f.Fatal(err)
	}
	for _, row := range [][3]string{
		{"OAuth redirect URI must match exactly", "oauth auth", "learned"},
		{"日本語のテキスト", "", "fact"},
		{"naïve café", "unicode", "decision"},
	} {
		if _, err := db.Exec(`INSERT INTO fts(content, tags, type) VALUES(?,?,?)`, row[0], row[1], row[2]); err != nil {
			f.Fatal(err)
		}
	}

	// A real cache, for Search.
	s := knowledge.Open(f.TempDir())
	if _, err := s.Insert([]knowledge.Entry{
		{Key: "f1", Type: "learned", Content: "OAuth redirect URI must match exactly", Tags: []string{"oauth"}, TS: 1},
		{Key: "f2", Type: "fact", Content: "日本語のテキスト naïve café", TS: 2},
	}); err != nil {
		f.Fatal(err)
	}
	ix, err := Open(s)
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { ix.Close() })
	if _, err := ix.Sync(); err != nil {
		f.Fatal(err)
	}

	f.Fuzz(func(t *testing.T, text string) {
		expr := matchExpr(text)
		terms := relevance.Terms(text)
		if (expr == "") != (len(terms) == 0) {
			t.Fatalf("matchExpr(%q) = %q but Terms = %q", text, expr, terms)
		}
		if len(terms) > relevance.MaxTerms {
			t.Fatalf("%d terms, max %d", len(terms), relevance.MaxTerms)
		}
		for _, term := range terms {
			if term == "" || term != strings.ToLower(term) {
				t.Fatalf("bad term %q", term)
			}
		}
		if expr != "" {
			var n int
			if err := db.QueryRow(`SELECT count(*) FROM fts WHERE fts MATCH ?`, expr).Scan(&n); err != nil {
				t.Fatalf("MATCH %q (from %q): %v", expr, text, err)
			}
			rows, err := db.Query(`SELECT bm25(fts, 10, 5, 2) FROM fts WHERE fts MATCH ? ORDER BY 1`, expr)
			if err != nil {
				t.Fatalf("bm25 with MATCH %q (from %q): %v", expr, text, err)
			}
			m := 0
			for rows.Next() {
				var score float64
				if err := rows.Scan(&score); err != nil {
					t.Fatal(err)
				}
				m++
			}
			if err := rows.Err(); err != nil {
				t.Fatalf("bm25 with MATCH %q (from %q): %v", expr, text, err)
			}
			rows.Close()
			if m != n {
				t.Fatalf("count %d, rows %d", n, m)
			}
		}
		for _, q := range []Query{{Text: text}, {Text: text, All: true, Inactive: true, Type: "fact"}, {Text: text, NewestFirst: true}} {
			if _, err := ix.Search(q); err != nil {
				t.Fatalf("Search(%q): %v", text, err)
			}
		}
	})
}

// matchExpr builds an FTS5 MATCH expression from any user text: its terms
// (see [relevance.Terms]) quoted and joined with OR, as a search on a small
// log sends them, so no input can be read as FTS5 syntax; "" when the text
// has no usable term. The fuzz target checks quoteTerms through it.
func matchExpr(text string) string {
	terms := relevance.Terms(text)
	if len(terms) == 0 {
		return ""
	}
	return quoteTerms(terms, "OR")
}

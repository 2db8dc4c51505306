package index

import (
	"strings"

	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
)

// Columns of the full-text index, as an explanation names them.
var ftsColumns = []struct{ column, name string }{
	{"content", "content"}, {"tags", "tags"}, {"type", "type"}, {"idents", "identifiers"},
}

// Fields says, for each of hits, which of terms the full-text index
// matches in which of its fields (content, tags, type, identifiers: the
// parts of the content's identifiers), as the search matched them: same
// stemmer, same prefixes. One query per term and field, over the hits'
// rows only.
func (ix *Index) Fields(hits []Hit, terms []string) ([]map[string][]string, error) {
	out := make([]map[string][]string, len(hits))
	if len(hits) == 0 {
		return out, nil
	}
	pos := map[int64]int{}
	keys := make([]any, len(hits))
	marks := make([]string, len(hits))
	for i, h := range hits {
		out[i] = map[string][]string{}
		keys[i], marks[i] = h.Entry.Key, "?"
	}
	rows, err := ix.db.Query(`SELECT id, key FROM entries WHERE key IN (`+strings.Join(marks, ",")+`)`, keys...)
	if err != nil {
		return nil, dbErr("explain", err)
	}
	byKey := map[string]int{}
	for i, h := range hits {
		byKey[h.Entry.Key] = i
	}
	var ids []string
	for rows.Next() {
		var id int64
		var key string
		if err := rows.Scan(&id, &key); err != nil {
			rows.Close()
			return nil, dbErr("explain", err)
		}
		pos[id] = byKey[key]
		ids = append(ids, "?")
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, dbErr("explain", err)
	}
	idArgs := make([]any, 0, len(pos))
	for id := range pos {
		idArgs = append(idArgs, id)
	}
	for _, t := range terms {
		for _, c := range ftsColumns {
			expr := c.column + " : " + quoteTerms([]string{t}, "OR")
			rows, err := ix.db.Query(`SELECT rowid FROM fts WHERE fts MATCH ? AND rowid IN (`+strings.Join(ids, ",")+`)`, append([]any{expr}, idArgs...)...)
			if err != nil {
				return nil, dbErr("explain", err)
			}
			for rows.Next() {
				var id int64
				if err := rows.Scan(&id); err == nil {
					m := out[pos[id]]
					m[t] = append(m[t], c.name)
				}
			}
			rows.Close()
		}
	}
	return out, nil
}

// ExplainStore is [SearchStore] that also says, for each hit, which of
// terms matched in which field (see [Index.Fields]).
func ExplainStore(s *knowledge.Store, q Query, terms []string) ([]Hit, []map[string][]string, error) {
	ix, _, err := OpenSynced(s)
	if err != nil {
		return nil, nil, err
	}
	defer ix.Close()
	hits, err := ix.Search(q)
	if err != nil {
		return nil, nil, err
	}
	fields, err := ix.Fields(hits, terms)
	return hits, fields, err
}

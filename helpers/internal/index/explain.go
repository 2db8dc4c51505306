package index

import (
	"strings"
)

// Columns of the full-text index, as an explanation names them.
var ftsColumns = []struct{ column, name string }{
	{"content", "content"}, {"tags", "tags"}, {"type", "type"}, {"idents", "identifiers"},
}

// Fields says, for the entry of each of keys, which of terms the
// full-text index matches in which of its fields (content, tags, type,
// identifiers: the parts of the content's identifiers), as a search
// matches them: same stemmer, same prefixes. One query per term and
// field, over those entries' rows only.
func (ix *Index) Fields(keys []string, terms []string) ([]map[string][]string, error) {
	out := make([]map[string][]string, len(keys))
	if len(keys) == 0 {
		return out, nil
	}
	pos := map[int64]int{}
	args := make([]any, len(keys))
	marks := make([]string, len(keys))
	for i, k := range keys {
		out[i] = map[string][]string{}
		args[i], marks[i] = k, "?"
	}
	rows, err := ix.db.Query(`SELECT id, key FROM entries WHERE key IN (`+strings.Join(marks, ",")+`)`, args...)
	if err != nil {
		return nil, dbErr("explain", err)
	}
	byKey := map[string]int{}
	for i, k := range keys {
		byKey[k] = i
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

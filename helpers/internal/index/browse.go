package index

import (
	"database/sql"
	"time"
)

// Narrow selects entries by their provenance, for a person browsing the
// log (cairn ui). Each field set must hold; "" leaves it open.
type Narrow struct {
	Author string // exactly this author
	Branch string // recorded on exactly this branch
	// Status is "active" (no status), or a status as the log writes it
	// (retracted, superseded, needs-review, ...). A Query that asks for
	// an inactive one sets Inactive too.
	Status string
	// File is a path the entry is anchored to (its files): the path
	// itself, or a directory above it ("helpers/internal").
	File string
	// Month is a month of the entry's ts, "2006-01" (UTC).
	Month string
}

// Place is an entry's place in a newest-first listing, which orders by
// ts, newest first, then by key: a page's first or last row, from which
// the page before or after it is read (keyset paging, which costs the
// same at any depth; see [Filter]'s Older and Newer).
type Place struct {
	TS  int64
	Key string
}

// placeConditions adds the conditions of f's places on entries (alias e)
// to where and args: each bounds ts first, so a read walks entries_ts
// from the place.
func (f Filter) placeConditions(where []string, args []any) ([]string, []any) {
	if p := f.Older; p != nil {
		where, args = append(where, "e.ts<=?", "(e.ts<? OR e.key>?)"), append(args, p.TS, p.TS, p.Key)
	}
	if p := f.Newer; p != nil {
		where, args = append(where, "e.ts>=?", "(e.ts>? OR e.key<?)"), append(args, p.TS, p.TS, p.Key)
	}
	return where, args
}

// conditions adds n's conditions on entries (alias e) to where and args.
// A Month that does not parse matches nothing.
func (n Narrow) conditions(where []string, args []any) ([]string, []any) {
	if n.Author != "" {
		where, args = append(where, "e.author=?"), append(args, n.Author)
	}
	if n.Branch != "" {
		where, args = append(where, "json_extract(e.json,'$.branch')=?"), append(args, n.Branch)
	}
	if n.Status != "" {
		where, args = append(where, "CASE e.status WHEN '' THEN 'active' ELSE e.status END=?"), append(args, n.Status)
	}
	if n.File != "" {
		where = append(where, "EXISTS (SELECT 1 FROM json_each(e.json,'$.files') f WHERE f.value=? OR substr(f.value,1,?)=?)")
		dir := n.File + "/"
		args = append(args, n.File, len(dir), dir)
	}
	if n.Month != "" {
		m, err := time.Parse("2006-01", n.Month)
		if err != nil {
			return append(where, "0"), args
		}
		where = append(where, "e.ts>=? AND e.ts<?")
		args = append(args, m.Unix(), m.AddDate(0, 1, 0).Unix())
	}
	return where, args
}

// WeekCount is how many entries were added in one week by one author, of
// one type.
type WeekCount struct {
	Week   time.Time // the week's Monday, 00:00 UTC
	Type   string
	Author string
	Count  int
}

// Weekly counts the entries of the log (with the archive when all is set)
// by the week of their ts, type and author, oldest week first, over the
// last weeks weeks up to the newest entry's (all of them when weeks < 1);
// retracted and superseded entries count, as they were added too.
func (ix *Index) Weekly(all bool, weeks int) ([]WeekCount, error) {
	cond := "+archived=0"
	if all {
		cond = "1"
	}
	// 1970-01-01 was a Thursday: day+3 counts from a Monday.
	const week = `(ts/86400 - (ts/86400+3)%7)*86400`
	var since int64 = -1 << 62
	if weeks > 0 {
		var newest sql.NullInt64
		if err := ix.db.QueryRow(`SELECT max(ts) FROM entries WHERE ` + cond).Scan(&newest); err != nil {
			return nil, dbErr("count entries", err)
		}
		if !newest.Valid {
			return nil, nil
		}
		ts := newest.Int64
		since = (ts/86400-(ts/86400+3)%7)*86400 - int64(weeks-1)*7*86400
	}
	rows, err := ix.db.Query(`SELECT `+week+` AS wk, type, author, count(*) FROM entries WHERE ts >= ? AND `+cond+
		` GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`, since)
	if err != nil {
		return nil, dbErr("count entries", err)
	}
	defer rows.Close()
	var out []WeekCount
	for rows.Next() {
		var wk int64
		var c WeekCount
		if err := rows.Scan(&wk, &c.Type, &c.Author, &c.Count); err != nil {
			return nil, dbErr("count entries", err)
		}
		c.Week = time.Unix(wk, 0).UTC()
		out = append(out, c)
	}
	return out, rows.Err()
}

package knowledge

import (
	"bytes"
	"errors"
	"fmt"
)

// Errors of a rewrite.
var (
	// ErrNoLines: the log holds no line of the key.
	ErrNoLines = errors.New("the log holds no line of")
	// ErrExists: an entry a rewrite adds is in the log already.
	ErrExists = errors.New("an entry with the same type and content is in the log already")
)

// Rewrite is one change of the log that a person asked for (cairn rm,
// cairn edit): the lines of one key taken out, new entries and lines put
// in, all in one atomic write under the writers' lock.
type Rewrite struct {
	// Key is the entry changed.
	Key string
	// Remove takes every line of Key out of the log (there must be one:
	// [ErrNoLines]); the other lines keep their bytes and their order.
	Remove bool
	// Check, when set, is called under the lock with the records of Key
	// in the log as it is (in file order); an error stops the rewrite.
	Check func(lines []Record) error
	// Add are entries to insert: redacted and checked as [Store.Insert]
	// does (the caller sees them as written, keys included), and refused
	// with [ErrExists] when the log, Key's lines removed, has one of them.
	Add []Entry
	// Lines, when set, builds raw lines to insert from Add as written
	// (a line that gives another entry a status naming a new key); they
	// are redacted as [Store.InsertLines] redacts.
	Lines func(added []Entry) ([][]byte, error)
}

// Rewrite applies rw and returns the entries of rw.Add as written. Nothing
// is written when an error is returned. Captures wait for the lock, so a
// capture that lands while a rewrite runs is neither lost nor undone.
func (s *Store) Rewrite(rw Rewrite) ([]Entry, error) {
	add := append([]Entry(nil), rw.Add...)
	if err := prepare(add); err != nil {
		return nil, err
	}
	l, err := s.lock()
	if err != nil {
		return nil, err
	}
	defer l.Release()
	lf, err := s.openLog()
	if err != nil {
		return nil, err
	}
	data, err := lf.readAll()
	lf.Close()
	if err != nil {
		return nil, fmt.Errorf("read %s/%s: %w", DirName, LogName, err)
	}
	drop, mine, err := keyLines(data, rw.Key)
	if err != nil {
		return nil, err
	}
	if len(mine) == 0 && rw.Remove {
		return nil, fmt.Errorf("%w %s", ErrNoLines, rw.Key)
	}
	if rw.Check != nil {
		if err := rw.Check(mine); err != nil {
			return nil, err
		}
	}
	if rw.Remove {
		data = withoutLines(data, drop)
	}
	var res InsertResult
	fresh, err := dedupe(memLog(data), add, &res, &keyLookup{}) // a log in memory has no key index
	if err != nil {
		return nil, err
	}
	if len(res.Duplicates) > 0 {
		d := res.Duplicates[0]
		return nil, fmt.Errorf("%w (%s)", ErrExists, MakeKey(d.Type, d.Content))
	}
	lines := make([][]byte, 0, len(fresh)+1)
	for i := range fresh {
		line, err := Marshal(&fresh[i])
		if err != nil {
			return nil, err
		}
		lines = append(lines, line)
	}
	if rw.Lines != nil {
		extra, err := rw.Lines(fresh)
		if err != nil {
			return nil, err
		}
		for _, line := range extra {
			line, _ = redactLine(line)
			lines = append(lines, line)
		}
	}
	if len(lines) > 0 {
		data = insertSorted(data, lines)
	}
	if err := s.writeLog(data); err != nil {
		return nil, err
	}
	return fresh, nil
}

// keyLines returns the numbers (1-based, as [Lines] counts) of the
// physical lines that hold an entry of key, and those records. A line that
// holds entries of other keys as well (two entries a merge glued
// together) is refused: taking it out would lose them.
func keyLines(data []byte, key string) (map[int]bool, []Record, error) {
	drop := map[int]bool{}
	others := map[int]bool{}
	var mine []Record
	Parse(data, func(r Record) {
		if r.Entry.Key == key {
			drop[r.Line] = true
			mine = append(mine, r)
		} else {
			others[r.Line] = true
		}
	})
	for n := range drop {
		if others[n] {
			return nil, nil, fmt.Errorf("line %d of %s/%s holds %s glued to other entries; run cairn resolve first", n, DirName, LogName, key)
		}
	}
	return drop, mine, nil
}

// withoutLines returns data without the physical lines numbered in drop
// (1-based, as [Lines] counts them); every other byte is kept.
func withoutLines(data []byte, drop map[int]bool) []byte {
	body := data
	var out bytes.Buffer
	if bytes.HasPrefix(body, bom) {
		out.Write(bom)
		body = body[len(bom):]
	}
	out.Grow(len(body))
	for n := 1; len(body) > 0; n++ {
		i := bytes.IndexByte(body, '\n')
		line := body
		if i >= 0 {
			line = body[:i+1]
		}
		body = body[len(line):]
		if !drop[n] {
			out.Write(line)
		}
	}
	return out.Bytes()
}

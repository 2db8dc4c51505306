package knowledge

import (
	"bytes"
	"fmt"
	"io"
	"sort"
)

// DefaultMaxLines is the log size past which rotation archives entries.
const DefaultMaxLines = 5000

// RotateResult says what a rotation did.
type RotateResult struct {
	Lines    int // lines in the log before
	Archived int // lines moved to the archive
	Kept     int // lines left in the log
}

// Rotate moves the oldest lines of the log into the archive once the log
// holds more than maxLines lines, keeping the newest maxLines/2. Which lines
// move depends only on the log's content (ts, then hash of key, then bytes),
// and both files stay in hash-of-key order, so two branches that rotate the
// same history produce identical files. Lines without a valid entry stay in
// the log for doctor to report. Under the writers' lock; each file is
// replaced atomically, the archive first, so a crash between the two leaves
// an entry in both files, never in neither.
func (s *Store) Rotate(maxLines int) (RotateResult, error) {
	if maxLines < 2 {
		maxLines = 2
	}
	l, err := s.lock()
	if err != nil {
		return RotateResult{}, err
	}
	defer l.Release()
	data, err := s.ReadLog()
	if err != nil {
		return RotateResult{}, err
	}
	lines, _ := Lines(data)
	var nonBlank [][]byte
	for _, line := range lines {
		if len(bytes.TrimSpace(line)) > 0 {
			nonBlank = append(nonBlank, line)
		}
	}
	res := RotateResult{Lines: len(nonBlank), Kept: len(nonBlank)}
	if len(nonBlank) <= maxLines {
		return res, nil
	}
	type aged struct {
		pos  sortPos
		line []byte
	}
	var valid []aged
	var keep [][]byte
	for _, line := range nonBlank {
		p, ok := lineSortPos(line)
		if ok {
			_, err := DecodeEntry(line)
			ok = err == nil
		}
		if !ok {
			keep = append(keep, line)
			continue
		}
		valid = append(valid, aged{p, line})
	}
	// Oldest first; ties broken by position and bytes so the choice is a
	// function of content alone.
	sort.Slice(valid, func(a, b int) bool {
		va, vb := valid[a], valid[b]
		if va.pos.ts != vb.pos.ts {
			return va.pos.ts < vb.pos.ts
		}
		if va.pos != vb.pos {
			return va.pos.less(vb.pos)
		}
		return bytes.Compare(va.line, vb.line) < 0
	})
	n := len(nonBlank) - maxLines/2
	if n > len(valid) {
		n = len(valid)
	}
	var moved [][]byte
	for i, v := range valid {
		if i < n {
			moved = append(moved, v.line)
		} else {
			keep = append(keep, v.line)
		}
	}
	archData, err := s.ReadArchive()
	if err != nil {
		return res, err
	}
	archLines, _ := Lines(archData)
	for _, line := range archLines {
		if len(bytes.TrimSpace(line)) > 0 {
			moved = append(moved, line)
		}
	}
	SortLines(moved)
	SortLines(keep)
	if err := s.root.WriteAtomic(ArchiveName, joinLines(dedupLines(moved)), 0o644); err != nil {
		return res, err
	}
	if err := s.writeLog(joinLines(keep)); err != nil {
		return res, err
	}
	res.Archived = n
	res.Kept = len(keep)
	return res, nil
}

// dedupLines drops byte-identical neighbours of sorted lines (a line a
// crash left in both files, then rotated again).
func dedupLines(lines [][]byte) [][]byte {
	out := lines[:0]
	for i, l := range lines {
		if i > 0 && bytes.Equal(l, lines[i-1]) {
			continue
		}
		out = append(out, l)
	}
	return out
}

func joinLines(lines [][]byte) []byte {
	n := 0
	for _, l := range lines {
		n += len(l) + 1
	}
	out := make([]byte, 0, n)
	for _, l := range lines {
		out = append(out, l...)
		out = append(out, '\n')
	}
	return out
}

// Write says what a rotation at maxLines did, for people.
func (res RotateResult) Write(w io.Writer, maxLines int) {
	if res.Archived == 0 {
		fmt.Fprintf(w, "nothing to rotate: %d lines (threshold %d)\n", res.Lines, maxLines)
		return
	}
	fmt.Fprintf(w, "archived %d entries to %s; %d lines remain in %s\n", res.Archived, ArchiveName, res.Kept, LogName)
}

package knowledge

import "bytes"

// ResolveStats says what resolving one file did.
type ResolveStats struct {
	Name       string // the file under .cairn: LogName or ArchiveName
	Resolved   bool   // it had conflict markers and was rewritten
	Hunks      int    // conflicts: regions that begin with a <<<<<<< marker
	Markers    int    // conflict marker lines removed
	Kept       int    // distinct lines from inside the conflicts written back, every side
	BaseKept   int    // of Kept, lines of a diff3 base section that neither side had
	Duplicates int    // lines removed because a byte-identical line was kept
	Blank      int    // blank lines removed
	Lines      int    // lines in the file as written
}

// ResolveResult says what [Store.Resolve] did with the log and the archive.
type ResolveResult struct {
	Log     ResolveStats
	Archive ResolveStats
}

// Changed reports whether either file was rewritten.
func (r ResolveResult) Changed() bool { return r.Log.Resolved || r.Archive.Resolved }

// ConflictLines returns the 1-based numbers of the lines of data that are
// conflict markers (numbered as [Parse] numbers them), or nil.
func ConflictLines(data []byte) []int {
	lines, _ := Lines(data)
	var out []int
	for i, l := range lines {
		if isConflictMarker(bytes.TrimSpace(l)) {
			out = append(out, i+1)
		}
	}
	return out
}

// Resolve repairs the log and the archive where a git merge left conflict
// markers in them, under the writers' lock, each file replaced atomically
// (the archive first, as [Store.Rotate] writes them). A file without
// conflict markers is left exactly as it is. In a file with markers:
//
//   - every line of both sides of every conflict is kept, and the marker
//     lines are removed;
//   - a line of a diff3 base section (between ||||||| and =======) is kept
//     when neither side of its conflict has it: it is a line one side
//     removed, and since the log only gains lines (rotation moves lines to
//     the archive whole), keeping it loses nothing and at worst keeps a
//     line the archive holds too, which readers fold by key;
//   - byte-identical lines are kept once, blank lines are removed, and the
//     file is put back in hash-of-key order ([SortLines]) with LF line
//     endings and no BOM;
//   - a line that is not a valid entry (invalid JSON, a torn last line, a
//     Lavra double-encoded line) is kept as it is: at the place of its key
//     when one can be read from it, else after the ordered lines.
//
// Resolving a file twice changes nothing the second time.
func (s *Store) Resolve() (ResolveResult, error) {
	res := ResolveResult{Log: ResolveStats{Name: LogName}, Archive: ResolveStats{Name: ArchiveName}}
	l, err := s.lock()
	if err != nil {
		return res, err
	}
	defer l.Release()
	for _, st := range []*ResolveStats{&res.Archive, &res.Log} {
		data, err := s.ReadFile(st.Name, MaxLogBytes)
		if err != nil {
			return res, err
		}
		if ConflictLines(data) == nil {
			continue
		}
		out, done := resolveData(data)
		done.Name, done.Resolved = st.Name, true
		if err := s.root.WriteAtomic(st.Name, out, 0o644); err != nil {
			return res, err
		}
		*st = done
	}
	return res, nil
}

// Sections of a conflict, as git writes it:
//
//	<<<<<<< ours-label
//	ours
//	||||||| base-label   (diff3 and zdiff3 only)
//	base
//	=======
//	theirs
//	>>>>>>> theirs-label
const (
	outside = iota
	oursSide
	baseSide
	theirsSide
)

// resolveData is the resolution of one file's data (see [Store.Resolve]),
// whether or not it has markers. A marker out of place (an ======= outside
// a conflict, a conflict the file ends inside) is removed all the same and
// the lines around it are kept.
func resolveData(data []byte) ([]byte, ResolveStats) {
	var st ResolveStats
	lines, _ := Lines(data)
	keep := make([][]byte, 0, len(lines))
	fromHunk := map[string]bool{} // distinct lines kept from inside conflicts
	state := outside
	var sides map[string]bool // lines of both sides of the current conflict
	var base [][]byte         // its base section
	endHunk := func() {
		for _, b := range base {
			if !sides[string(b)] && !fromHunk[string(b)] {
				st.BaseKept++
				fromHunk[string(b)] = true
			}
			if !sides[string(b)] {
				keep = append(keep, b)
			}
		}
		base, sides = nil, nil
		state = outside
	}
	for _, line := range lines {
		line = bytes.TrimRight(trimBOMs(line), "\r")
		trimmed := bytes.TrimSpace(line)
		if len(trimmed) == 0 {
			st.Blank++
			continue
		}
		if m := conflictMarker(trimmed); m != 0 {
			st.Markers++
			switch {
			case m == '<':
				endHunk()
				st.Hunks++
				state, sides = oursSide, map[string]bool{}
			case m == '>':
				endHunk()
			case state == outside:
				// A stray ======= or |||||||: nothing to switch.
			case m == '|':
				state = baseSide
			case m == '=':
				state = theirsSide
			}
			continue
		}
		switch state {
		case baseSide:
			base = append(base, line)
			continue
		case oursSide, theirsSide:
			sides[string(line)] = true
			fromHunk[string(line)] = true
		}
		keep = append(keep, line)
	}
	endHunk()
	st.Kept = len(fromHunk)
	SortLines(keep)
	n := len(keep)
	keep = dedupLines(keep)
	st.Duplicates = n - len(keep)
	st.Lines = len(keep)
	return joinLines(keep), st
}

// trimBOMs drops byte order marks from the start of a line: one that a
// file began with, or one a merge moved into the middle of a file.
func trimBOMs(line []byte) []byte {
	for bytes.HasPrefix(line, bom) {
		line = line[len(bom):]
	}
	return line
}

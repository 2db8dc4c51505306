package knowledge

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/cairn-dev/cairn/helpers/internal/anchor"
)

// ImportResult says what an import did.
type ImportResult struct {
	Read           int    `json:"read"`            // entries found in the source
	Imported       int    `json:"imported"`        // lines added to the log
	AlreadyPresent int    `json:"already_present"` // same key or same content already in the log
	Report         Report `json:"report"`          // what the source's reader skipped or repaired
}

// Import adds the entries of a foreign log (Lavra's knowledge.jsonl or one
// of cairn's own) to this log. Each entry keeps its key and its fields byte
// for byte; double-encoded lines are stored as the object they encode.
// Entries already present are skipped, so importing twice adds nothing.
func (s *Store) Import(src []byte) (ImportResult, error) {
	var res ImportResult
	var recs []Record
	res.Report = Parse(src, func(r Record) { recs = append(recs, r) })
	res.Read = len(recs)
	var ks *keyLookup
	defer writeKeyIndexAfter(&ks)
	l, err := s.lock()
	if err != nil {
		return res, err
	}
	defer l.Release()
	lf, err := s.openLog()
	if err != nil {
		return res, err
	}
	defer lf.Close()
	// Versions of one key (a status change) are distinct lines: dedupe by
	// key+ts within the source, by key or content against the log.
	type kt struct {
		key string
		ts  int64
	}
	seen := map[kt]bool{}
	var uniq []Record
	for _, r := range recs {
		id := kt{r.Entry.Key, r.Entry.TS}
		if seen[id] {
			res.AlreadyPresent++
			continue
		}
		seen[id] = true
		uniq = append(uniq, r)
	}
	var lines [][]byte
	var firsts []Entry
	firstIdx := map[string]int{}
	for _, r := range uniq {
		if _, ok := firstIdx[r.Entry.Key]; !ok {
			firstIdx[r.Entry.Key] = len(firsts)
			firsts = append(firsts, r.Entry)
		}
	}
	var dr InsertResult
	before, idErr := anchor.Identity(s.root)
	ks = s.keyLookup(before, idErr)
	fresh, err := dedupe(lf, firsts, &dr, ks)
	if err != nil {
		return res, err
	}
	ok := map[string]bool{}
	for _, e := range fresh {
		ok[e.Key] = true
	}
	for _, r := range uniq {
		if !ok[r.Entry.Key] {
			res.AlreadyPresent++
			continue
		}
		var buf bytes.Buffer
		if err := json.Compact(&buf, r.JSON); err != nil {
			return res, err
		}
		line, _ := redactLine(buf.Bytes())
		lines = append(lines, line)
	}
	if len(lines) == 0 {
		s.saveKeyIndex(ks, before, nil)
		return res, nil
	}
	if err := s.spliceLog(lf, lines); err != nil {
		return res, err
	}
	res.Imported = len(lines)
	if after, err := anchor.Identity(s.root); err == nil && idErr == nil {
		s.saveKeyIndex(ks, after, lines)
	}
	return res, nil
}

// Write writes what an import of the log at path did, for people: the
// counts, then each line skipped and why.
func (res ImportResult) Write(w io.Writer, path string) {
	fmt.Fprintf(w, "imported %d entries from %s (%d read, %d already present, %d double-encoded lines repaired, %d lines skipped)\n",
		res.Imported, path, res.Read, res.AlreadyPresent, res.Report.ByKind["double-encoded"], res.Report.Skipped)
	for _, pr := range res.Report.Problems {
		if !pr.Repaired() {
			fmt.Fprintf(w, "  line %d: %s: %s\n", pr.Line, pr.Kind, pr.Detail)
		}
	}
}

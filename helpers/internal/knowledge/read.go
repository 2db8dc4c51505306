package knowledge

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cairn-dev/cairn/helpers/internal/jsonfield"
)

// Problem kinds the reader reports. Every kind but the repaired ones means a
// line was skipped; the log itself is never changed by reading it.
const (
	ProblemInvalidJSON    = "invalid-json"
	ProblemInvalidEntry   = "invalid-entry"
	ProblemConflictMarker = "conflict-marker"
	ProblemTornLine       = "torn-line"
	ProblemDoubleEncoded  = "double-encoded" // repaired
	ProblemGluedLines     = "glued-lines"    // repaired
)

// Problem is one line the reader had to skip or repair.
type Problem struct {
	Line   int    `json:"line"`
	Kind   string `json:"kind"`
	Detail string `json:"detail,omitempty"`
}

// Repaired reports whether the problem was fixed on reading rather than
// skipped.
func (p Problem) Repaired() bool {
	return p.Kind == ProblemDoubleEncoded || p.Kind == ProblemGluedLines
}

// Record is one entry read from a log line.
type Record struct {
	Line  int    // 1-based line number
	Raw   []byte // the physical line, without line ending
	JSON  []byte // the entry's JSON object (differs from Raw for repaired lines)
	Entry Entry
	// Archived is set for a line of the archive by whoever read it (Parse
	// does not know which file it reads; Store.ReadAll does).
	Archived bool
}

// Report counts what a read found.
type Report struct {
	Lines    int            `json:"lines"`
	Entries  int            `json:"entries"`
	Blank    int            `json:"blank"`
	Skipped  int            `json:"skipped"`
	Repaired int            `json:"repaired"`
	ByKind   map[string]int `json:"by_kind,omitempty"`
	Problems []Problem      `json:"problems,omitempty"` // the first MaxProblems

	each func(Problem) // sees every problem, past the cap too
}

// MaxProblems caps how many problems a Report lists one by one.
const MaxProblems = 50

func (r *Report) add(p Problem) {
	if r.each != nil {
		r.each(p)
	}
	if r.ByKind == nil {
		r.ByKind = map[string]int{}
	}
	r.ByKind[p.Kind]++
	if p.Repaired() {
		r.Repaired++
	} else {
		r.Skipped++
	}
	if len(r.Problems) < MaxProblems {
		r.Problems = append(r.Problems, p)
	}
}

// Merge adds another report's counts to r (for a log and its archive).
func (r *Report) Merge(o Report) {
	r.Lines += o.Lines
	r.Entries += o.Entries
	r.Blank += o.Blank
	r.Skipped += o.Skipped
	r.Repaired += o.Repaired
	for k, v := range o.ByKind {
		if r.ByKind == nil {
			r.ByKind = map[string]int{}
		}
		r.ByKind[k] += v
	}
	for _, p := range o.Problems {
		if len(r.Problems) < MaxProblems {
			r.Problems = append(r.Problems, p)
		}
	}
}

// Clean reports whether nothing had to be skipped or repaired.
func (r *Report) Clean() bool { return r.Skipped == 0 && r.Repaired == 0 }

var bom = []byte("\xef\xbb\xbf")

// Lines splits log data into physical lines: a leading BOM is dropped, CR
// before LF is dropped, and a last line without newline is kept. torn
// reports whether the data did not end with a newline.
func Lines(data []byte) (lines [][]byte, torn bool) {
	data = bytes.TrimPrefix(data, bom)
	if len(data) == 0 {
		return nil, false
	}
	torn = data[len(data)-1] != '\n'
	lines = make([][]byte, 0, bytes.Count(data, []byte{'\n'})+1)
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		var line []byte
		if i < 0 {
			line, data = data, nil
		} else {
			line, data = data[:i], data[i+1:]
		}
		lines = append(lines, bytes.TrimSuffix(line, []byte{'\r'}))
	}
	return lines, torn
}

// Parse reads log data tolerantly and calls fn for every entry, in file
// order. Nothing in the data is fatal: invalid lines are skipped, repairable
// ones repaired, and all of it is counted in the returned Report.
func Parse(data []byte, fn func(Record)) Report {
	return ParseEach(data, fn, nil)
}

// ParseEach is Parse that also calls problem for every line it skipped or
// repaired, however many there are (the Report lists only the first
// MaxProblems).
func ParseEach(data []byte, fn func(Record), problem func(Problem)) Report {
	lines, torn := Lines(data)
	rep := Report{each: problem}
	rep.Lines = len(lines)
	for i, line := range lines {
		n := i + 1
		trimmed := bytes.TrimSpace(line)
		if len(trimmed) == 0 {
			rep.Blank++
			continue
		}
		parseLine(trimmed, torn && i == len(lines)-1, func(p Problem) {
			p.Line = n
			rep.add(p)
		}, func(obj []byte, e Entry) {
			rep.Entries++
			fn(Record{Line: n, Raw: line, JSON: obj, Entry: e})
		})
	}
	rep.each = nil
	return rep
}

// parseLine reads one line, trimmed and not blank: entry is called for each
// entry it holds, problem (without the line's number) for what had to be
// skipped or repaired. torn says the line is the data's last and has no
// newline. It is the whole of the rule for one line: [ParseEach] applies
// it to each, and [CompareFiles] to the lines a change touched.
func parseLine(trimmed []byte, torn bool, problem func(Problem), entry func(obj []byte, e Entry)) {
	if isConflictMarker(trimmed) {
		problem(Problem{Kind: ProblemConflictMarker, Detail: clip(trimmed)})
		return
	}
	objs, kind, err := decodeLine(trimmed)
	if err != nil {
		k := ProblemInvalidJSON
		if torn {
			k = ProblemTornLine
		}
		if kind != "" {
			k = kind
		}
		problem(Problem{Kind: k, Detail: err.Error()})
		return
	}
	if kind != "" {
		problem(Problem{Kind: kind})
	}
	for _, obj := range objs {
		e, err := DecodeEntry(obj)
		if err != nil {
			problem(Problem{Kind: ProblemInvalidEntry, Detail: err.Error()})
			continue
		}
		entry(obj, e)
	}
}

// MarkerSize is the length of the conflict markers git writes (its
// default conflict-marker-size).
const MarkerSize = 7

// conflictMarker returns the character of the conflict marker that line
// (trimmed of surrounding white space) is — '<' (ours begins), '|' (the
// diff3 base begins), '=' (theirs begins) or '>' (the conflict ends) — or
// 0. A marker is a whole line: exactly [MarkerSize] equal marker
// characters, then the end of the line or a space and a label
// ("<<<<<<< HEAD"). A line that merely contains "=======", such as an
// entry whose content quotes one, is no marker; neither is a run of
// another length (a conflict-marker-size attribute, or the nested markers
// of a recursive merge's virtual base): those lines read as invalid and
// are kept.
func conflictMarker(line []byte) byte {
	if len(line) < MarkerSize {
		return 0
	}
	c := line[0]
	if c != '<' && c != '|' && c != '=' && c != '>' {
		return 0
	}
	for _, b := range line[1:MarkerSize] {
		if b != c {
			return 0
		}
	}
	if len(line) > MarkerSize && line[MarkerSize] != ' ' {
		return 0
	}
	return c
}

func isConflictMarker(line []byte) bool { return conflictMarker(line) != 0 }

func clip(b []byte) string {
	const max = 80
	s := strings.ToValidUTF8(string(b), "?")
	if len(s) > max {
		return s[:max] + "..."
	}
	return s
}

// decodeLine returns the JSON objects a line holds. kind is set when the
// line needed repair (double-encoded, glued) or names why it failed.
func decodeLine(line []byte) (objs [][]byte, kind string, err error) {
	switch line[0] {
	case '{':
		if json.Valid(line) {
			return [][]byte{line}, "", nil
		}
		if parts := splitGlued(line); parts != nil {
			return parts, ProblemGluedLines, nil
		}
		return nil, "", fmt.Errorf("invalid JSON: %s", clip(line))
	case '"':
		// Lavra's logs hold objects encoded a second time as a JSON string.
		cur := line
		for range 3 {
			var s string
			if err := json.Unmarshal(cur, &s); err != nil {
				return nil, "", fmt.Errorf("invalid JSON string: %s", clip(line))
			}
			cur = bytes.TrimSpace([]byte(s))
			if len(cur) > 0 && cur[0] == '{' && json.Valid(cur) {
				return [][]byte{cur}, ProblemDoubleEncoded, nil
			}
			if len(cur) == 0 || cur[0] != '"' {
				break
			}
		}
		return nil, "", fmt.Errorf("string line is not an encoded entry: %s", clip(line))
	}
	return nil, "", fmt.Errorf("not a JSON object: %s", clip(line))
}

// splitGlued splits two or more objects that lost the newline between them
// ({...}{...}), or returns nil.
func splitGlued(line []byte) [][]byte {
	if !bytes.Contains(line, []byte("}{")) {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	var out [][]byte
	for dec.More() {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil || len(raw) == 0 || raw[0] != '{' {
			return nil
		}
		out = append(out, raw)
	}
	if len(out) < 2 {
		return nil
	}
	return out
}

// decodeDetail reads a detail object; what is not an object, and fields
// that are not strings (or a list, for alternatives), are left out.
func decodeDetail(v jsonfield.Value) *Detail {
	if !v.IsObject() {
		return nil
	}
	var d Detail
	v.ForEach(func(k, v jsonfield.Value) bool {
		s := ""
		if v.Type == jsonfield.String {
			s = strings.ToValidUTF8(v.Str, "\uFFFD")
		}
		switch k.Str {
		case "context":
			d.Context = s
		case "alternatives":
			d.Alternatives = decodeList(v)
		case "rationale":
			d.Rationale = s
		case "root_cause":
			d.RootCause = s
		case "resolution":
			d.Resolution = s
		case "prevention":
			d.Prevention = s
		}
		return true
	})
	if d.Context == "" && len(d.Alternatives) == 0 && d.Rationale == "" && d.RootCause == "" && d.Resolution == "" && d.Prevention == "" {
		return nil
	}
	return &d
}

// DecodeEntry decodes and validates one JSON object as an entry. It is
// tolerant where logs differ (ts as a number, float or numeric string; tags,
// files and merged_from as a list or one string) and strict where a wrong
// type would mislead (a string field holding a number is an error).
func DecodeEntry(obj []byte) (Entry, error) {
	if !jsonfield.Valid(obj) {
		return Entry{}, errors.New("decode entry: invalid JSON")
	}
	root := jsonfield.Parse(obj)
	if !root.IsObject() {
		return Entry{}, errors.New("decode entry: not an object")
	}
	var e Entry
	var ts jsonfield.Value
	var err error
	str := func(v jsonfield.Value, name string) string {
		switch v.Type {
		case jsonfield.String:
			if !utf8.ValidString(v.Str) {
				return strings.ToValidUTF8(v.Str, "\uFFFD")
			}
			return v.Str
		case jsonfield.Null:
			return ""
		}
		if err == nil {
			err = fmt.Errorf("decode entry: %s is not a string", name)
		}
		return ""
	}
	root.ForEach(func(k, v jsonfield.Value) bool {
		switch k.Str {
		case "key":
			e.Key = str(v, "key")
		case "type":
			e.Type = str(v, "type")
		case "content":
			e.Content = str(v, "content")
		case "source":
			e.Source = str(v, "source")
		case "agent":
			e.Agent = str(v, "agent")
		case "tags":
			e.Tags = decodeList(v)
		case "ts":
			ts = v
		case "bead":
			e.Bead = str(v, "bead")
		case "author":
			e.Author = str(v, "author")
		case "branch":
			e.Branch = str(v, "branch")
		case "commit":
			e.Commit = str(v, "commit")
		case "files":
			e.Files = decodeList(v)
		case "blobs":
			e.Blobs = decodeList(v)
		case "session":
			e.Session = str(v, "session")
		case "status":
			e.Status = str(v, "status")
		case "supersedes":
			e.Supersedes = str(v, "supersedes")
		case "superseded_by":
			e.SupersededBy = str(v, "superseded_by")
		case "merged_from":
			e.MergedFrom = decodeList(v)
		case "review_reason":
			e.ReviewReason = str(v, "review_reason")
		case "redacted":
			e.Redacted = decodeList(v)
		case "detail":
			e.Detail = decodeDetail(v)
		}
		return true
	})
	if err != nil {
		return Entry{}, err
	}
	if e.TS, err = decodeTS(ts); err != nil {
		return Entry{}, err
	}
	if !ValidType(e.Type) {
		if t, err := NormalizeType(e.Type); err == nil {
			e.Type = t
		}
	}
	if err := e.Validate(); err != nil {
		return Entry{}, fmt.Errorf("entry %q: %w", e.Key, err)
	}
	return e, nil
}

func decodeTS(v jsonfield.Value) (int64, error) {
	switch v.Type {
	case jsonfield.Number:
		if n, err := strconv.ParseInt(v.Raw, 10, 64); err == nil {
			return n, nil
		}
	case jsonfield.String:
		if n, err := strconv.ParseInt(strings.TrimSpace(v.Str), 10, 64); err == nil {
			return n, nil
		}
	case jsonfield.Null:
		return 0, fmt.Errorf("missing ts")
	default:
		if !v.Exists() {
			return 0, fmt.Errorf("missing ts")
		}
		return 0, fmt.Errorf("bad ts %s", clip([]byte(v.Raw)))
	}
	raw := v.Raw
	if v.Type == jsonfield.String {
		raw = strings.TrimSpace(v.Str)
	}
	f, err := strconv.ParseFloat(raw, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || f < 0 || f > math.MaxInt64/2 {
		return 0, fmt.Errorf("bad ts %s", clip([]byte(v.Raw)))
	}
	return int64(f), nil
}

func decodeList(v jsonfield.Value) []string {
	switch {
	case v.IsArray():
		var list []string
		for _, x := range v.Array() {
			if x.Type == jsonfield.String {
				list = append(list, x.Str)
			}
		}
		return list
	case v.Type == jsonfield.String:
		return strings.FieldsFunc(v.Str, func(r rune) bool { return r == ',' || r == ' ' })
	}
	return nil
}

// Latest folds records to the latest line per key (see [Version.Newer]),
// sorted by key. Which line wins does not depend on the records' order.
func Latest(recs []Record) []Record {
	best := make(map[string]int, len(recs))
	for i := range recs {
		k := recs[i].Entry.Key
		if j, ok := best[k]; !ok || recs[i].Version().Newer(recs[j].Version()) {
			best[k] = i
		}
	}
	out := make([]Record, 0, len(best))
	for _, i := range best {
		out = append(out, recs[i])
	}
	sort.Slice(out, func(a, b int) bool { return out[a].Entry.Key < out[b].Entry.Key })
	return out
}

// Version is one line of a key as the rule for the latest line of a key
// sees it (see [Version.Newer]).
type Version struct {
	TS        int64
	Retracted bool   // the line retracts its entry
	Archived  bool   // the line is the archive's, not the log's
	JSON      []byte // the entry's JSON object, as read (Record.JSON)
}

// Version is the record's line as the latest-line rule sees it.
func (r *Record) Version() Version {
	return Version{TS: r.Entry.TS, Retracted: r.Entry.Status == StatusRetracted, Archived: r.Archived, JSON: r.JSON}
}

// Newer reports whether line v of a key wins over line o of the same key.
// It is the one rule for "the latest line of a key", which recall, the
// search cache, sanitize and curation all apply:
//
//  1. a retraction wins over anything else: a retraction is final, so a
//     merge that brings back an older or a newer line of a retracted
//     entry cannot revive it;
//  2. a line from the present wins over one from the future (see [Future]);
//  3. the later ts wins;
//  4. on the same ts, the log's line wins over the archive's;
//  5. then the greater bytes of the entry's JSON.
//
// Every step looks at the two lines alone, never at where they sit in a
// file: the log is kept in key-hash order and merged by git (a union merge
// may put either side first), and every reader, on every machine, must
// pick the same line.
func (v Version) Newer(o Version) bool {
	if v.Retracted != o.Retracted {
		return v.Retracted
	}
	if fv, fo := Future(v.TS), Future(o.TS); fv != fo {
		return fo
	}
	if v.TS != o.TS {
		return v.TS > o.TS
	}
	if v.Archived != o.Archived {
		return !v.Archived
	}
	return bytes.Compare(v.JSON, o.JSON) > 0
}

// MaxClockSkew is how far ahead of this machine's clock a line's ts may be
// and still count as written now: teammates' clocks differ by seconds,
// not days.
const MaxClockSkew = 24 * 60 * 60

// Future reports whether ts lies beyond this machine's clock by more than
// [MaxClockSkew]. Such a line never wins over a line of its key from the
// present, so nobody can take an entry over for good by dating a line in
// the far future; among future lines, the later still wins.
func Future(ts int64) bool { return ts > time.Now().Unix()+MaxClockSkew }

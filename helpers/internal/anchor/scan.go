package anchor

import (
	"bytes"
	"io"
	"slices"
	"strings"
	"sync/atomic"
)

// A note bears on a file only through the anchor map, and the map holds a
// file anchor only from the files field of a live entry: the latest line
// of its key in the log (knowledge.jsonl; an entry whose latest line is
// in the archive is not live), each name by [Clean]. Sanitize's verdicts
// and retractions only take anchors away, and a must-check's command is
// looked up only for a shell command. So when no line of the log has a
// files name that cleans to a path's candidate, the map caught up with
// that log anchors nothing there, whatever the map on disk is behind by:
// [UnanchoredAt] proves that by reading the log once, without parsing it.

// unanchored is [UnanchoredAt] of a log read from r in one part, through
// buf.
func unanchored(r io.Reader, buf []byte, paths []string) bool {
	sc, ok := newLogScan(paths)
	return ok && len(buf) > 0 && sc.scan(r, 0, -1, false, buf)
}

// splitAbove is the size of a log [UnanchoredAt] reads in two parts at
// once.
const splitAbove = 4 << 20

// UnanchoredAt reports whether no line of the log (knowledge.jsonl), of
// size bytes read by offset from r, names in a files field a name that
// cleans to one of the candidates of paths (each path and the directories
// above it; see [Candidates]): then no note of that log is anchored
// there. It reads the log once, through buf (a log of more than 4 MB in
// two parts at once, each through half of buf, on two cores where there
// are two), finds the files fields (at any depth: a detail's too) and the
// backslashes with the standard library's vectorised searches, and
// parses only those fields. false means a line may anchor a note there,
// or that the log holds what it does not read exactly: a line longer
// than the buffer it is read through, a \u escape, a files name with an
// escape or a nested list, an object encoded as a string, a candidate
// with a quote, a failed read. A caller that gets false asks the cache.
// It never panics.
func UnanchoredAt(r io.ReaderAt, size int64, buf []byte, paths []string) bool {
	sc, ok := newLogScan(paths)
	half := len(buf) / 2
	if !ok || half == 0 {
		return false
	}
	if size <= splitAbove {
		return sc.scan(io.NewSectionReader(r, 0, size), 0, -1, false, buf)
	}
	// The first part ends with the line that holds the byte before mid;
	// the second starts after it.
	mid := size / 2
	second := make(chan bool, 1)
	go func() {
		defer func() {
			if recover() != nil {
				second <- false
			}
		}()
		second <- sc.scan(io.NewSectionReader(r, mid-1, size-mid+1), mid-1, -1, true, buf[half:2*half])
	}()
	first := sc.scan(io.NewSectionReader(r, 0, size), 0, mid-1, false, buf[:half])
	return <-second && first
}

// scan reports whether no line of its part of the log, read from r
// through buf, can anchor to the candidates. r reads the log from offset
// base. skip: the bytes up to the first newline are the end of the
// previous part's last line. stop, unless negative: the part ends with
// the line that holds that offset.
func (sc *logScan) scan(r io.Reader, base, stop int64, skip bool, buf []byte) bool {
	held, zero := 0, 0
	pos := base // the offset of buf[0]
	for {
		n, err := r.Read(buf[held:])
		held += n
		eof := err == io.EOF
		if err != nil && !eof {
			return false
		}
		if n == 0 && !eof {
			if zero++; zero > 100 {
				return false // a reader that never ends
			}
			continue
		}
		zero = 0
		end := bytes.LastIndexByte(buf[:held], '\n') + 1
		if eof {
			end = held // the last line, without its newline
		}
		if end == 0 && held == len(buf) {
			return false // a line longer than buf
		}
		from, to, done := 0, end, eof
		if skip && end > 0 {
			i := bytes.IndexByte(buf[:end], '\n')
			if i < 0 {
				return true // the previous part's last line ends the log
			}
			from, skip = i+1, false
		}
		if stop >= 0 && pos+int64(end) > stop {
			if i := bytes.IndexByte(buf[stop-pos:end], '\n'); i >= 0 {
				to, done = int(stop-pos)+i+1, true
			}
		}
		if sc.found.Load() {
			return false
		}
		if !sc.clear(buf[from:to]) {
			sc.found.Store(true)
			return false
		}
		if done {
			return true
		}
		held = copy(buf, buf[end:held])
		pos += int64(end)
	}
}

// logScan is what [UnanchoredAt] looks for: the candidates. found, set
// by the part that finds a line that may anchor there, ends the other.
type logScan struct {
	cands []string
	found atomic.Bool
}

func newLogScan(paths []string) (*logScan, bool) {
	sc := &logScan{}
	for _, p := range paths {
		for _, c := range Candidates(p) {
			if strings.ContainsAny(c, "\"\\") {
				return sc, false // JSON escapes it: not in the log as it is
			}
			if !slices.Contains(sc.cands, c) {
				sc.cands = append(sc.cands, c)
			}
		}
	}
	return sc, true
}

// clear reports whether no line of data (whole lines) can anchor to the
// candidates. It finds the backslashes and the files fields with the
// standard library's vectorised searches, and reads only what it finds.
func (sc *logScan) clear(data []byte) bool {
	// A \u escape may spell the files field's name or a name in it; an
	// object encoded as a string has its quotes escaped.
	checked := -1 // the end of the last line whose start was checked
	for off := 0; ; {
		i := bytes.IndexByte(data[off:], '\\')
		if i < 0 {
			break
		}
		at := off + i
		if at+1 < len(data) && data[at+1] == 'u' && escapes(data, at) {
			return false
		}
		if at > checked {
			ls := bytes.LastIndexByte(data[:at], '\n') + 1
			// (A byte order mark starts the log's first line.)
			if t := bytes.TrimSpace(bytes.TrimPrefix(data[ls:at], bom)); len(t) > 0 && t[0] == '"' {
				return false
			}
			checked = len(data)
			if j := bytes.IndexByte(data[at:], '\n'); j >= 0 {
				checked = at + j
			}
		}
		off = at + 1
	}
	for off := 0; ; {
		i := bytes.Index(data[off:], filesName)
		if i < 0 {
			return true
		}
		at := off + i
		off = at + 1
		if at == 0 || data[at-1] != '"' {
			continue
		}
		le := len(data)
		if j := bytes.IndexByte(data[at:], '\n'); j >= 0 {
			le = at + j
		}
		line := data[:le]
		j := skipSpace(line, at+len(filesName))
		if j < len(line) && line[j] == ':' && sc.valueAnchors(line, skipSpace(line, j+1)) {
			return false
		}
	}
}

var bom = []byte("\xef\xbb\xbf")

// filesName is the files field's name, after its opening quote.
var filesName = []byte(`files"`)

// escapes reports whether the backslash at data[at] begins an escape: an
// even number of backslashes comes before it.
func escapes(data []byte, at int) bool {
	n := 0
	for at-n-1 >= 0 && data[at-n-1] == '\\' {
		n++
	}
	return n%2 == 0
}

// names reports whether the string s (unescaped), as a files name or as
// a files field written as one string (names split at commas and
// blanks), holds a name that cleans to a candidate.
func (sc *logScan) names(s []byte) bool {
	if cleansTo(s, sc.cands) {
		return true
	}
	for len(s) > 0 {
		i := bytes.IndexAny(s, ", ")
		if i < 0 {
			return cleansTo(s, sc.cands)
		}
		if i > 0 && cleansTo(s[:i], sc.cands) {
			return true
		}
		s = s[i+1:]
	}
	return false
}

// valueAnchors reports whether the files value at line[at:] may anchor a
// note to the candidates.
func (sc *logScan) valueAnchors(line []byte, at int) bool {
	if at == len(line) {
		return false
	}
	switch line[at] {
	case '"':
		s, _, ok := rawString(line, at)
		return !ok || sc.names(s)
	case '[':
	default:
		return false // null, a number, an object: no names
	}
	for i := skipSpace(line, at+1); i < len(line); {
		switch c := line[i]; {
		case c == ']':
			return false
		case c == '"':
			s, end, ok := rawString(line, i)
			if !ok || cleansTo(s, sc.cands) {
				return true
			}
			i = end
		case c == '[' || c == '{':
			return true // a list or an object in the list: not read here
		case c == ',':
			return true // not a list JSON reads
		default:
			// A number, true, false or null: not a name.
			for i < len(line) && line[i] != ',' && line[i] != ']' {
				i++
			}
		}
		i = skipSpace(line, i)
		if i < len(line) && line[i] == ',' {
			i = skipSpace(line, i+1)
		}
	}
	return true // the list does not end on this line
}

// rawString returns the string that starts with the quote at line[at],
// its end (after the closing quote); ok is false when it holds a
// backslash or does not end on the line.
func rawString(line []byte, at int) (s []byte, end int, ok bool) {
	j := bytes.IndexByte(line[at+1:], '"')
	if j < 0 {
		return nil, 0, false
	}
	s = line[at+1 : at+1+j]
	return s, at + 2 + j, bytes.IndexByte(s, '\\') < 0
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i++
	}
	return i
}

package knowledge

import (
	"bufio"
	"bytes"
	"container/heap"
	"errors"
	"io"
	"io/fs"
	"os"

	"github.com/cairn-dev/cairn/helpers/internal/jsonfield"
)

// Glance is what one bounded read of the log shows without the search
// cache: its newest must-check entries and its newest other entries, each
// key folded to its latest line (a key's lines are next to each other in
// the log's order). A hook answers from it while the cache is built.
type Glance struct {
	MustCheck []Entry // newest first
	Newest    []Entry // newest first; no must-checks
	Read      int64   // bytes of the log read
	Lines     int     // lines read
	Partial   bool    // the read stopped before the end of the log
}

// glanceBuffer is the read buffer; a longer line is skipped.
const glanceBuffer = 1 << 20

// Glance reads at most maxBytes of the log, from its start, keeping the
// mustLimit newest must-check entries and the newestLimit newest others
// that are active. Its memory is the buffer and the entries kept; it
// decodes only those.
func (s *Store) Glance(maxBytes int64, mustLimit, newestLimit int) (Glance, error) {
	var g Glance
	f, err := s.root.OpenFile(LogName, os.O_RDONLY, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return g, nil
	}
	if err != nil {
		return g, err
	}
	defer f.Close()
	must := &newest{limit: mustLimit}
	other := &newest{limit: newestLimit}
	var cur keyGroup
	flush := func() {
		if cur.key == "" || cur.retracted {
			return
		}
		if cur.must {
			must.offer(cur.ts, cur.line)
		} else {
			other.offer(cur.ts, cur.line)
		}
	}
	r := bufio.NewReaderSize(f, glanceBuffer)
	skipping := false
	for g.Read < maxBytes {
		line, err := r.ReadSlice('\n')
		g.Read += int64(len(line))
		if errors.Is(err, bufio.ErrBufferFull) {
			skipping = true // too long for a glance; the cache has it
			continue
		}
		if skipping {
			skipping = false
			continue
		}
		if len(line) > 0 {
			g.Lines++
			if f, ok := readFacts(line); ok {
				if f.key != cur.key {
					flush()
					cur = keyGroup{key: f.key, ts: f.ts - 1}
				}
				if f.ts >= cur.ts {
					cur.ts = f.ts
					cur.line = append(cur.line[:0], line...)
					cur.must = f.typ == "must-check"
					cur.retracted = f.inactive
				}
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return g, err
		}
	}
	flush()
	g.Partial = g.Read >= maxBytes
	if g.Partial {
		if _, err := r.Peek(1); err == io.EOF {
			g.Partial = false
		}
	}
	g.MustCheck = must.entries(func(e Entry) bool { return e.Type == "must-check" })
	g.Newest = other.entries(func(e Entry) bool { return e.Type != "must-check" })
	return g, nil
}

// keyGroup is the latest line seen of the key being read.
type keyGroup struct {
	key       string
	ts        int64
	line      []byte
	must      bool
	retracted bool
}

// facts are what a glance reads of a line without decoding it.
type facts struct {
	key, typ string
	ts       int64
	inactive bool // retracted or superseded
}

// readFacts reads a line's facts: cairn's own lines (key, then type,
// first; ts and status near the end) by a few short searches, any other
// by a JSON scan.
func readFacts(line []byte) (facts, bool) {
	if f, ok := quickFacts(line); ok {
		return f, true
	}
	t := bytes.TrimSpace(line)
	if len(t) == 0 || t[0] != '{' {
		return facts{}, false
	}
	r := jsonfield.GetMany(t, "key", "ts", "type", "status")
	if r[0].Type != jsonfield.String || r[0].Str == "" {
		return facts{}, false
	}
	st := r[3].Str
	return facts{key: r[0].Str, ts: r[1].Int(), typ: r[2].Str, inactive: st == StatusRetracted || st == StatusSuperseded}, true
}

// quickFacts reads the facts of a line as cairn writes it:
// {"key":"K","type":"T",...,"ts":N,...} with no escapes in K and T.
func quickFacts(line []byte) (facts, bool) {
	key, ok := canonicalKey(line)
	if !ok {
		return facts{}, false
	}
	rest := line[len(`{"key":"`)+len(key):]
	const typeField = `","type":"`
	if !bytes.HasPrefix(rest, []byte(typeField)) {
		return facts{}, false
	}
	rest = rest[len(typeField):]
	end := bytes.IndexByte(rest, '"')
	if end < 0 || bytes.IndexByte(rest[:end], '\\') >= 0 {
		return facts{}, false
	}
	f := facts{key: string(key), typ: string(rest[:end])}
	// No string can hold "ts": unescaped, so the last one is the field
	// (the fields after it are short).
	at := bytes.LastIndex(line, []byte(`"ts":`))
	if at < 0 {
		return facts{}, false
	}
	tail := line[at+len(`"ts":`):]
	n := 0
	for n < len(tail) && '0' <= tail[n] && tail[n] <= '9' {
		f.ts = f.ts*10 + int64(tail[n]-'0')
		n++
	}
	if n == 0 || n > 18 {
		return facts{}, false
	}
	tail = tail[n:]
	f.inactive = bytes.Contains(tail, []byte(`"status":"`+StatusRetracted+`"`)) ||
		bytes.Contains(tail, []byte(`"status":"`+StatusSuperseded+`"`))
	return f, true
}

// newest keeps the limit newest lines offered, as a min-heap by ts.
type newest struct {
	limit int
	items []tsLine
}

type tsLine struct {
	ts   int64
	line []byte
}

func (h *newest) Len() int           { return len(h.items) }
func (h *newest) Less(i, j int) bool { return h.items[i].ts < h.items[j].ts }
func (h *newest) Swap(i, j int)      { h.items[i], h.items[j] = h.items[j], h.items[i] }
func (h *newest) Push(x any)         { h.items = append(h.items, x.(tsLine)) }
func (h *newest) Pop() any {
	x := h.items[len(h.items)-1]
	h.items = h.items[:len(h.items)-1]
	return x
}

// offer keeps line if it is among the limit newest.
func (h *newest) offer(ts int64, line []byte) {
	if h.limit <= 0 {
		return
	}
	if len(h.items) < h.limit {
		heap.Push(h, tsLine{ts, bytes.Clone(line)})
		return
	}
	if ts > h.items[0].ts {
		h.items[0] = tsLine{ts, bytes.Clone(line)}
		heap.Fix(h, 0)
	}
}

// entries decodes the kept lines, newest first, keeping those keep
// accepts (the quick test of the type may have matched the content).
func (h *newest) entries(keep func(Entry) bool) []Entry {
	var out []Entry
	for h.Len() > 0 {
		l := heap.Pop(h).(tsLine)
		e, err := DecodeEntry(bytes.TrimSpace(l.line))
		if err == nil && e.Active() && keep(e) {
			out = append(out, e)
		}
	}
	// Newest first; a key met twice (a log a merge left out of order) is
	// its newest line.
	seen := map[string]bool{}
	kept := make([]Entry, 0, len(out))
	for i := len(out) - 1; i >= 0; i-- {
		if !seen[out[i].Key] {
			seen[out[i].Key] = true
			kept = append(kept, out[i])
		}
	}
	return kept
}

// LineKeyTS reads the key and ts of a raw log line without decoding it;
// ok is false for a line with no key (the line's place in the log's
// order is the key's [SortKey], then ts).
func LineKeyTS(line []byte) (key string, ts int64, ok bool) {
	f, ok := readFacts(line)
	return f.key, f.ts, ok
}

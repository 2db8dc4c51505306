package sanitize

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"hash/maphash"
	"io"
	"io/fs"
	"os"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/helpers/internal/audit"
	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
)

// source is one file a run reads, the archive or the log: read through
// once to fold its lines, once more (the log) to copy the working set,
// and at a few chosen lines in between.
type source struct {
	name string // "archive" or "log", as the audit names it
	r    io.ReaderAt
	size int64
	f    *os.File    // nil for data in memory
	fi   fs.FileInfo // the file as opened
}

// memSource is a source over data in memory.
func memSource(name string, data []byte) *source {
	return &source{name: name, r: bytes.NewReader(data), size: int64(len(data))}
}

// readBuffer is the size of the buffer lines are read through.
const readBuffer = 256 << 10

// lineReader reads the physical lines of a source through a buffer of
// readBuffer bytes; a longer line is gathered in a buffer of its own.
type lineReader struct {
	br   *bufio.Reader
	long []byte
	off  int64 // where the next line starts
	read *int64
}

// newLineReader reads s through a buffer of size bytes, adding what it
// reads to *read.
func newLineReader(s *source, read *int64, size int) *lineReader {
	return &lineReader{br: bufio.NewReaderSize(io.NewSectionReader(s.r, 0, s.size), size), read: read}
}

// next returns the next line with its newline (the last line may lack
// one) and its offset, or io.EOF. The line is valid until the next call.
func (lr *lineReader) next() ([]byte, int64, error) {
	line, err := lr.br.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		lr.long = append(lr.long[:0], line...)
		for errors.Is(err, bufio.ErrBufferFull) {
			line, err = lr.br.ReadSlice('\n')
			lr.long = append(lr.long, line...)
		}
		line = lr.long
	}
	if err != nil && (err != io.EOF || len(line) == 0) {
		return nil, lr.off, err
	}
	off := lr.off
	lr.off += int64(len(line))
	*lr.read += int64(len(line))
	return line, off, nil
}

var bom = []byte("\xef\xbb\xbf")

// keyState is what a run keeps of one key: where its latest line is, and
// what the decisions need of that line.
type keyState struct {
	key   string
	ts    int64
	off   int64  // the line's offset in its file
	canon uint64 // canonHash of the content (live entries only)
	n     int32  // the line's length
	obj   int32  // which entry of the line it is (a glued line holds several)
	typ   uint16 // index in run.types
	flags uint8
	noise uint8 // index in noiseReasons
	more  *keyMore
}

// Flags of a keyState.
const (
	fArchived   = 1 << iota // the line is the archive's
	fRetracted              // its status is retracted
	fSuperseded             // its status is superseded
	fStatus                 // it has another status, which the audit states
	fCanonical              // that status is canonical
	fRepaired               // the line was repaired: its entry is not the line itself
	fOut                    // removed as a duplicate or as stale
)

// keyMore is what a few keys need beyond keyState: a curation status,
// anchors to check, and what the check found.
type keyMore struct {
	status, reason, supersededBy string
	commit                       string
	blobs                        []string // the entry's Blobs: its files' state when written
	anchors                      Anchors
	local                        string   // the local status the anchor check gave
	reasons                      []string // and why
}

var noiseReasons = []string{"", NoiseCommand, NoiseLogLine, NoiseStackTrace, NoiseFragment}

func noiseCode(why string) uint8 {
	if why == "" {
		return 0
	}
	return uint8(slices.Index(noiseReasons, why))
}

// stats count the work of a run and what it holds, for the tests that
// bound them.
type stats struct {
	bytesRead   int64 // read line by line, every pass
	rereads     int   // lines read again at their offset
	rereadBytes int64
	longestLine int   // the longest line read (a line's buffer holds it)
	heldBytes   int64 // bytes of strings kept per key after the fold
}

// run is one sanitize run.
type run struct {
	opts    Options
	collect bool
	res     Result

	srcs    [2]*source // the archive, the log
	states  []keyState
	index   map[string]int32 // key -> states
	types   []string
	typeIdx map[string]uint16
	latest  map[string]knowledge.Entry // collected
	seed    maphash.Seed
	live    []int32 // neither removed by curation nor noise

	readBuffer int // the size of the buffer lines are read through

	activeW  *bufio.Writer
	auditEnc *json.Encoder
	scratch  []byte // a line with a blank in front
	rbuf     []byte // a line read again
	stats    stats
}

func newRun(opts Options, collect bool) *run {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.SymbolBudget <= 0 {
		opts.SymbolBudget = DefaultSymbolBudget
	}
	r := &run{opts: opts, collect: collect, index: map[string]int32{}, typeIdx: map[string]uint16{}, seed: maphash.MakeSeed(), readBuffer: readBuffer}
	if collect {
		r.latest = map[string]knowledge.Entry{}
	}
	return r
}

// build runs the pipeline: fold the archive and the log to the latest
// line of every key, decide, and write the working set (to activeW) and
// the audit (to auditW) as it goes; nil writers write nothing.
func (r *run) build(ctx context.Context, arch, log *source, activeW, auditW *bufio.Writer) error {
	start := r.opts.Now()
	// The symbol budget runs on the real clock, which symbolSearch reads,
	// whatever clock opts.Now gives.
	wallStart := time.Now()
	r.srcs = [2]*source{arch, log}
	r.activeW = activeW
	if auditW != nil {
		r.auditEnc = newAuditEncoder(auditW)
	}
	r.res.Summary.SymbolsComplete = true
	for src := range r.srcs {
		if err := r.scan(ctx, src); err != nil {
			return err
		}
	}
	for i := range r.states {
		st := &r.states[i]
		r.stats.heldBytes += int64(len(st.key))
		if m := st.more; m != nil {
			r.stats.heldBytes += int64(len(m.status) + len(m.reason) + len(m.supersededBy) + len(m.commit))
			for _, l := range [][]string{m.blobs, m.anchors.Files, m.anchors.Names, m.anchors.Symbols} {
				for _, s := range l {
					r.stats.heldBytes += int64(len(s))
				}
			}
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := r.decide(wallStart); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := r.write(ctx); err != nil {
		return err
	}
	if r.collect {
		r.res.Latest = r.latest
	}
	now := r.opts.Now()
	r.res.Summary.ElapsedMS = now.Sub(start).Milliseconds()
	r.res.Summary.TS = now.Unix()
	if r.auditEnc != nil {
		s := r.res.Summary
		_ = r.auditEnc.Encode(audit.Action{Action: audit.ActSummary, Summary: &s})
	}
	return nil
}

// scan folds every line of source src into the run's key states.
func (r *run) scan(ctx context.Context, src int) error {
	s := r.srcs[src]
	lr := newLineReader(s, &r.stats.bytesRead, r.readBuffer)
	var h hash.Hash // the log's sha256, which the summary records
	if src == 1 {
		h = sha256.New()
	}
	l := &lineFold{r: r, src: src}
	record, problem := l.record, l.problem
	for ln := 1; ; ln++ {
		line, off, err := lr.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("read %s: %w", s.name, err)
		}
		if ln%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		r.stats.longestLine = max(r.stats.longestLine, len(line))
		if h != nil {
			h.Write(line)
		}
		*l = lineFold{r: r, src: src, line: ln, off: off, n: len(line)}
		r.res.Summary.Lines += r.parseLine(line, off, record, problem)
		if l.err != nil {
			return l.err
		}
	}
	if h != nil {
		r.res.Summary.LogSHA256 = hex.EncodeToString(h.Sum(nil))
	}
	return nil
}

// lineFold folds the entries of one line.
type lineFold struct {
	r        *run
	src      int
	line     int
	off      int64
	n        int
	obj      int
	repaired bool
	err      error
}

func (l *lineFold) record(rec knowledge.Record) {
	if l.err == nil {
		l.err = l.r.fold(&rec, l.src, l.off, l.n, l.obj, l.repaired)
	}
	l.obj++
}

func (l *lineFold) problem(p knowledge.Problem) {
	act := audit.Action{Action: audit.ActSkipInvalid, Source: l.r.srcs[l.src].name, Line: l.line, Reason: p.Kind}
	if p.Repaired() {
		l.repaired = true
		act.Action = audit.ActRepair
		l.r.res.Summary.Repaired++
	} else {
		l.r.res.Summary.Invalid++
	}
	l.r.emit(act)
}

// parseLine reads one physical line that starts at off in its file
// exactly as knowledge.ParseEach reads it within the whole file, and
// returns the number of lines ParseEach counts (1; 0 for a file that
// holds only a byte-order mark).
func (r *run) parseLine(line []byte, off int64, fn func(knowledge.Record), problem func(knowledge.Problem)) int {
	if off > 0 && bytes.HasPrefix(line, bom) {
		// ParseEach drops a byte-order mark only at the start of a
		// file: a blank in front keeps this one, and is trimmed as
		// white space.
		r.scratch = append(append(r.scratch[:0], ' '), line...)
		line = r.scratch
	}
	return knowledge.ParseEach(line, fn, problem).Lines
}

// fold makes rec the latest line of its key if it is newer than the one
// held (knowledge.Version.Newer).
func (r *run) fold(rec *knowledge.Record, src int, off int64, n, obj int, repaired bool) error {
	e := &rec.Entry
	i, ok := r.index[e.Key]
	if ok {
		st := &r.states[i]
		v := knowledge.Version{TS: e.TS, Retracted: e.Status == knowledge.StatusRetracted, Archived: src == 0}
		o := knowledge.Version{TS: st.ts, Retracted: st.flags&fRetracted != 0, Archived: st.flags&fArchived != 0}
		if v.TS == o.TS && v.Retracted == o.Retracted && v.Archived == o.Archived {
			// Only the bytes of the two lines can tell.
			prev, err := r.reread(st)
			if err != nil {
				return err
			}
			v.JSON, o.JSON = rec.JSON, prev.JSON
		}
		if !v.Newer(o) {
			return nil
		}
	} else {
		key := strings.Clone(e.Key)
		i = int32(len(r.states))
		r.states = append(r.states, keyState{key: key})
		r.index[key] = i
	}
	r.set(&r.states[i], rec, src, off, n, obj, repaired)
	return nil
}

// set records line rec as the latest of its key, with what the decisions
// need of it.
func (r *run) set(st *keyState, rec *knowledge.Record, src int, off int64, n, obj int, repaired bool) {
	e := &rec.Entry
	*st = keyState{key: st.key, ts: e.TS, off: off, n: int32(n), obj: int32(obj), typ: r.intern(e.Type)}
	if src == 0 {
		st.flags |= fArchived
	}
	if repaired {
		st.flags |= fRepaired
	}
	if r.collect {
		r.latest[st.key] = *e
	}
	switch e.Status {
	case "":
	case knowledge.StatusRetracted:
		st.flags |= fRetracted
	case knowledge.StatusSuperseded:
		st.flags |= fSuperseded
	case knowledge.StatusCanonical:
		st.flags |= fStatus | fCanonical
	default:
		st.flags |= fStatus
	}
	if e.Status != "" {
		st.more = &keyMore{status: strings.Clone(e.Status), reason: strings.Clone(e.ReviewReason), supersededBy: strings.Clone(e.SupersededBy)}
	}
	if st.flags&(fArchived|fRetracted|fSuperseded) != 0 {
		return
	}
	if st.flags&fCanonical == 0 {
		if st.noise = noiseCode(Noise(e.Content)); st.noise != 0 {
			return
		}
	}
	st.canon = canonHash(r.seed, e.Content)
	if r.opts.Root == "" {
		return
	}
	if a := FindAnchors(*e); !a.Empty() {
		if st.more == nil {
			st.more = &keyMore{}
		}
		st.more.anchors = Anchors{Files: cloneAll(a.Files), Names: cloneAll(a.Names), Symbols: cloneAll(a.Symbols)}
		st.more.commit = strings.Clone(e.Commit)
		st.more.blobs = cloneAll(e.Blobs)
	}
}

func cloneAll(list []string) []string {
	if len(list) == 0 {
		return nil
	}
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = strings.Clone(s)
	}
	return out
}

func (r *run) intern(typ string) uint16 {
	if i, ok := r.typeIdx[typ]; ok {
		return i
	}
	i := uint16(len(r.types))
	typ = strings.Clone(typ)
	r.types = append(r.types, typ)
	r.typeIdx[typ] = i
	return i
}

// reread reads the latest line of st again and returns its entry.
func (r *run) reread(st *keyState) (knowledge.Record, error) {
	src := r.srcs[1]
	if st.flags&fArchived != 0 {
		src = r.srcs[0]
	}
	if cap(r.rbuf) < int(st.n) {
		r.rbuf = make([]byte, st.n)
	}
	buf := r.rbuf[:st.n]
	if _, err := src.r.ReadAt(buf, st.off); err != nil {
		return knowledge.Record{}, fmt.Errorf("read %s: %w", src.name, err)
	}
	r.stats.rereads++
	r.stats.rereadBytes += int64(st.n)
	return r.recordAt(buf, st.off, st, src.name)
}

// recordAt parses line, which starts at off, for the entry st points at.
func (r *run) recordAt(line []byte, off int64, st *keyState, name string) (knowledge.Record, error) {
	var found knowledge.Record
	ok := false
	k := 0
	r.parseLine(line, off, func(rec knowledge.Record) {
		if k == int(st.obj) && rec.Entry.Key == st.key {
			found, ok = rec, true
		}
		k++
	}, nil)
	if !ok {
		return found, fmt.Errorf("the %s %w", name, errChanged)
	}
	return found, nil
}

func (r *run) emit(act audit.Action) {
	if r.auditEnc != nil {
		// A write error sticks in the buffered writer, and the run
		// reports it when it flushes.
		_ = r.auditEnc.Encode(&act)
	}
	if r.collect {
		r.res.Audit = append(r.res.Audit, act)
	}
}

func (r *run) keyAction(action string, st *keyState, effect, reason string) audit.Action {
	return audit.Action{Action: action, Key: st.key, TS: st.ts, Type: r.types[st.typ], Effect: effect, Reason: reason}
}

// decide takes the latest line of every key through curation's
// statuses, noise, duplicates and anchors. The audit reports each stage
// in key order; only the keys a stage reports are sorted.
func (r *run) decide(wallStart time.Time) error {
	s := &r.res.Summary
	s.Entries = len(r.states)
	var curated, noisy []int32
	r.live = make([]int32, 0, len(r.states))
	for i := range r.states {
		st := &r.states[i]
		switch {
		case st.flags&(fArchived|fRetracted|fSuperseded) != 0:
			curated = append(curated, int32(i))
			continue
		case st.flags&fStatus != 0:
			curated = append(curated, int32(i))
		}
		if st.noise != 0 { // a canonical entry never is noise
			noisy = append(noisy, int32(i))
			continue
		}
		r.live = append(r.live, int32(i))
	}

	// Status: what curation already decided.
	r.sortByKey(curated)
	for _, i := range curated {
		st := &r.states[i]
		switch {
		case st.flags&fArchived != 0:
			s.Archived++
		case st.flags&fRetracted != 0:
			s.Retracted++
			r.emit(r.keyAction(audit.ActRetracted, st, audit.EffectRemoved, "retracted: "+orDash(st.more.reason)))
		case st.flags&fSuperseded != 0:
			s.Superseded++
			act := r.keyAction(audit.ActSuperseded, st, audit.EffectRemoved, "superseded by "+orDash(st.more.supersededBy))
			act.KeptKey = st.more.supersededBy
			r.emit(act)
		default:
			act := r.keyAction(audit.ActStatus, st, "", orDash(st.more.reason))
			act.Result = st.more.status
			r.emit(act)
		}
	}

	// Noise.
	r.sortByKey(noisy)
	for _, i := range noisy {
		st := &r.states[i]
		s.Noise++
		r.emit(r.keyAction(audit.ActNoise, st, audit.EffectRemoved, noiseReasons[st.noise]))
	}

	if err := r.duplicates(); err != nil {
		return err
	}
	r.checkAnchors(wallStart)
	return nil
}

func (r *run) sortByKey(list []int32) {
	slices.SortFunc(list, func(a, b int32) int { return strings.Compare(r.states[a].key, r.states[b].key) })
}

// duplicates collapses entries of the same type and the same words up to
// case, white space, punctuation and filler (CanonicalText); the newest
// stays, a canonical one first. Entries are grouped by a hash of their
// words; only the entries of a group are read again, to compare their
// words exactly. Clusters are reported in the order of their first key.
func (r *run) duplicates() error {
	type cand struct {
		h   uint64
		typ uint16
		i   int32 // in r.states
	}
	cands := make([]cand, len(r.live))
	for p, i := range r.live {
		st := &r.states[i]
		cands[p] = cand{st.canon, st.typ, i}
	}
	slices.SortFunc(cands, func(a, b cand) int {
		switch {
		case a.typ != b.typ:
			return int(a.typ) - int(b.typ)
		case a.h != b.h:
			if a.h < b.h {
				return -1
			}
			return 1
		}
		return int(a.i - b.i)
	})
	type cluster struct {
		members []*keyState
		entries []knowledge.Entry // in key order
	}
	var clusters []cluster
	var group []int32
	for a := 0; a < len(cands); {
		b := a + 1
		for b < len(cands) && cands[b].h == cands[a].h && cands[b].typ == cands[a].typ {
			b++
		}
		if b-a < 2 {
			a = b
			continue
		}
		group = group[:0]
		for _, c := range cands[a:b] {
			group = append(group, c.i)
		}
		a = b
		r.sortByKey(group)
		byText := map[string]int{}
		first := len(clusters)
		for _, i := range group {
			st := &r.states[i]
			rec, err := r.reread(st)
			if err != nil {
				return err
			}
			t := CanonicalText(rec.Entry.Content)
			k, ok := byText[t]
			if !ok {
				k = len(clusters)
				byText[t] = k
				clusters = append(clusters, cluster{})
			}
			clusters[k].members = append(clusters[k].members, st)
			clusters[k].entries = append(clusters[k].entries, rec.Entry)
		}
		// Only clusters of two or more.
		kept := clusters[:first]
		for _, c := range clusters[first:] {
			if len(c.members) > 1 {
				kept = append(kept, c)
			}
		}
		clusters = kept
	}
	slices.SortFunc(clusters, func(a, b cluster) int { return strings.Compare(a.members[0].key, b.members[0].key) })
	s := &r.res.Summary
	for _, c := range clusters {
		order := make([]int, len(c.members))
		for j := range order {
			order[j] = j
		}
		sort.SliceStable(order, func(a, b int) bool { return keeps(c.entries[order[a]], c.entries[order[b]]) })
		keep := c.entries[order[0]]
		keys := make([]string, 0, len(order))
		for _, j := range order {
			keys = append(keys, c.entries[j].Key)
		}
		for _, j := range order[1:] {
			e := c.entries[j]
			c.members[j].flags |= fOut
			s.Duplicates++
			why := "same content as " + keep.Key
			if knowledge.NormalizeContent(e.Content) != knowledge.NormalizeContent(keep.Content) {
				why = "same content as " + keep.Key + " up to case, punctuation or filler words"
			}
			act := keyAction(audit.ActDuplicate, e, audit.EffectRemoved, why)
			act.KeptKey = keep.Key
			act.Keys = keys
			r.emit(act)
		}
	}
	return nil
}

// write reads the log again and writes the working set: the latest line
// of every entry that stays, in log order, with its local status.
func (r *run) write(ctx context.Context) error {
	var kept []int32
	for _, i := range r.live {
		if r.states[i].flags&fOut == 0 {
			kept = append(kept, i)
		}
	}
	slices.SortFunc(kept, func(a, b int32) int {
		sa, sb := &r.states[a], &r.states[b]
		if sa.off != sb.off {
			if sa.off < sb.off {
				return -1
			}
			return 1
		}
		return int(sa.obj - sb.obj)
	})
	r.res.Summary.Active = len(kept)
	log := r.srcs[1]
	lr := newLineReader(log, &r.stats.bytesRead, r.readBuffer)
	var out []byte
	for j, n := 0, 0; j < len(kept); n++ {
		line, off, err := lr.next()
		if err == io.EOF {
			return fmt.Errorf("the %s %w", log.name, errChanged)
		}
		if err != nil {
			return fmt.Errorf("read %s: %w", log.name, err)
		}
		if n%4096 == 4095 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		for ; j < len(kept) && r.states[kept[j]].off == off; j++ {
			st := &r.states[kept[j]]
			obj, err := r.entryJSON(line, off, st)
			if err != nil {
				return err
			}
			status, reasons := LocalActive, []string(nil)
			if m := st.more; m != nil && m.local != "" {
				status, reasons = m.local, m.reasons
			}
			out = appendActive(out[:0], obj, status, reasons)
			if r.activeW != nil {
				// A write error sticks, as for the audit.
				_, _ = r.activeW.Write(out)
			}
			if r.collect {
				r.res.Active = append(r.res.Active, ActiveEntry{Entry: r.latest[st.key], JSON: bytes.Clone(obj), Status: status, Reasons: reasons})
			}
		}
		if j < len(kept) && r.states[kept[j]].off < off {
			return fmt.Errorf("the %s %w", log.name, errChanged)
		}
	}
	return nil
}

// entryJSON is the JSON object of st's entry in line, which starts at off:
// the line itself, trimmed, unless it was repaired.
func (r *run) entryJSON(line []byte, off int64, st *keyState) ([]byte, error) {
	if st.flags&fRepaired == 0 {
		if off == 0 {
			line = bytes.TrimPrefix(line, bom)
		}
		return bytes.TrimSpace(line), nil
	}
	rec, err := r.recordAt(line, off, st, r.srcs[1].name)
	return rec.JSON, err
}

package review

import (
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"strings"
	"sync"

	"github.com/cairn-dev/cairn/helpers/internal/gitx"
	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
	"github.com/cairn-dev/cairn/helpers/internal/project"
	"github.com/cairn-dev/cairn/helpers/internal/untrusted"
)

// Diff is the knowledge change of arg (see [Sources.Diff]) in project p:
// what cairn diff and cairn ui's diff page show.
func Diff(p *project.Project, arg string) (DiffReport, error) { return diff(p, arg, nil) }

// diff is Diff through memo (none when nil).
func diff(p *project.Project, arg string, memo *DiffMemo) (DiffReport, error) {
	src, close, err := Open(p)
	if errors.Is(err, ErrNotGit) {
		return DiffReport{}, fmt.Errorf("cairn diff compares git revisions, and %s is %w", p.Root, err)
	}
	if err != nil {
		return DiffReport{}, err
	}
	defer close()
	src.memo = memo
	return src.Diff(arg)
}

// Diff is the knowledge change of arg: none (the working tree against
// HEAD), REV (the working tree against REV), A..B (B against A) or A...B
// (B against where it branched from A).
func (s Sources) Diff(arg string) (DiffReport, error) {
	from, to, err := s.diffSides(arg)
	if err != nil {
		return DiffReport{}, err
	}
	before, beforeSize, err := s.files(from)
	if err != nil {
		return DiffReport{}, err
	}
	after, afterSize, err := s.files(to)
	if err != nil {
		return DiffReport{}, err
	}
	key := ""
	if s.memo != nil {
		// The working tree's files are compared with the copies the memo
		// keeps, in pieces, and read past the first piece that differs
		// only: a diff remembered costs neither a copy of the log nor a
		// hash of it, and the diff of a log that moved compares the copy.
		var work [2]string
		if (from.work || to.work) && s.OpenLog != nil {
			if work, err = s.memo.refreshWork(s.OpenLog); err != nil {
				return DiffReport{}, err
			}
			kept := s.memo.workFiles()
			if from.work {
				before = kept
			}
			if to.work {
				after = kept
			}
		}
		key = memoKey(from, to, before, after, work)
		if r, ok := s.memo.get(key); ok {
			return r, nil
		}
		if s.memo.computing != nil {
			s.memo.computing()
		}
	}
	// A working tree's file of a committed file's size gets the id git
	// would give it, for a file committed unchanged to be neither read
	// nor compared (one of another size is surely not the same).
	sizes := [2][2]int64{{beforeSize[0], afterSize[0]}, {beforeSize[1], afterSize[1]}}
	for k, pair := range [][2]*knowledge.LogFile{{&before.Log, &after.Log}, {&before.Archive, &after.Archive}} {
		for i, f := range pair {
			if f.ID == "" && f.Read != nil && pair[1-i].ID != "" && (i == 0 && from.work || i == 1 && to.work) {
				if data, _ := f.Read(); int64(len(data)) == sizes[k][1-i] {
					f.ID = gitx.BlobID(data, pair[1-i].ID)
				}
			}
		}
	}
	changes, err := knowledge.CompareFiles(before, after)
	if err != nil {
		return DiffReport{}, err
	}
	r := DiffReport{From: from.label, To: to.label, Changes: changes}
	defer func() { s.memo.put(key, r) }()
	r.Counts = map[string]int{}
	for _, ch := range r.Changes {
		r.Counts[ch.Kind]++
	}
	if r.Changes == nil {
		r.Changes = []knowledge.Change{}
	}
	return r, nil
}

// DiffMemo is [Diff] that remembers its last answer by what it compared:
// asked again of the same revisions, whose files have the same ids and a
// working tree's files the same content, it answers without comparing
// again. The viewer keeps one, so that paging through a diff costs
// reading the working tree's log, not the diff, and computes its first
// page's diff as it starts.
//
// It keeps a copy of the working tree's log and archive as its last diff
// read them, and of the commits' files it read (see blobs). The working
// tree's files are read in pieces and compared with the copies, and read
// into the copy's own storage from the first piece that differs: the
// content is proved the same or read, with no hash of it and no new
// buffer of its size (fresh memory costs a page fault per page, which on
// some virtual machines costs more than reading the file).
//
// It computes one diff at a time: a diff asked while another runs waits
// for it, then finds its answer if it asked the same (a page asked while
// the viewer warms the memo costs no second diff).
type DiffMemo struct {
	run sync.Mutex // held through a diff
	// work are the working tree's log and archive as the last diff of
	// the working tree read them; piece is the buffer they are compared
	// through; gen names the copies' contents (it counts those read).
	// They are used under run.
	work     [2]keptFile
	piece    []byte
	gen      uint64
	mu       sync.Mutex // guards the fields below
	key      string
	report   DiffReport
	computed int // how many diffs it computed
	// blobs are the commits' files the last diff read, by blob id: a
	// diff of the working tree against the same commit, after the log
	// moved, reads the commit's log from here, not from git, its lines
	// already split, hashed and indexed by key.
	blobs, read map[string]*keptBlob
	blobReads   int // how many blobs it read from git
	indexed     int // how many blobs' lines it indexed
	// Test hooks: waiting is called when a diff must wait for another,
	// computing when it starts to compare (nil outside tests).
	waiting, computing func()
}

// Diff is [Diff] through m.
func (m *DiffMemo) Diff(p *project.Project, arg string) (DiffReport, error) {
	if !m.run.TryLock() {
		if m.waiting != nil {
			m.waiting()
		}
		m.run.Lock()
	}
	defer m.run.Unlock()
	defer m.keepBlobs()
	return diff(p, arg, m)
}

// readBlob reads blob b of g through m (none when nil): from the blobs
// the last diff read, else from git.
func (m *DiffMemo) readBlob(g blobGit, b gitx.Blob) ([]byte, error) {
	if m == nil {
		return g.ReadBlob(b, knowledge.MaxLogBytes)
	}
	k, err := m.blob(g, b)
	if err != nil {
		return nil, err
	}
	return k.data, nil
}

// indexBlob is the [knowledge.LineIndex] of blob b of g, made once for
// as long as m keeps the blob.
func (m *DiffMemo) indexBlob(g blobGit, b gitx.Blob) (*knowledge.LineIndex, error) {
	k, err := m.blob(g, b)
	if err != nil {
		return nil, err
	}
	k.once.Do(func() {
		k.index = knowledge.IndexLines(k.data)
		m.mu.Lock()
		m.indexed++
		m.mu.Unlock()
	})
	return k.index, nil
}

// blob is blob b of g as m keeps it, read from git if the last diff did
// not read it; the diff under way keeps it for the next.
func (m *DiffMemo) blob(g blobGit, b gitx.Blob) (*keptBlob, error) {
	m.mu.Lock()
	k, ok := m.read[b.ID]
	if !ok {
		k, ok = m.blobs[b.ID]
	}
	m.mu.Unlock()
	if !ok {
		data, err := g.ReadBlob(b, knowledge.MaxLogBytes)
		if err != nil {
			return nil, err
		}
		k = &keptBlob{data: data}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.read == nil {
		m.read = map[string]*keptBlob{}
	}
	if kept, ok := m.read[b.ID]; ok {
		return kept, nil // read at once by both sides
	}
	m.read[b.ID] = k
	if !ok {
		m.blobReads++
	}
	return k, nil
}

// keptBlob is a commit's file a DiffMemo keeps: its content, and its
// lines indexed once a diff needed them.
type keptBlob struct {
	data  []byte
	once  sync.Once
	index *knowledge.LineIndex
}

// keepBlobs keeps the blobs the diff just done read, if it read any, for
// the next (and drops those it did not).
func (m *DiffMemo) keepBlobs() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.read != nil {
		m.blobs, m.read = m.read, nil
	}
}

// Computed is how many diffs m computed (the others it remembered).
func (m *DiffMemo) Computed() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.computed
}

func (m *DiffMemo) get(key string) (DiffReport, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.report, key != "" && key == m.key
}

func (m *DiffMemo) put(key string, r DiffReport) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.key, m.report = key, r
	m.computed++
}

// memoKey names what a diff compares: the two sides and their files'
// ids, a working tree's file work's name of it (the log's and the
// archive's: the memo's copies, see [DiffMemo.refreshWork]), when set,
// else its length and a hash of what its Read returns (see sumOf). ""
// names nothing (a file could not be read).
func memoKey(from, to diffSide, before, after knowledge.LogFiles, work [2]string) string {
	var b strings.Builder
	for _, d := range []diffSide{from, to} {
		fmt.Fprintf(&b, "%s\x00%s\x00%v\x00", d.label, d.id, d.work)
	}
	for i, f := range []knowledge.LogFile{before.Log, before.Archive, after.Log, after.Archive} {
		id := f.ID
		if d := []diffSide{from, to}[i/2]; d.work && work[i%2] != "" {
			id = work[i%2]
		} else if id == "" && f.Read != nil {
			data, err := f.Read()
			if err != nil {
				return ""
			}
			id = sumOf(data)
		}
		b.WriteString(id + "\x00")
	}
	return b.String()
}

// sumOf is a file's length and a hash of its content data, as a
// memo's key names a working tree's file it keeps no copy of. The hash
// is seeded per process.
func sumOf(data []byte) string {
	return fmt.Sprintf("%d:%x", len(data), maphash.Bytes(memoSeed, data))
}

// memoSeed seeds the hash of a working tree's file in a memo's key.
var memoSeed = maphash.MakeSeed()

// DiffReport is what cairn diff prints.
type DiffReport struct {
	From    string             `json:"from"`
	To      string             `json:"to"`
	Counts  map[string]int     `json:"counts"`
	Changes []knowledge.Change `json:"changes"`
}

// diffSide is one state of the log: a commit, or the working tree.
type diffSide struct {
	label string
	id    string // the commit; "" is the working tree, or nothing (empty)
	work  bool   // the working tree
	empty bool   // a HEAD with no commit yet: no log
}

// diffSides reads the command's argument: none (HEAD and the working
// tree), REV (REV and the working tree), A..B or A...B.
func (s Sources) diffSides(arg string) (from, to diffSide, err error) {
	side := func(rev string) (diffSide, error) {
		if rev == "" {
			rev = "HEAD"
		}
		id, err := s.Git.Resolve(rev)
		if err != nil && rev == "HEAD" {
			return diffSide{label: "HEAD (no commits yet)", empty: true}, nil
		}
		if err != nil {
			return diffSide{}, revisionError{err}
		}
		return diffSide{label: rev, id: id}, nil
	}
	work := diffSide{label: "working tree", work: true}
	switch {
	case strings.Contains(arg, "..."):
		a, b, _ := strings.Cut(arg, "...")
		if from, err = side(a); err != nil {
			return
		}
		if to, err = side(b); err != nil {
			return
		}
		if from.id != "" && to.id != "" {
			base, err := s.Git.MergeBase(from.id, to.id)
			if err != nil {
				return from, to, err
			}
			from.label, from.id = "merge base of "+from.label+" and "+to.label, base
		}
		return from, to, nil
	case strings.Contains(arg, ".."):
		a, b, _ := strings.Cut(arg, "..")
		if from, err = side(a); err != nil {
			return
		}
		to, err = side(b)
		return from, to, err
	default:
		from, err = side(arg)
		return from, work, err
	}
}

// blobGit is a Git that lists a commit's files by their blob ids and
// reads blobs (a [*gitx.Repo]): the diff then reads a file of a commit
// only when the other side differs in it.
type blobGit interface {
	BlobsAt(id string, paths ...string) (map[string]gitx.Blob, error)
	ReadBlob(b gitx.Blob, max int64) ([]byte, error)
}

// files are the side's log and archive, with the size of each that is a
// commit's (-1 for the working tree's, or unknown). A commit's file is
// read through the memo, which keeps those its last diff read.
func (s Sources) files(d diffSide) (f knowledge.LogFiles, size [2]int64, err error) {
	size = [2]int64{-1, -1}
	switch {
	case d.empty:
		return knowledge.LogFiles{}, size, nil
	case d.work && s.LogData != nil: // read when first asked (a diff remembered needs neither)
		var once sync.Once
		var data [2][]byte
		var err error
		read := func(i int) func() ([]byte, error) {
			return func() ([]byte, error) {
				once.Do(func() { data[0], data[1], err = s.LogData() })
				return data[i], err
			}
		}
		return knowledge.LogFiles{Log: knowledge.LogFile{Read: read(0)}, Archive: knowledge.LogFile{Read: read(1)}}, size, nil
	case d.work: // sources that give the log only as records
		recs, err := s.Log()
		if err != nil {
			return knowledge.LogFiles{}, size, err
		}
		log, arc := knowledge.RecordLines(recs)
		return knowledge.LogFiles{Log: knowledge.Data(log), Archive: knowledge.Data(arc)}, size, nil
	}
	path := func(name string) string { return strings.TrimPrefix(s.Dir+"/"+name, "./") }
	logPath, arcPath := path(knowledge.LogName), path(knowledge.ArchiveName)
	g, ok := s.Git.(blobGit)
	if !ok {
		var out [2][]byte
		for i, p := range []string{logPath, arcPath} {
			data, _, err := s.Git.FileAt(d.id, p, knowledge.MaxLogBytes)
			if err != nil {
				return knowledge.LogFiles{}, size, err
			}
			out[i] = data
		}
		return knowledge.LogFiles{Log: knowledge.Data(out[0]), Archive: knowledge.Data(out[1])}, size, nil
	}
	blobs, err := g.BlobsAt(d.id, logPath, arcPath)
	if err != nil {
		return knowledge.LogFiles{}, size, err
	}
	file := func(i int, p string) (knowledge.LogFile, error) {
		b, ok := blobs[p]
		if !ok {
			return knowledge.LogFile{}, nil
		}
		if b.Size > knowledge.MaxLogBytes {
			return knowledge.LogFile{}, fmt.Errorf("%s at %s: %w (%d bytes, at most %d)", p, d.id, gitx.ErrTooLarge, b.Size, int64(knowledge.MaxLogBytes))
		}
		size[i] = b.Size
		f := knowledge.LogFile{ID: b.ID, Read: func() ([]byte, error) { return s.memo.readBlob(g, b) }}
		if s.memo != nil {
			f.Index = func() (*knowledge.LineIndex, error) { return s.memo.indexBlob(g, b) }
		}
		return f, nil
	}
	if f.Log, err = file(0, logPath); err != nil {
		return f, size, err
	}
	f.Archive, err = file(1, arcPath)
	return f, size, err
}

// read returns the records of the side's log and archive, all of them
// parsed (the check's read).
func (s Sources) read(d diffSide) ([]knowledge.Record, error) {
	if d.work {
		return s.Log()
	}
	f, _, err := s.files(d)
	if err != nil {
		return nil, err
	}
	var recs []knowledge.Record
	for i, file := range []knowledge.LogFile{f.Log, f.Archive} {
		if file.Read == nil {
			continue
		}
		data, err := file.Read()
		if err != nil {
			return nil, err
		}
		knowledge.Parse(data, func(r knowledge.Record) {
			r.Archived = i == 1
			recs = append(recs, r)
		})
	}
	return recs, nil
}

// diffSections are the kinds of change in the order they are printed,
// with their headings.
var diffSections = []struct{ kind, title string }{
	{knowledge.ChangeAdded, "Added"},
	{knowledge.ChangeRetracted, "Retracted"},
	{knowledge.ChangeSuperseded, "Superseded"},
	{knowledge.ChangeStatus, "Status changed"},
	{knowledge.ChangeEdited, "Edited"},
	{knowledge.ChangeArchived, "Archived by rotation (moved to knowledge.archive.jsonl, not removed)"},
	{knowledge.ChangeRestored, "Restored from the archive"},
	{knowledge.ChangeRemoved, "Removed (no line left in the log or the archive)"},
}

// summary is the counts of r in words: "2 added, 1 retracted".
func (r DiffReport) summary() string {
	var parts []string
	for _, s := range diffSections {
		if n := r.Counts[s.kind]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, s.kind))
		}
	}
	return strings.Join(parts, ", ")
}

// sections calls fn for each kind of change r holds, in the order of
// diffSections, with its title and its changes.
func (r DiffReport) sections(fn func(title string, changes []knowledge.Change)) {
	for _, s := range diffSections {
		var changes []knowledge.Change
		for _, c := range r.Changes {
			if c.Kind == s.kind {
				changes = append(changes, c)
			}
		}
		if len(changes) > 0 {
			fn(s.title, changes)
		}
	}
}

// statusName is a status for people ("" is active).
func statusName(s string) string {
	if s == "" {
		return "active"
	}
	return s
}

// oneLine is untrusted text on one terminal line, cut to n characters.
func oneLine(s string, n int) string { return untrusted.Line(s, n) }

// WriteDiff writes r for people.
func WriteDiff(w io.Writer, r DiffReport) {
	if len(r.Changes) == 0 {
		fmt.Fprintf(w, "no knowledge change from %s to %s\n", r.From, r.To)
		return
	}
	fmt.Fprintf(w, "knowledge change from %s to %s: %s\n", r.From, r.To, r.summary())
	r.sections(func(title string, changes []knowledge.Change) {
		fmt.Fprintf(w, "\n%s:\n", title)
		for _, c := range changes {
			e := c.Entry
			fmt.Fprintf(w, "  [%s] %s\n", oneLine(e.Type, 20), oneLine(e.Content, 300))
			meta := []string{oneLine(e.Key, 100)}
			if e.Author != "" {
				meta = append(meta, "by "+oneLine(e.Author, 60))
			}
			switch c.Kind {
			case knowledge.ChangeRetracted:
				meta = append(meta, "reason: "+orNone(oneLine(c.Reason, 200)))
			case knowledge.ChangeSuperseded:
				if c.New != nil {
					fmt.Fprintf(w, "    -> [%s] %s\n", oneLine(c.New.Type, 20), oneLine(c.New.Content, 300))
					meta = append(meta, "replaced by "+oneLine(c.New.Key, 100))
				} else {
					meta = append(meta, "replaced by "+orNone(oneLine(e.SupersededBy, 100)))
				}
			case knowledge.ChangeStatus:
				meta = append(meta, statusName(oneLine(c.FromStatus, 30))+" -> "+statusName(oneLine(c.ToStatus, 30)))
				if c.Reason != "" {
					meta = append(meta, "reason: "+oneLine(c.Reason, 200))
				}
			}
			fmt.Fprintf(w, "    %s\n", strings.Join(meta, " | "))
		}
	})
}

// WriteDiffMarkdown writes r as a pull-request comment. Every text from
// the log is redacted and an inline code span (see mdField): no markdown,
// HTML, link or mention in an entry can render, and no committed secret
// is printed. It stays under maxComment characters; all is the command
// that lists every change.
func WriteDiffMarkdown(w io.Writer, r DiffReport, all string) {
	var out comment
	defer out.close(w, "changes", all)
	md := func(s string) string { return mdField(s, 500) }
	out.head("### cairn: team knowledge changes\n\nFrom %s to %s", md(r.From), md(r.To))
	if len(r.Changes) == 0 {
		out.head(": no change.\n")
		return
	}
	out.head(": %s.\n\nThese entries steer every teammate's agent: review them like CI config.\n", r.summary())
	r.sections(func(title string, changes []knowledge.Change) {
		out.head("\n#### %s\n\n", title)
		for _, c := range changes {
			e := c.Entry
			line := "- " + md(e.Type) + " " + md(e.Content)
			switch c.Kind {
			case knowledge.ChangeRetracted:
				line += " — reason: " + mdField(c.Reason, 300)
			case knowledge.ChangeSuperseded:
				if c.New != nil {
					line += " → " + md(c.New.Type) + " " + md(c.New.Content)
				}
			case knowledge.ChangeStatus:
				line += " — " + md(statusName(c.FromStatus)) + " → " + md(statusName(c.ToStatus))
			}
			if e.Author != "" {
				line += " — by " + mdField(e.Author, 80)
			}
			line += " <sub>" + md(e.Key) + "</sub>"
			out.item(line)
		}
	})
}

package knowledge

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"sync/atomic"
	"time"

	"github.com/cairn-dev/cairn/helpers/internal/anchor"
	"github.com/cairn-dev/cairn/helpers/internal/fsx"
	"github.com/cairn-dev/cairn/helpers/internal/jsonfield"
)

// File names inside a project's .cairn directory.
const (
	DirName     = ".cairn"
	LogName     = "knowledge.jsonl"
	ArchiveName = "knowledge.archive.jsonl"
	ConfigName  = "config.json"
	CacheDir    = "cache"
	LocalDir    = "local"
	lockName    = "knowledge.lock"
)

// GitAttributes is the content of .cairn/.gitattributes: union merges for
// local merges where two insertions meet.
const GitAttributes = "*.jsonl merge=union\n"

// GitIgnore is the content of .cairn/.gitignore: the disposable cache, this
// developer's own state, and the lock and temporary files of writers.
const GitIgnore = "cache/\nlocal/\n*.lock\n.*.cairn-tmp-*\n"

// LockWait is how long a writer waits for another writer of the log.
const LockWait = 10 * time.Second

// Caps on what is read from .cairn before reading it: a log of a million
// entries is about 150 MB; the settings are a few hundred bytes.
const (
	MaxLogBytes    = 1 << 30
	MaxConfigBytes = 1 << 20
)

// Store is the .cairn directory of one project. Everything in it arrives
// by git pull from whoever pushed last, so every access goes through its
// confined [fsx.Root]: no link is followed, no special file is used, and
// every read is capped.
type Store struct {
	Dir  string // the .cairn directory
	root fsx.Root
	// passes counts the duplicate checks that read the whole log (for
	// tests of the key index).
	passes atomic.Int64
}

// Open returns the store of the project rooted at root (its .cairn
// directory need not exist yet).
func Open(root string) *Store {
	dir := filepath.Join(root, DirName)
	return &Store{Dir: dir, root: fsx.NewRoot(dir).PrivateUnder(LocalDir)}
}

// OpenDir returns the store whose files are directly in dir: a log kept
// outside any project (the session pipeline's personal entries).
// All of it is the person's own (0600 files in 0700 directories).
func OpenDir(dir string) *Store { return &Store{Dir: dir, root: fsx.NewPrivateRoot(dir)} }

// Root is the confined view of the .cairn directory, for the packages
// that keep their own files in it (the cache, local state).
func (s *Store) Root() fsx.Root { return s.root }

// LogPath is the path of the shared log.
func (s *Store) LogPath() string { return filepath.Join(s.Dir, LogName) }

// ArchivePath is the path of the rotated archive.
func (s *Store) ArchivePath() string { return filepath.Join(s.Dir, ArchiveName) }

// CachePath is the path of the disposable cache directory.
func (s *Store) CachePath() string { return filepath.Join(s.Dir, CacheDir) }

// LocalPath is the path of this developer's own state.
func (s *Store) LocalPath() string { return filepath.Join(s.Dir, LocalDir) }

// ConfigPath is the path of the team's settings.
func (s *Store) ConfigPath() string { return filepath.Join(s.Dir, ConfigName) }

// Exists reports whether the .cairn directory exists as a real directory
// (a symlink in its place does not count; see [Store.Check]).
func (s *Store) Exists() bool {
	ok, err := s.root.IsDir("")
	return ok && err == nil
}

// Check reports whether .cairn is usable: nil when it is a real
// directory or missing, an [fsx.UnsafeError] when it is a link or not a
// directory.
func (s *Store) Check() error {
	_, err := s.root.IsDir("")
	return err
}

// Provision creates .cairn (never the directories above it) with its
// .gitattributes and .gitignore where missing, and an empty log, under the
// writers' lock. It never replaces a file that exists.
func (s *Store) Provision() error {
	l, err := s.lock()
	if err != nil {
		return err
	}
	return l.Release()
}

// provisioned are the files every store has, with their initial content.
var provisioned = []struct{ name, content string }{
	{".gitattributes", GitAttributes},
	{".gitignore", GitIgnore},
	{LogName, ""},
}

// Sum identifies log data by content: its SHA-256 in hex. The cache, the
// audit and curation proposals all record the log this way, so they can
// tell whether they speak of the same version.
func Sum(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// ReadFile reads the file name under .cairn (slash-separated), refusing
// one larger than max bytes; a missing file is empty.
func (s *Store) ReadFile(name string, max int64) ([]byte, error) {
	data, err := s.root.ReadFile(name, max)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return data, nil
}

// ReadLog reads the shared log; a missing log is empty.
func (s *Store) ReadLog() ([]byte, error) { return s.ReadFile(LogName, MaxLogBytes) }

// ReadArchive reads the archive; a missing archive is empty.
func (s *Store) ReadArchive() ([]byte, error) { return s.ReadFile(ArchiveName, MaxLogBytes) }

// ReadAll reads the log, and the archive too when withArchive is set, and
// returns every record (the archive's marked Archived) with a report of
// what it skipped or repaired.
func (s *Store) ReadAll(withArchive bool) ([]Record, Report, error) {
	var recs []Record
	var rep Report
	err := s.eachFile(withArchive, func(data []byte, archived bool) {
		rep.Merge(Parse(data, func(rec Record) {
			rec.Archived = archived
			recs = append(recs, rec)
		}))
	})
	if err != nil {
		return nil, rep, err
	}
	return recs, rep, nil
}

// ReadKeys is ReadAll of the entries of keys alone (see [ParseKeys]):
// their records, the log's then the archive's (when withArchive is set,
// marked Archived), each in file order.
func (s *Store) ReadKeys(keys map[string]bool, withArchive bool) ([]Record, error) {
	var recs []Record
	err := s.eachFile(withArchive, func(data []byte, archived bool) {
		ParseKeys(data, keys, func(rec Record) {
			rec.Archived = archived
			recs = append(recs, rec)
		})
	})
	if err != nil {
		return nil, err
	}
	return recs, nil
}

// eachFile calls fn with the log's content, then the archive's when
// withArchive is set.
func (s *Store) eachFile(withArchive bool, fn func(data []byte, archived bool)) error {
	names := []string{LogName}
	if withArchive {
		names = append(names, ArchiveName)
	}
	for _, n := range names {
		data, err := s.ReadFile(n, MaxLogBytes)
		if err != nil {
			return err
		}
		fn(data, n == ArchiveName)
	}
	return nil
}

// lock takes the writers' lock of the store, creating .cairn (never the
// directories above it) and, under the lock, whichever of its provisioned
// files are missing, so a first insert and a provisioning never race; and
// it sweeps temporary files that writers left when they died mid-write.
func (s *Store) lock() (*fsx.Lock, error) {
	if err := s.root.MkdirAll(""); err != nil {
		return nil, fmt.Errorf("create %s: %w", DirName, err)
	}
	l, err := s.root.Acquire(lockName, LockWait)
	if err != nil {
		return nil, err
	}
	fail := func(err error) (*fsx.Lock, error) {
		l.Release()
		return nil, err
	}
	for _, f := range provisioned {
		if _, err := s.root.CreateIfMissing(f.name, []byte(f.content), 0o644); err != nil {
			return fail(err)
		}
	}
	now := time.Now()
	for _, n := range []string{LogName, ArchiveName} {
		if _, err := s.root.RemoveStaleTemps(n, now); err != nil {
			return fail(err)
		}
	}
	return l, nil
}

// writeLog replaces the log under the writers' lock.
func (s *Store) writeLog(data []byte) error { return s.root.WriteAtomic(LogName, data, 0o644) }

// InsertResult says what an insertion did with each entry it was given.
type InsertResult struct {
	Added      []Entry // written, in the order given
	Duplicates []Entry // already present (same key, or same type and content)
}

// Insert adds entries to the log, each at its place in hash-of-key order,
// under the writers' lock, replacing the file atomically. Every text field
// of every entry is redacted first (in place: the caller sees the entries
// as written, keys included). An entry whose key
// is already in the log, or whose type and normalised content equal an
// existing entry's, is not added again. Existing lines are never changed.
//
// Its cost is a look-up of each entry in the key index (see keyindex.go)
// when that is current with the log, else one pass over the log's bytes
// through a small buffer that decodes only lines of other key schemes
// (and builds the index); a binary search that reads a few lines; and a
// copy of the file that the kernel makes, on a big log while the pass
// runs (see spliceDuringPass): the log is never parsed or held in memory
// whole. An
// anchor map that was current with the log before is brought to the new
// log with the new entries' anchors (see advanceAnchors), so the next
// tool call's hook needs no cache, and so is the key index.
func (s *Store) Insert(entries []Entry) (InsertResult, error) {
	var res InsertResult
	if err := prepare(entries); err != nil {
		return res, err
	}
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
	before, idErr := anchor.Identity(s.root)
	ks = s.keyLookup(before, idErr)
	fresh := dedupeBatch(entries, &res)
	lines, err := marshalAll(fresh)
	if err != nil {
		return res, err
	}
	if needsPass(lf, fresh, ks) && lf.size >= passBesideCopyBytes {
		fresh, lines, err = s.spliceDuringPass(lf, fresh, lines, &res, ks)
	} else if fresh, err = dedupeLog(lf, fresh, &res, ks); err == nil && len(fresh) > 0 {
		if len(fresh) != len(lines) {
			lines, err = marshalAll(fresh)
		}
		if err == nil {
			err = s.spliceLog(lf, lines)
		}
	}
	if err != nil {
		return res, err
	}
	if len(fresh) == 0 {
		s.saveKeyIndex(ks, before, nil)
		return res, nil
	}
	res.Added = fresh
	if idErr != nil {
		return res, nil
	}
	after, err := anchor.Identity(s.root)
	if err != nil {
		return res, nil
	}
	s.saveKeyIndex(ks, after, lines)
	s.advanceAnchors(before, after, fresh)
	return res, nil
}

// marshalAll is the lines of entries.
func marshalAll(entries []Entry) ([][]byte, error) {
	lines := make([][]byte, len(entries))
	for i := range entries {
		var err error
		if lines[i], err = Marshal(&entries[i]); err != nil {
			return nil, err
		}
	}
	return lines, nil
}

// passBesideCopyBytes is the size of log from which an insertion that
// reads the log writes the new one meanwhile (see spliceDuringPass). On a
// smaller log the pass and the copy take a millisecond or two each, and
// a second goroutine's start and their contention cost more than the
// overlap saves: into a log of 10k entries (3 MB), 29.3 ms against
// 26.7 ms one after the other; at 100k (30 MB), 117.6 ms against 141.0
// ms (whole `cairn add`, medians of interleaved rounds). A variable for
// the tests.
var passBesideCopyBytes int64 = 8 << 20

// spliceDuringPass checks fresh (the lines of which are lines) against
// the log by the pass over it (dedupeLog) while the new log, with all of
// lines, is written and its writeback started on another goroutine: the
// pass is processor work, the copy the kernel's and the disk's, and on a
// big log each is a good part of an insertion. The new log replaces the
// old one only once the pass has found none of fresh in it; else that
// copy is dropped (removed, the log untouched) and, if some of fresh are
// new, the log is written again with theirs. It returns the entries
// written and their lines.
func (s *Store) spliceDuringPass(lf *logFile, fresh []Entry, lines [][]byte, res *InsertResult, ks *keyLookup) ([]Entry, [][]byte, error) {
	verdict := make(chan bool, 1)
	written := make(chan error, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				written <- fmt.Errorf("write %s/%s: %v", DirName, LogName, r)
			}
		}()
		written <- s.spliceLogIf(lf, lines, func() bool { return <-verdict })
	}()
	var kept []Entry
	var err error
	all := false
	func() {
		// Told even if the pass panics: the copy is then dropped.
		defer func() { verdict <- all }()
		kept, err = dedupeLog(lf, fresh, res, ks)
		all = err == nil && len(kept) == len(fresh)
	}()
	werr := <-written
	switch {
	case err != nil:
		return nil, nil, err
	case all:
		return kept, lines, werr
	case len(kept) == 0:
		return nil, nil, nil
	}
	if lines, err = marshalAll(kept); err != nil {
		return nil, nil, err
	}
	return kept, lines, s.spliceLog(lf, lines)
}

// prepare redacts every entry (in place) and checks that it has what a
// line must have: what every entry that is written goes through.
func prepare(entries []Entry) error {
	for i := range entries {
		redactEntry(&entries[i])
		if err := entries[i].Validate(); err != nil {
			return err
		}
	}
	return nil
}

// InsertLines adds raw JSON object lines at their sorted places without
// deduplicating: the way to record a change of an entry (a status, a
// supersession), which is a new line with the same key and a later ts.
func (s *Store) InsertLines(lines [][]byte) error {
	return s.InsertLinesIf(lines, nil)
}

// InsertLinesIf is InsertLines that first calls check, under the writers'
// lock, with the log as it is; an error from check stops the insertion.
// It is how a reviewed change applies only to the log it was made from.
func (s *Store) InsertLinesIf(lines [][]byte, check func(log []byte) error) error {
	if len(lines) == 0 && check == nil {
		return nil
	}
	for i := range lines {
		lines[i], _ = redactLine(lines[i])
	}
	var ks *keyLookup
	defer writeKeyIndexAfter(&ks)
	l, err := s.lock()
	if err != nil {
		return err
	}
	defer l.Release()
	lf, err := s.openLog()
	if err != nil {
		return err
	}
	defer lf.Close()
	if check != nil {
		data, err := lf.readAll()
		if err != nil {
			return fmt.Errorf("read %s/%s: %w", DirName, LogName, err)
		}
		if err := check(data); err != nil {
			return err
		}
	}
	if len(lines) == 0 {
		return nil
	}
	before, idErr := anchor.Identity(s.root)
	ks = s.keyLookup(before, idErr)
	if err := s.spliceLog(lf, lines); err != nil {
		return err
	}
	if after, err := anchor.Identity(s.root); err == nil {
		s.saveKeyIndex(ks, after, lines)
	}
	return nil
}

// dedupe returns the entries that are neither in the log nor repeated
// earlier in entries, and records the others in res.Duplicates. With ks
// current, an entry none of whose hashes is in the key index is new
// without reading the log; else the log is read, and the key index built
// into ks if it was not current.
func dedupe(lf *logFile, entries []Entry, res *InsertResult, ks *keyLookup) ([]Entry, error) {
	return dedupeLog(lf, dedupeBatch(entries, res), res, ks)
}

// dedupeBatch returns the entries not repeated earlier in entries (same
// key, or same type and normalised content), and records the others in
// res.Duplicates.
func dedupeBatch(entries []Entry, res *InsertResult) []Entry {
	type tc struct{ typ, content string }
	want := map[tc]bool{}
	keys := map[string]bool{}
	var fresh []Entry
	for _, e := range entries {
		id := tc{e.Type, NormalizeContent(e.Content)}
		if keys[e.Key] || want[id] {
			res.Duplicates = append(res.Duplicates, e)
			continue
		}
		keys[e.Key] = true
		want[id] = true
		fresh = append(fresh, e)
	}
	return fresh
}

// needsPass reports whether dedupeLog reads the log to check fresh: it
// does unless the log is empty or the key index is current and holds none
// of their hashes.
func needsPass(lf *logFile, fresh []Entry, ks *keyLookup) bool {
	return len(fresh) > 0 && lf.size > 0 && !ks.misses(fresh)
}

// dedupeLog is dedupe of entries that do not repeat one another (see
// dedupeBatch).
func dedupeLog(lf *logFile, fresh []Entry, res *InsertResult, ks *keyLookup) ([]Entry, error) {
	type tc struct{ typ, content string }
	want := map[tc]bool{}
	keys := map[string]bool{}
	for _, e := range fresh {
		keys[e.Key] = true
		want[tc{e.Type, NormalizeContent(e.Content)}] = true
	}
	if len(fresh) == 0 {
		return fresh, nil
	}
	if lf.size == 0 {
		ks.build(nil)
		return fresh, nil
	}
	if ks.misses(fresh) {
		return fresh, nil
	}
	ks.passed()
	building := ks.wanted()
	var collected []byte // hashes for the index, after room for its head
	if building {
		collected = newIndexBuf(int(lf.size / 200)) // about a line's length
	}
	collect := func(h uint64) { collected = binary.LittleEndian.AppendUint64(collected, h) }
	// A line under cairn's own key scheme holds the content its key was
	// made from, so its key alone says whether it repeats a wanted entry
	// (by the key the entry's content would have, or by the entry's own
	// key); only lines of other schemes (an import, a hand edit, a
	// double-encoded line) need their content read.
	types := map[string]bool{}
	for id := range want {
		types[id.typ] = true
	}
	seen := map[tc]bool{}
	seenKey := map[string]bool{}
	var own keySet[*tc]
	var mine keySet[string]
	for _, e := range fresh {
		id := tc{e.Type, NormalizeContent(e.Content)}
		own.add(MakeKey(e.Type, e.Content), &id)
		mine.add(e.Key, e.Key)
	}
	err := lf.eachLine(func(line []byte) {
		if key, ok := ownLineKey(line); ok {
			if building {
				collect(keyHash(key))
			}
			if id, ok := own.find(key); ok {
				seen[*id] = true
			}
			if k, ok := mine.find(key); ok {
				seenKey[k] = true
			}
			return
		}
		r, ok := otherLineFields(line)
		if !ok {
			return
		}
		if building {
			otherLineHashes(r, collect)
		}
		if keys[r[2].String()] {
			seenKey[r[2].String()] = true
		}
		if !types[r[0].String()] {
			return
		}
		if id := (tc{r[0].String(), NormalizeContent(r[1].String())}); want[id] {
			seen[id] = true
		}
	})
	if err != nil {
		return nil, fmt.Errorf("read %s/%s: %w", DirName, LogName, err)
	}
	if building {
		ks.build(collected)
	}
	if len(seen) == 0 && len(seenKey) == 0 {
		return fresh, nil
	}
	kept := fresh[:0:0]
	for _, e := range fresh {
		if seen[tc{e.Type, NormalizeContent(e.Content)}] || seenKey[e.Key] {
			res.Duplicates = append(res.Duplicates, e)
			continue
		}
		kept = append(kept, e)
	}
	return kept, nil
}

// keySet maps keys to values and is asked with a key in a line's memory,
// once per line of the log: a few keys (one capture) are compared in
// place, which rejects a line by its key's length alone; many (an import)
// are hashed.
type keySet[V any] struct {
	keys []string
	vals []V
	m    map[string]V
}

// smallKeySet is how many keys a keySet compares before it hashes.
const smallKeySet = 8

func (s *keySet[V]) add(key string, v V) {
	if _, ok := s.find([]byte(key)); ok {
		return
	}
	if s.m == nil && len(s.keys) < smallKeySet {
		s.keys = append(s.keys, key)
		s.vals = append(s.vals, v)
		return
	}
	if s.m == nil {
		s.m = make(map[string]V, 2*smallKeySet)
		for i, k := range s.keys {
			s.m[k] = s.vals[i]
		}
		s.keys, s.vals = nil, nil
	}
	s.m[key] = v
}

func (s *keySet[V]) find(key []byte) (V, bool) {
	if s.m != nil {
		v, ok := s.m[string(key)]
		return v, ok
	}
	for i, k := range s.keys {
		if len(k) == len(key) && k == string(key) {
			return s.vals[i], true
		}
	}
	var zero V
	return zero, false
}

// sortPos is a line's place in the log order: hash of key, then ts.
type sortPos struct {
	hash [32]byte
	ts   int64
}

func (a sortPos) less(b sortPos) bool {
	if c := bytes.Compare(a.hash[:], b.hash[:]); c != 0 {
		return c < 0
	}
	return a.ts < b.ts
}

// lineSortPos reads a line's key and ts; ok is false for a line without a
// key (invalid, blank, a conflict marker), which has no place of its own.
func lineSortPos(line []byte) (sortPos, bool) {
	if len(line) == 0 || line[0] != '{' {
		return sortPos{}, false
	}
	r := jsonfield.GetMany(line, "key", "ts")
	if r[0].Type != jsonfield.String || r[0].Str == "" {
		return sortPos{}, false
	}
	return sortPos{hash: SortKey(r[0].Str), ts: r[1].Int()}, true
}

// insertSorted returns data with lines inserted at their places (see
// [placeLines]); existing bytes are kept exactly, line endings included,
// but for a leading BOM.
func insertSorted(data []byte, lines [][]byte) []byte {
	lf := memLog(data)
	places, err := placeLines(lf.readerAt(), lf.start, lf.size, lines)
	if err != nil {
		panic(err) // reading memory cannot fail
	}
	var out bytes.Buffer
	out.Grow(len(data) + len(lines)*512)
	if err := writeSpliced(&out, lf, places); err != nil {
		panic(err)
	}
	return out.Bytes()
}

// SortLines orders raw entry lines by their place in the log (hash of key,
// then ts, then the bytes), lines without a key last.
func SortLines(lines [][]byte) {
	type kl struct {
		pos  sortPos
		ok   bool
		line []byte
	}
	ks := make([]kl, len(lines))
	for i, l := range lines {
		p, ok := lineSortPos(l)
		ks[i] = kl{p, ok, l}
	}
	sort.SliceStable(ks, func(a, b int) bool {
		if ks[a].ok != ks[b].ok {
			return ks[a].ok
		}
		if ks[a].pos != ks[b].pos {
			return ks[a].pos.less(ks[b].pos)
		}
		return bytes.Compare(ks[a].line, ks[b].line) < 0
	})
	for i := range ks {
		lines[i] = ks[i].line
	}
}

// canonicalKey reads the key of a line that starts the way cairn writes
// lines ({"key":"...), without parsing it. The key shares line's memory.
func canonicalKey(line []byte) ([]byte, bool) {
	const prefix = `{"key":"`
	if !bytes.HasPrefix(line, []byte(prefix)) {
		return nil, false
	}
	rest := line[len(prefix):]
	end := bytes.IndexByte(rest, '"')
	if end < 0 || bytes.IndexByte(rest[:end], '\\') >= 0 {
		return nil, false
	}
	return rest[:end], true
}

// ownKey reports whether key (a string, or a line's memory) has the shape
// of cairn's keys: a known type, then "-", ending in "-" and six
// lower-case hex digits. It runs
// once per line of the log on every insertion, so it looks a type up by
// the key's first byte and checks the hex digits by table.
func ownKey[K string | []byte](key K) bool {
	n := len(key)
	if n < 8 || key[n-7] != '-' ||
		!isLowerHex[key[n-6]] || !isLowerHex[key[n-5]] || !isLowerHex[key[n-4]] ||
		!isLowerHex[key[n-3]] || !isLowerHex[key[n-2]] || !isLowerHex[key[n-1]] {
		return false
	}
	for _, t := range typesByFirst[key[0]] {
		if n > len(t) && key[len(t)] == '-' && string(key[:len(t)]) == t {
			return true
		}
	}
	return false
}

// isLowerHex holds the lower-case hex digits.
var isLowerHex = func() (t [256]bool) {
	for _, c := range "0123456789abcdef" {
		t[c] = true
	}
	return t
}()

// typesByFirst lists the type names by their first byte.
var typesByFirst = func() (t [256][]string) {
	for _, name := range Types {
		t[name[0]] = append(t[name[0]], name)
	}
	return t
}()

// ErrCache is in the chain of every error of the search cache's database
// under .cairn/cache (package index's): disposable, so deleting the cache
// and running cairn sync --full fixes one. It is defined here, below the
// cache, so that the command line names its fix without importing it.
var ErrCache = errors.New("search cache")

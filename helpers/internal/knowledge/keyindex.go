package knowledge

import (
	"encoding/binary"
	"io"
	"math/bits"
	"os"
	"slices"
	"sort"
	"sync/atomic"

	"github.com/cairn-dev/cairn/helpers/internal/jsonfield"
)

// The key index (.cairn/cache/keys.idx) lets an insertion find that an
// entry is new without reading the log: it holds a 64-bit hash of every
// line's key, and of the type and normalised content of every line of
// another key scheme (an import, a hand edit), sorted, for the log whose
// identity (anchor.Identity: size, times and inode of the log files) it
// names. An entry none of whose hashes (its key, the key its content would
// have, its type and content) is in an index current with the log is new;
// one with a hash in it, or any entry when the index is missing or not
// current, is checked by the pass over the log as before, so a collision
// of hashes costs a pass and never drops an entry. The pass that checks a
// log with no current index builds one; an insertion with a current index
// brings it to the log it wrote, with the new lines' hashes. Only writers
// of the log read it, under the log's lock, and write it, from what they
// read and wrote under the lock (see saveKeyIndex); any other change of
// the log (a pull, a hand edit, a rotation, a rewrite) changes the log's
// identity, and the index is built again by the next insertion's pass. The
// search cache (package index) is not used: opening its database costs
// more than the pass at 10k entries.
//
// Format: the line "cairn-keys 1", the line of the identity, then the
// hashes as little-endian uint64s in ascending order, each once.

// keyIndexFile is the key index's name under .cairn.
const keyIndexFile = CacheDir + "/keys.idx"

// keyIndexMagic is the index's first line: its format.
const keyIndexMagic = "cairn-keys 1\n"

// maxKeyIndexBytes caps what is read of a key index: two hashes a line of
// the largest log.
const maxKeyIndexBytes = 256 << 20

// Hash domains: a key and a type with content never share a hash by
// construction of their input.
const (
	keyDomain     = 0x6b65790a // "key\n"
	contentDomain = 0x74632e0a // "tc.\n"
)

// keyHash is the index's hash of a key. The pass that builds the index
// hashes every line's key, so a long key is hashed by its length, first
// eight and last sixteen bytes (cairn's keys end in their content's hash):
// keys that share those are told apart by the pass a hit leads to.
func keyHash[K string | []byte](key K) uint64 {
	n := len(key)
	if n < 24 {
		return hash64(keyDomain, key)
	}
	h := mix(keyDomain^uint64(n), le64(key[:8]))
	h = mix(h, le64(key[n-16:n-8]))
	return final(mix(h, le64(key[n-8:])))
}

// contentHash is the index's hash of a type and a normalised content.
func contentHash(typ, norm string) uint64 {
	return hash64(contentDomain, typ+"\x00"+norm)
}

// hash64 is a fast 64-bit hash of s, eight bytes a step: stable across
// processes and builds, as a file's content must be.
func hash64[K string | []byte](seed uint64, s K) uint64 {
	h := seed ^ uint64(len(s))
	for len(s) >= 8 {
		h = mix(h, le64(s[:8]))
		s = s[8:]
	}
	var w uint64
	for i := len(s) - 1; i >= 0; i-- {
		w = w<<8 | uint64(s[i])
	}
	return final(mix(h, w))
}

// le64 reads eight bytes little-endian.
func le64[K string | []byte](b K) uint64 {
	_ = b[7]
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
}

// mix folds w into h.
func mix(h, w uint64) uint64 {
	hi, lo := bits.Mul64(h^w, 0x9e3779b97f4a7c15)
	return hi ^ lo
}

// final spreads h's bits over all 64.
func final(h uint64) uint64 {
	h ^= h >> 33
	h *= 0xc4ceb9fe1a85ec53
	h ^= h >> 33
	return h
}

// entryHashes are the hashes by which an entry would repeat a line: its
// own key, the key its content would have under cairn's scheme, and its
// type and normalised content.
func entryHashes(e *Entry) [3]uint64 {
	return [3]uint64{
		keyHash(e.Key),
		keyHash(MakeKey(e.Type, e.Content)),
		contentHash(e.Type, NormalizeContent(e.Content)),
	}
}

// lineHashes calls add with the hashes of what the duplicate check
// compares of a line (see dedupe): its key, and for a line of another key
// scheme its type and normalised content. It reads the line as dedupe
// does.
func lineHashes(line []byte, add func(uint64)) {
	if key, ok := ownLineKey(line); ok {
		add(keyHash(key))
		return
	}
	if f, ok := otherLineFields(line); ok {
		otherLineHashes(f, add)
	}
}

// ownLineKey is the key of a line written the way cairn writes its own
// lines, under its own key scheme: such a line's key stands for its type
// and content. ok is false for any other line.
func ownLineKey(line []byte) (key []byte, ok bool) {
	key, ok = canonicalKey(line)
	return key, ok && ownKey(key)
}

// otherLineFields reads the type, content and key of a line that is not
// cairn's own (of a glued line, its first object), as dedupe compares
// them; ok is false for a line it cannot read.
func otherLineFields(line []byte) (f []jsonfield.Value, ok bool) {
	obj := line
	if len(line) > 0 && line[0] == '"' {
		objs, _, err := decodeLine(line)
		if err != nil || len(objs) == 0 {
			return nil, false
		}
		obj = objs[0]
	}
	return jsonfield.GetMany(obj, "type", "content", "key"), true
}

// otherLineHashes is lineHashes of a line that is not cairn's own, from
// its fields (see otherLineFields).
func otherLineHashes(f []jsonfield.Value, add func(uint64)) {
	if f[2].Exists() {
		add(keyHash(f[2].String()))
	}
	if f[0].Exists() {
		add(contentHash(f[0].String(), NormalizeContent(f[1].String())))
	}
}

// keyIndex is a key index read from its file or built by a pass: its
// hashes, sorted, as they are in the file. When body lies in buf after
// room bytes, with capacity after it, the file is written from buf (the
// head in front, new hashes merged in place): a fresh buffer of the
// index's size costs a page fault per 4 KB, which on some machines costs
// more than the rest of writing it.
type keyIndex struct {
	body []byte // little-endian uint64s
	buf  []byte // nil, or the buffer that holds body at buf[room:]
	room int
}

// Room a key index's buffer keeps before its hashes for the file's head
// (the magic and the identity of two files, under 200 bytes), and after
// them for the hashes of the lines an insertion adds.
const (
	indexHeadRoom = 256
	indexTailRoom = 8 * 64
)

// newIndexBuf is a buffer for an index of about n hashes, with room.
func newIndexBuf(n int) []byte {
	return make([]byte, indexHeadRoom, indexHeadRoom+8*n+indexTailRoom)
}

// readKeyIndex reads the key index if it is current with the log whose
// identity is id; ok is false when it is missing, damaged or of another
// log. Its head is read first: the hashes of an index of another log are
// not.
func (s *Store) readKeyIndex(id string) (ix keyIndex, ok bool) {
	f, err := s.root.OpenFile(keyIndexFile, os.O_RDONLY, 0)
	if err != nil {
		return ix, false
	}
	defer f.Close()
	fi, err := f.Stat()
	head := len(keyIndexMagic) + len(id) + 1
	if err != nil || fi.Size() < int64(head) || fi.Size() > maxKeyIndexBytes || (fi.Size()-int64(head))%8 != 0 {
		return ix, false
	}
	h := make([]byte, head)
	if _, err := io.ReadFull(f, h); err != nil ||
		string(h[:len(keyIndexMagic)]) != keyIndexMagic ||
		string(h[len(keyIndexMagic):head-1]) != id || h[head-1] != '\n' {
		return ix, false
	}
	n := int(fi.Size()) - head
	buf := newIndexBuf(n / 8)[:indexHeadRoom+n]
	if _, err := io.ReadFull(f, buf[indexHeadRoom:]); err != nil {
		return ix, false
	}
	return keyIndex{body: buf[indexHeadRoom:], buf: buf, room: indexHeadRoom}, true
}

// len is how many hashes the index holds.
func (ix keyIndex) len() int { return len(ix.body) / 8 }

// at is the index's i-th hash.
func (ix keyIndex) at(i int) uint64 { return binary.LittleEndian.Uint64(ix.body[8*i:]) }

// has reports whether h is in the index.
func (ix keyIndex) has(h uint64) bool {
	i := ix.search(0, h)
	return i < ix.len() && ix.at(i) == h
}

// search is the index of the first hash from from on that is not below h.
func (ix keyIndex) search(from int, h uint64) int {
	return from + sort.Search(ix.len()-from, func(j int) bool { return ix.at(from+j) >= h })
}

// writeKeyIndex writes the index for the log whose identity is id: ix's
// hashes with those of lines (added to the log since) merged in. A failure
// is left to the next insertion's pass: the index is a cache's. It may
// change ix's buffer: ix is not used after.
func (s *Store) writeKeyIndex(id string, ix keyIndex, lines [][]byte) {
	var add []uint64
	for _, l := range lines {
		lineHashes(l, func(h uint64) {
			if !ix.has(h) {
				add = append(add, h)
			}
		})
	}
	slices.Sort(add)
	add = slices.Compact(add)
	head := keyIndexMagic + id + "\n"
	n := len(ix.body)
	size := n + 8*len(add)
	var out []byte
	if ix.buf != nil && len(head) <= ix.room && ix.room+size <= cap(ix.buf) {
		out = ix.buf[ix.room-len(head) : ix.room+size]
	} else {
		out = make([]byte, len(head)+size)
		copy(out[len(head):], ix.body)
	}
	copy(out, head)
	mergeWords(out[len(head):], n/8, add)
	_ = s.root.ReplaceFile(keyIndexFile, out, 0o644)
}

// mergeWords merges add (sorted, none of them in b's) into the first n
// words of b (sorted little-endian uint64s), in place: b holds n+len(add)
// words.
func mergeWords(b []byte, n int, add []uint64) {
	i, j := n-1, len(add)-1
	for p := n + len(add) - 1; j >= 0; p-- {
		if i >= 0 && word(b, i) > add[j] {
			putWord(b, p, word(b, i))
			i--
		} else {
			putWord(b, p, add[j])
			j--
		}
	}
}

// word is the i-th little-endian uint64 of b.
func word(b []byte, i int) uint64 { return binary.LittleEndian.Uint64(b[8*i:]) }

// putWord sets the i-th little-endian uint64 of b.
func putWord(b []byte, i int, v uint64) { binary.LittleEndian.PutUint64(b[8*i:], v) }

// sortWords sorts the little-endian uint64s of b in place, each once, and
// returns the part of b that holds them. Hashes are spread evenly, so one
// pass on their top bits moves each into a bucket of a few (in place, an
// American flag sort), each then sorted by insertion: linear in the hashes
// (a build of the index at 100k lines sorts some 100k), with no buffer of
// their size.
func sortWords(b []byte) []byte {
	n := len(b) / 8
	b = b[:8*n]
	if n < 64 {
		sortSmallWords(b)
		return compactWords(b)
	}
	width := min(14, bits.Len(uint(n))-3)
	shift := uint(64 - width)
	next := make([]uint32, 1<<width) // counts, then each bucket's next place
	end := make([]uint32, 1<<width)
	for i := range n {
		next[word(b, i)>>shift]++
	}
	at := uint32(0)
	for d, c := range next {
		next[d] = at
		at += c
		end[d] = at
	}
	for d := range next {
		for next[d] < end[d] {
			// Take the word at bucket d's next place; while it
			// belongs elsewhere, put it at its bucket's next place and
			// take the word there.
			i := int(next[d])
			v := word(b, i)
			for e := v >> shift; e != uint64(d); e = v >> shift {
				j := int(next[e])
				next[e]++
				w := word(b, j)
				putWord(b, j, v)
				v = w
			}
			putWord(b, i, v)
			next[d]++
		}
	}
	start := uint32(0)
	for _, e := range end {
		if e-start > 1 {
			sortSmallWords(b[8*start : 8*e])
		}
		start = e
	}
	return compactWords(b)
}

// sortSmallWords sorts the little-endian uint64s of b: by insertion for a
// few (a bucket of sortWords), else by a general sort (hashes that share
// their top bits).
func sortSmallWords(b []byte) {
	n := len(b) / 8
	if n > 32 {
		sort.Sort(words(b))
		return
	}
	for i := 1; i < n; i++ {
		v := word(b, i)
		j := i
		for ; j > 0 && word(b, j-1) > v; j-- {
			putWord(b, j, word(b, j-1))
		}
		putWord(b, j, v)
	}
}

// words sorts little-endian uint64s in place.
type words []byte

func (w words) Len() int           { return len(w) / 8 }
func (w words) Less(i, j int) bool { return word(w, i) < word(w, j) }
func (w words) Swap(i, j int) {
	a, b := word(w, i), word(w, j)
	putWord(w, i, b)
	putWord(w, j, a)
}

// compactWords drops repeats from sorted words, in place.
func compactWords(b []byte) []byte {
	n := len(b) / 8
	if n == 0 {
		return b[:0]
	}
	k := 1
	for i := 1; i < n; i++ {
		if v := word(b, i); v != word(b, k-1) {
			putWord(b, k, v)
			k++
		}
	}
	return b[:8*k]
}

// keyLookup is what a writer of the log knows of the key index.
type keyLookup struct {
	passes  *atomic.Int64 // the store's count of passes over the log
	ix      keyIndex
	known   bool   // the log's identity is known: the index can be used and kept
	current bool   // ix is current with the log as read
	built   bool   // ix was built by this writer's pass over the log
	save    func() // writes the index (see saveKeyIndex)
}

// keyLookup reads the key index for the log whose identity is id (idErr:
// the identity could not be read).
func (s *Store) keyLookup(id string, idErr error) *keyLookup {
	ks := &keyLookup{passes: &s.passes, known: idErr == nil}
	if ks.known {
		ks.ix, ks.current = s.readKeyIndex(id)
	}
	return ks
}

// misses reports whether the index is current and holds none of the
// entries' hashes: then none of them is in the log.
func (ks *keyLookup) misses(entries []Entry) bool {
	if !ks.current {
		return false
	}
	for i := range entries {
		for _, h := range entryHashes(&entries[i]) {
			if ks.ix.has(h) {
				return false
			}
		}
	}
	return true
}

// passed counts a pass over the log.
func (ks *keyLookup) passed() {
	if ks.passes != nil {
		ks.passes.Add(1)
	}
}

// wanted reports whether a pass over the log should build the index.
func (ks *keyLookup) wanted() bool { return ks.known && !ks.current }

// build makes the hashes in buf[indexHeadRoom:] (of every line of the log
// as read, in any order, as little-endian uint64s; see newIndexBuf) the
// index, sorting them in place.
func (ks *keyLookup) build(buf []byte) {
	if !ks.wanted() {
		return
	}
	if buf == nil {
		buf = newIndexBuf(0)
	}
	body := sortWords(buf[indexHeadRoom:])
	ks.ix = keyIndex{body: body, buf: buf, room: indexHeadRoom}
	ks.current, ks.built = true, true
}

// saveKeyIndex keeps what a writer learnt of the key index, for the log
// whose identity is id: with no lines written (id is the log it read),
// the index its pass built; with lines written (id is the new log's), an
// index current with the log it read, with the lines' hashes added. An
// index that was not current stays so (its identity is not the log's).
// The file is written by writeKeyIndexAfter, once the writers' lock is let
// go: the hashes and the identity were taken under it, so a later writer
// that overtakes this one only makes the index not current.
func (s *Store) saveKeyIndex(ks *keyLookup, id string, lines [][]byte) {
	if ks.known && ks.current && (len(lines) > 0 || ks.built) {
		ks.save = func() { s.writeKeyIndex(id, ks.ix, lines) }
	}
}

// writeKeyIndexAfter writes what saveKeyIndex kept, if anything. A writer
// defers it before it takes the lock, so that it runs after the lock is
// let go.
func writeKeyIndexAfter(ks **keyLookup) {
	if *ks != nil && (*ks).save != nil {
		(*ks).save()
	}
}

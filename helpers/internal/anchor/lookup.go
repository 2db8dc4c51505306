package anchor

import (
	"bytes"
	"io"
	"strings"
)

// Lookup finds, in a map's data, the anchors of the project-relative
// paths (each path and every directory above it) and the command
// prefixes that begin command (after blanks are folded), most specific
// first for each path. The path lines are sorted (see [Encode]): each
// candidate is a binary search, so a lookup reads a few dozen lines of a
// map of any size, and the command lines, which come first and are few.
func Lookup(data []byte, paths []string, command string) []Hit {
	hits, _ := lookup(&mapReader{data: data, size: int64(len(data)), block: blockSize}, paths, command)
	return hits
}

// LookupAt is [Lookup] of a map of size bytes read by offset from r: it
// reads only the blocks its searches touch (a few small reads), so the
// hook before a tool call looks a path up without mapping the map, and a
// map that shrinks under it is an error, not a fault. err is a failed
// read; hits are then unknown.
func LookupAt(r io.ReaderAt, size int64, paths []string, command string) ([]Hit, error) {
	return lookup(&mapReader{r: r, size: size, block: blockSize}, paths, command)
}

// blockSize is what one read of a map takes: a lookup of a path and the
// directories above it in a map of 100k anchored notes reads about ten.
const blockSize = 16 << 10

// mapReader reads a map's bytes by offset, from data or through r, a
// block at a time; the blocks read are kept for the rest of the lookup.
type mapReader struct {
	data   []byte
	r      io.ReaderAt
	size   int64
	block  int64
	blocks map[int64][]byte
	err    error
}

// get returns the block that holds offset off and the block's offset;
// after a failed read, an empty block.
func (m *mapReader) get(off int64) ([]byte, int64) {
	start := off - off%m.block
	end := min(start+m.block, m.size)
	if m.data != nil {
		return m.data[start:end], start
	}
	if b, ok := m.blocks[start]; ok {
		return b, start
	}
	if m.err != nil || start >= end {
		return nil, start
	}
	b := make([]byte, end-start)
	if n, err := m.r.ReadAt(b, start); n < len(b) {
		if err == nil || err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		m.err = err
		return nil, start
	}
	if m.blocks == nil {
		m.blocks = map[int64][]byte{}
	}
	m.blocks[start] = b
	return b, start
}

// index returns the offset of the first c in [off, hi), or -1.
func (m *mapReader) index(off, hi int64, c byte) int64 {
	for off < hi {
		b, start := m.get(off)
		in := b[min(off-start, int64(len(b))):min(hi-start, int64(len(b)))]
		if len(in) == 0 {
			return -1
		}
		if j := bytes.IndexByte(in, c); j >= 0 {
			return off + int64(j)
		}
		off += int64(len(in))
	}
	return -1
}

// lineEnd is the offset of the newline that ends the line at s, or hi.
func (m *mapReader) lineEnd(s, hi int64) int64 {
	if j := m.index(s, hi, '\n'); j >= 0 {
		return j
	}
	return hi
}

// slice returns the bytes in [off, hi), shorter after a failed read.
func (m *mapReader) slice(off, hi int64) []byte {
	hi = min(hi, m.size)
	var out []byte
	for off < hi {
		b, start := m.get(off)
		in := b[min(off-start, int64(len(b))):min(hi-start, int64(len(b)))]
		if len(in) == 0 {
			break
		}
		if out == nil && off+int64(len(in)) == hi {
			return in // within one block
		}
		out = append(out, in...)
		off += int64(len(in))
	}
	return out
}

func lookup(m *mapReader, paths []string, command string) ([]Hit, error) {
	command = foldBlanks(command)
	// The command lines come first, after the magic and sources lines;
	// the first path line ends them.
	files := m.size
	var commands []Hit
	for s := m.lineEnd(0, m.size) + 1; s < m.size && m.err == nil; {
		e := m.lineEnd(s, m.size)
		switch string(m.slice(s, min(e, s+2))) {
		case "f ":
			files = s
		case "c ":
			if command == "" {
				break
			}
			prefix, keys, ok := bytes.Cut(m.slice(s+2, e), []byte("\t"))
			if ok && commandHas(command, string(prefix)) {
				commands = append(commands, Hit{Anchor: string(prefix), Command: true, Keys: strings.Fields(string(keys))})
			}
		}
		if files < m.size {
			break
		}
		s = e + 1
	}
	var hits []Hit
	for _, p := range paths {
		for _, cand := range Candidates(p) {
			if line, ok := m.findLine(files, cand); ok {
				_, keys, _ := bytes.Cut(line, []byte("\t"))
				hits = append(hits, Hit{Anchor: cand, Keys: strings.Fields(string(keys))})
			}
		}
	}
	if m.err != nil {
		return nil, m.err
	}
	return append(hits, commands...), nil
}

// findLine finds the path line of name among the sorted path lines that
// start at lo (a line start): a binary search by byte offset, then a
// scan of the few lines left.
func (m *mapReader) findLine(lo int64, name string) ([]byte, bool) {
	hi := m.size
	for hi-lo > 512 && m.err == nil {
		mid := lo + (hi-lo)/2
		j := m.index(mid, hi, '\n')
		if j < 0 || j+1 >= hi {
			break
		}
		s := j + 1 // a line start inside (lo, hi)
		switch c := m.compareName(s, name); {
		case c < 0:
			lo = s // the line sorts before name: name is at s or after
		case c > 0:
			hi = s
		default:
			return m.slice(s, m.lineEnd(s, m.size)), true
		}
	}
	for lo < hi && m.err == nil {
		e := m.lineEnd(lo, hi)
		if m.compareName(lo, name) == 0 {
			return m.slice(lo, e), true
		}
		lo = e + 1
	}
	return nil, false
}

// compareName compares the name of the path line ("f NAME\tKEYS") at s
// with name, reading no more of it than the comparison needs; a line that
// is not a path line sorts first.
func (m *mapReader) compareName(s int64, name string) int {
	b := m.slice(s, s+int64(len("f ")+len(name)+1))
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		b = b[:i]
	}
	rest, ok := bytes.CutPrefix(b, []byte("f "))
	if !ok {
		return -1
	}
	if i := bytes.IndexByte(rest, '\t'); i >= 0 {
		rest = rest[:i]
	}
	return bytes.Compare(rest, []byte(name))
}

package fsx

import (
	"io"
	"os"
)

// WritebackChunk is how much a [Writeback] writes before it starts that
// part's writeback: the disk then writes while the rest is copied, and the
// fsync at the end waits for the last chunk only (BenchmarkWriteback).
const WritebackChunk = 256 << 10

// Writeback is a new file written whole from its start, ahead of an
// fsync, that has the kernel start writing each WritebackChunk to disk as
// soon as it is written ([StartWriteback]). A copy from a file into it
// (io.Copy of an io.LimitedReader of an *os.File) stays a kernel copy,
// made a chunk at a time.
type Writeback struct {
	f       *os.File
	written int64 // bytes written
	started int64 // bytes whose writeback was started
}

// NewWriteback writes f, a new file, from its start.
func NewWriteback(f *os.File) *Writeback { return &Writeback{f: f} }

func (w *Writeback) Write(p []byte) (int, error) {
	n, err := w.f.Write(p)
	w.written += int64(n)
	w.start(false)
	return n, err
}

// ReadFrom copies r into the file a chunk at a time. An io.LimitedReader
// (as io.Copy's callers pass one) is unwrapped, so that each chunk is
// still the file's own ReadFrom of a limited file: a kernel copy.
func (w *Writeback) ReadFrom(r io.Reader) (int64, error) {
	limit := int64(-1)
	if lr, ok := r.(*io.LimitedReader); ok {
		r, limit = lr.R, lr.N
	}
	var total int64
	for limit != 0 {
		n := int64(WritebackChunk)
		if limit > 0 {
			n = min(n, limit)
			limit -= n
		}
		c, err := w.f.ReadFrom(io.LimitReader(r, n))
		total += c
		w.written += c
		w.start(false)
		if err != nil || c < n {
			return total, err
		}
	}
	return total, nil
}

// Flush starts the writeback of all that is written and not yet started.
func (w *Writeback) Flush() { w.start(true) }

// start starts the writeback of what was written since the last time, once
// that is a chunk (or whatever there is, with all).
func (w *Writeback) start(all bool) {
	if n := w.written - w.started; n > 0 && (all || n >= WritebackChunk) {
		StartWriteback(w.f, w.started, n)
		w.started = w.written
	}
}

package knowledge

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/helpers/internal/fsx"
)

// An insertion never parses the log as a whole, nor copies it into
// memory. A new line's place is found by a binary search over byte
// offsets that reads a few lines through ReadAt (the log is sorted by hash
// of key); the duplicate check reads the file through one small buffer,
// reads each line's key where it lies in it and decodes only lines of
// other key schemes; and the new
// file is the old one copied around the new lines by the kernel
// (copy_file_range on Linux), then renamed over it as before.

// logFile is the log as an insertion reads it: the open file under the
// writers' lock, or data in memory.
type logFile struct {
	f     *os.File // the log; nil when there is none yet or it is data
	data  []byte   // the log in memory, when f is nil
	size  int64
	start int64 // where the body begins: after a BOM
	nl    bool  // the body is empty or ends with a newline
}

// openLog opens the log for reading; a missing log is an empty one.
func (s *Store) openLog() (*logFile, error) {
	f, err := s.root.OpenFile(LogName, os.O_RDONLY, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return memLog(nil), nil
	}
	if err != nil {
		return nil, err
	}
	lf, err := fileLog(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("read %s/%s: %w", DirName, LogName, err)
	}
	return lf, nil
}

// fileLog describes the open log f.
func fileLog(f *os.File) (*logFile, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if fi.Size() > MaxLogBytes {
		return nil, fmt.Errorf("%w (%d bytes, the cap is %d)", fsx.ErrTooLarge, fi.Size(), MaxLogBytes)
	}
	lf := &logFile{f: f, size: fi.Size(), nl: true}
	var head [3]byte
	if n, _ := f.ReadAt(head[:], 0); bytes.HasPrefix(head[:n], bom) {
		lf.start = int64(len(bom))
	}
	if lf.size > lf.start {
		var last [1]byte
		if _, err := f.ReadAt(last[:], lf.size-1); err != nil {
			return nil, err
		}
		lf.nl = last[0] == '\n'
	}
	return lf, nil
}

// memLog describes a log held in memory.
func memLog(data []byte) *logFile {
	lf := &logFile{data: data, size: int64(len(data))}
	if bytes.HasPrefix(data, bom) {
		lf.start = int64(len(bom))
	}
	lf.nl = lf.size == lf.start || data[lf.size-1] == '\n'
	return lf
}

// Close closes the log file.
func (lf *logFile) Close() error {
	if lf.f == nil {
		return nil
	}
	return lf.f.Close()
}

// readerAt reads the log at offsets.
func (lf *logFile) readerAt() io.ReaderAt {
	if lf.f == nil {
		return bytes.NewReader(lf.data)
	}
	return lf.f
}

// readAll reads the whole log, for a check that needs it.
func (lf *logFile) readAll() ([]byte, error) {
	if lf.f == nil {
		return lf.data, nil
	}
	data := make([]byte, lf.size)
	if n, err := lf.f.ReadAt(data, 0); n < len(data) {
		if err == nil || errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	return data, nil
}

// eachLine calls fn with every line of the log body in order, without its
// line ending ("\n" and one "\r" before it). The file is read lineChunk
// bytes at a time into one buffer (grown only for a line longer than it),
// so the log is never held in memory whole and the pass touches few pages
// of memory: a mapping of the file, or a buffer of its size, costs a page
// fault per few kilobytes, which on some machines costs more than the
// read. fn must not keep line.
func (lf *logFile) eachLine(fn func(line []byte)) error {
	return lf.eachLineChunk(lineChunk, fn)
}

// eachLineChunk is eachLine reading chunk bytes at a time.
func (lf *logFile) eachLineChunk(chunk int, fn func(line []byte)) error {
	if lf.f == nil {
		eachLine(lf.data[lf.start:], fn)
		return nil
	}
	buf := make([]byte, chunk)
	have := 0 // bytes of a line not finished yet, at the start of buf
	for off := lf.start; off < lf.size; {
		if have == len(buf) {
			buf = append(buf, make([]byte, len(buf))...)
		}
		n, err := lf.f.ReadAt(buf[have:min(int64(len(buf)), int64(have)+lf.size-off)], off)
		if n == 0 && err != nil {
			return err
		}
		off += int64(n)
		data := buf[:have+n]
		done := eachFullLine(data, fn)
		have = copy(buf, data[done:])
	}
	eachLine(buf[:have], fn)
	return nil
}

// lineChunk is how much of the log eachLine reads at a time.
const lineChunk = 64 << 10

// eachLine calls fn with every line of data, the last one even without a
// newline.
func eachLine(data []byte, fn func(line []byte)) {
	if done := eachFullLine(data, fn); done < len(data) {
		fn(bytes.TrimSuffix(data[done:], []byte{'\r'}))
	}
}

// eachFullLine calls fn with every line of data that ends with a newline
// and returns how many bytes they take.
func eachFullLine(data []byte, fn func(line []byte)) int {
	done := 0
	for {
		i := bytes.IndexByte(data[done:], '\n')
		if i < 0 {
			return done
		}
		line := data[done : done+i]
		if i > 0 && line[i-1] == '\r' {
			line = line[:i-1]
		}
		fn(line)
		done += i + 1
	}
}

// place is where one new line goes: before the existing line that starts
// at byte at of the log (or at its end).
type place struct {
	at   int64
	pos  sortPos
	line []byte
}

// placeLines finds the place of every line in the body r[start:end] and
// returns them in the order they are to be written.
func placeLines(r io.ReaderAt, start, end int64, lines [][]byte) ([]place, error) {
	pr := &prober{r: r, chunk: probeChunk}
	out := make([]place, 0, len(lines))
	for _, l := range lines {
		p, _ := lineSortPos(l)
		at, err := pr.search(p, start, end)
		if err != nil {
			return nil, err
		}
		out = append(out, place{at: at, pos: p, line: l})
	}
	sort.SliceStable(out, func(a, b int) bool {
		if out[a].at != out[b].at {
			return out[a].at < out[b].at
		}
		return out[a].pos.less(out[b].pos)
	})
	return out, nil
}

// prober reads single lines of a log body at byte offsets, chunk bytes
// at a time.
type prober struct {
	r     io.ReaderAt
	chunk int
	buf   []byte // the last line read
}

// probeChunk is how much a probe reads at a time: a dozen lines of a
// typical log.
const probeChunk = 4 << 10

// search returns the offset of the first line in [lo, hi) that sorts
// after p, skipping lines without a key (blank, invalid, conflict
// markers), or hi when there is none. lo and hi are line starts (or the
// end of the body). It is a binary search over bytes: each step reads the
// line around the middle, so a sorted log of any size costs about
// log2(lines) line reads, and a log a merge left out of order still gets
// a sensible place.
func (pr *prober) search(p sortPos, lo, hi int64) (int64, error) {
	for lo < hi {
		m, err := pr.lineStart(lo, lo+(hi-lo)/2)
		if err != nil {
			return 0, err
		}
		var q sortPos
		ok := false
		next := m
		for next < hi {
			line, nx, err := pr.line(next, hi)
			if err != nil {
				return 0, err
			}
			next = nx
			if q, ok = lineSortPos(bytes.TrimPrefix(bytes.TrimRight(line, "\r\n"), bom)); ok {
				break
			}
		}
		switch {
		case !ok || p.less(q):
			hi = m
		default:
			lo = next
		}
	}
	return lo, nil
}

// lineStart returns the start of the line that holds byte off, looking
// back no further than lo (a line start).
func (pr *prober) lineStart(lo, off int64) (int64, error) {
	for end := off; end > lo; {
		n := min(int64(pr.chunk), end-lo)
		pr.buf = slices.Grow(pr.buf[:0], int(n))
		b := pr.buf[:n]
		if err := pr.readAt(b, end-n); err != nil {
			return 0, err
		}
		if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
			return end - n + int64(i) + 1, nil
		}
		end -= n
	}
	return lo, nil
}

// line returns the line that starts at off (with its line ending) and
// where the next one starts, reading no further than hi.
func (pr *prober) line(off, hi int64) ([]byte, int64, error) {
	pr.buf = pr.buf[:0]
	for pos := off; pos < hi; {
		n := min(int64(pr.chunk), hi-pos)
		have := len(pr.buf)
		pr.buf = slices.Grow(pr.buf, int(n))[:have+int(n)]
		b := pr.buf[have:]
		if err := pr.readAt(b, pos); err != nil {
			return nil, 0, err
		}
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			pr.buf = pr.buf[:have+i+1]
			return pr.buf, off + int64(len(pr.buf)), nil
		}
		pos += n
	}
	return pr.buf, hi, nil
}

func (pr *prober) readAt(b []byte, off int64) error {
	n, err := pr.r.ReadAt(b, off)
	if n == len(b) {
		return nil
	}
	if err == nil || errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	return fmt.Errorf("read log at %d: %w", off, err)
}

// writeSpliced writes the body of lf with each new line at its place:
// the existing bytes are copied unchanged, the BOM excepted (a line
// inserted before the first would leave it in the middle of the file), and
// a last line without a newline gets one before a line after it.
func writeSpliced(w io.Writer, lf *logFile, places []place) error {
	prev := lf.start
	for _, pl := range places {
		if err := lf.copyTo(w, prev, pl.at); err != nil {
			return err
		}
		if pl.at > prev && pl.at == lf.size && !lf.nl {
			if _, err := w.Write([]byte{'\n'}); err != nil {
				return err
			}
		}
		prev = pl.at
		if _, err := w.Write(append(pl.line[:len(pl.line):len(pl.line)], '\n')); err != nil {
			return err
		}
	}
	return lf.copyTo(w, prev, lf.size)
}

// copyTo copies bytes [from, to) of the log to w. From file to file the
// kernel copies them (copy_file_range on Linux) without passing them
// through this process.
func (lf *logFile) copyTo(w io.Writer, from, to int64) error {
	if to <= from {
		return nil
	}
	if lf.f == nil {
		_, err := w.Write(lf.data[from:to])
		return err
	}
	if _, err := lf.f.Seek(from, io.SeekStart); err != nil {
		return err
	}
	n, err := io.Copy(w, io.LimitReader(lf.f, to-from))
	if err == nil && n != to-from {
		err = io.ErrUnexpectedEOF
	}
	if err != nil {
		return fmt.Errorf("copy log bytes %d-%d: %w", from, to, err)
	}
	return nil
}

// spliceLog replaces the log with lf's content and lines at their places,
// atomically (temporary file, fsync, rename, fsync of the directory).
func (s *Store) spliceLog(lf *logFile, lines [][]byte) error {
	return s.spliceLogIf(lf, lines, nil)
}

// errDropped is what a write that spliceLogIf was told to drop returns to
// the atomic write, which removes its temporary file.
var errDropped = errors.New("new log dropped")

// spliceLogIf is spliceLog that, once the new log is written and its
// writeback started, asks proceed (when not nil) whether to put it in
// place; if not, the new file is removed, the log left as it was, and it
// returns errDropped.
func (s *Store) spliceLogIf(lf *logFile, lines [][]byte, proceed func() bool) error {
	places, err := placeLines(lf.readerAt(), lf.start, lf.size, lines)
	if err != nil {
		return err
	}
	keep := replacedName()
	removed := s.removeReplaced(keep)
	defer removed()
	return s.root.WriteAtomicWith(LogName, 0o644, func(w *os.File) error {
		// The disk writes as the kernel copies (see fsx.Writeback).
		wb := fsx.NewWriteback(w)
		if err := writeSpliced(wb, lf, places); err != nil {
			return err
		}
		wb.Flush()
		if proceed != nil && !proceed() {
			return errDropped
		}
		// Named before it is replaced, the old log is not freed when
		// its writer closes it; a big one is, rather than doubled on
		// disk (its copy costs far more than freeing it).
		if lf.size <= keepReplacedBytes {
			_ = s.root.Link(LogName, keep)
		}
		return nil
	})
}

// replacedPrefix names, under cache/, the logs writers replaced (see
// replacedName).
const replacedPrefix = "replaced-log."

// keepReplacedBytes is the size up to which a replaced log is kept for the
// next writer to free (see replacedName).
const keepReplacedBytes = 64 << 20

// replacedName is a new name for the log under cache/: a log whose
// writer is about to replace it is given it, so that closing the old file
// does not free its pages and blocks on the writer's path (about 1 ms for
// a 3 MB log, on the capture hook's path); the next writer frees it, see
// removeReplaced.
func replacedName() string {
	return CacheDir + "/" + replacedPrefix + strconv.Itoa(os.Getpid()) + "-" + strconv.FormatInt(time.Now().UnixNano(), 36)
}

// removeReplaced removes the logs earlier writers kept under cache/ (see
// replacedName), all but keep (this writer's), on another goroutine: it
// runs while the new log is written and synced (freeing a log's pages and
// blocks is the kernel's work on the processor; the sync waits for the
// disk). The returned func waits for it (and may be called again). It
// must be called under the writers' lock.
func (s *Store) removeReplaced(keep string) (wait func()) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer func() { _ = recover() }()
		names, err := s.root.ReadDir(CacheDir)
		if err != nil {
			return
		}
		for _, n := range names {
			if name := CacheDir + "/" + n.Name; strings.HasPrefix(n.Name, replacedPrefix) && name != keep {
				_ = s.root.Remove(name)
			}
		}
	}()
	return func() { <-done }
}

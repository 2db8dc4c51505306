package review

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"

	"github.com/cairn-dev/cairn/helpers/internal/fsx"
	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
)

// keptFile is a working tree's file as a DiffMemo last read it.
type keptFile struct {
	data []byte // its content; the storage is kept for the next read
	gen  uint64 // names the content (0: none kept)
}

// pieceSize is how much of a working tree's file is compared with its
// copy at a time.
const pieceSize = 256 << 10

// refreshWork makes the memo's copies of the working tree's log and
// archive their content now, read through open (see [Sources.OpenLog]),
// and names each content: the same name as before when it has not
// changed.
func (m *DiffMemo) refreshWork(open func(name string) (io.ReadCloser, error)) (names [2]string, err error) {
	if m.piece == nil {
		m.piece = make([]byte, pieceSize)
	}
	for i, name := range []string{knowledge.LogName, knowledge.ArchiveName} {
		k := &m.work[i]
		if err := k.refresh(open, name, m.piece, knowledge.MaxLogBytes); err != nil {
			k.data, k.gen = k.data[:0], 0
			return names, err
		}
		if k.gen == 0 { // changed
			m.gen++
			k.gen = m.gen
		}
		names[i] = fmt.Sprintf("kept %d", k.gen)
	}
	return names, nil
}

// workFiles are the memo's copies of the working tree's files, for a
// diff to compare while it holds run (nothing keeps a part of them).
func (m *DiffMemo) workFiles() knowledge.LogFiles {
	return knowledge.LogFiles{Log: knowledge.Data(m.work[0].data), Archive: knowledge.Data(m.work[1].data)}
}

// refresh makes k the content of file name, read through open (missing:
// empty), and sets k.gen to 0 when that is not the content k kept. The
// file is read in pieces of piece's size compared with the copy; from
// the first that differs on, it is read into the copy's storage, grown
// as needed. A file over limit bytes is an error.
func (k *keptFile) refresh(open func(name string) (io.ReadCloser, error), name string, piece []byte, limit int64) error {
	f, err := open(name)
	if err != nil {
		return err
	}
	if f == nil {
		if k.gen == 0 || len(k.data) > 0 {
			k.data, k.gen = shrink(k.data[:0]), 0
		}
		return nil
	}
	defer f.Close()
	// The size it has now sizes the copy's storage (the file may still
	// grow or shrink as it is read).
	size := int64(0)
	if st, ok := f.(interface{ Stat() (fs.FileInfo, error) }); ok {
		if fi, err := st.Stat(); err == nil {
			size = fi.Size()
		}
	}
	if size > limit {
		return fmt.Errorf("%s: %w (%d bytes, the cap is %d)", name, fsx.ErrTooLarge, size, limit)
	}
	same := k.gen != 0
	if !same {
		k.data = grow(k.data[:0], int(size)+1)
	}
	off := 0
	for {
		if int64(off) > limit {
			return fmt.Errorf("%s: %w (over %d bytes)", name, fsx.ErrTooLarge, limit)
		}
		if same {
			n, err := io.ReadFull(f, piece)
			if n > 0 && (off+n > len(k.data) || !bytes.Equal(piece[:n], k.data[off:off+n])) {
				same = false
				k.data = append(grow(k.data[:off], max(n, int(size)-off)+1), piece[:n]...)
			}
			off += n
			if err == io.EOF || err == io.ErrUnexpectedEOF {
				break
			}
			if err != nil {
				return err
			}
			continue
		}
		if len(k.data) == cap(k.data) {
			k.data = grow(k.data, pieceSize)
		}
		n, err := f.Read(k.data[off:cap(k.data)])
		off += n
		k.data = k.data[:off]
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
	}
	if same && off == len(k.data) {
		return nil
	}
	k.data, k.gen = shrink(k.data[:off]), 0
	return nil
}

// grow returns b with room for n more bytes: in its own storage when it
// has it, else in a new one with an eighth more (a log grows by a few
// lines at a time).
func grow(b []byte, n int) []byte {
	if cap(b)-len(b) >= n {
		return b
	}
	need := len(b) + n
	return append(make([]byte, 0, need+need/8), b...)
}

// shrink returns b in storage of its size when its own is far larger (a
// log replaced by a much shorter one), so the memo keeps no more than it
// needs.
func shrink(b []byte) []byte {
	if cap(b) <= 2*len(b)+1<<20 {
		return b
	}
	if len(b) == 0 {
		return nil
	}
	return append(make([]byte, 0, len(b)+len(b)/8), b...)
}

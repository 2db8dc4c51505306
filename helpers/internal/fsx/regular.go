package fsx

import (
	"fmt"
	"io"
	"os"
)

// The person's own directories (cairn's queue under $XDG_STATE_HOME, the
// knowledge directory, an agent's transcripts) are theirs, not pulled from
// anyone: links there are followed. What is refused is any file that is
// not a regular one: opening a FIFO blocks until a writer comes, so every
// file cairn opens there is opened without blocking and checked to be a
// regular file before it is used.

// NotRegularError reports a file in the person's own directories that is
// not a regular file (a FIFO, a device, a socket, a directory).
type NotRegularError struct {
	Path string
	What string // "a FIFO", "a device", ...
}

func (e *NotRegularError) Error() string {
	return fmt.Sprintf("%s is %s; cairn only uses regular files (remove it: rm %s)", e.Path, e.What, ShellQuote(e.Path))
}

// Is makes errors.Is(err, ErrUnsafe) hold.
func (e *NotRegularError) Is(target error) bool { return target == ErrUnsafe }

// OpenRegular opens the regular file at path for reading. It never blocks
// on a special file: a FIFO, a device, a socket or a directory is refused
// with a [NotRegularError].
func OpenRegular(path string) (*os.File, error) {
	return OpenRegularFile(path, os.O_RDONLY, 0)
}

// OpenRegularFile opens path with flag (os.O_* flags) as [OpenRegular]
// does: without blocking, and only when it is (or becomes, by O_CREATE) a
// regular file.
func OpenRegularFile(path string, flag int, perm os.FileMode) (*os.File, error) {
	f, err := openNonblock(path, flag, perm)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, &NotRegularError{Path: path, What: describe(fi.Mode())}
	}
	if err := setBlocking(f); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// ReadRegular reads the regular file at path (see [OpenRegular]), refusing
// one larger than max bytes with [ErrTooLarge] before reading it.
func ReadRegular(path string, max int64) ([]byte, error) {
	f, err := OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if fi.Size() > max {
		return nil, fmt.Errorf("%s: %w (%d bytes, the cap is %d)", path, ErrTooLarge, fi.Size(), max)
	}
	data, err := readAllInto(io.LimitReader(f, max+1), make([]byte, 0, fi.Size()+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("%s: %w (over %d bytes)", path, ErrTooLarge, max)
	}
	return data, nil
}

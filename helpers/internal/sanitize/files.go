package sanitize

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/cairn-dev/cairn/helpers/internal/audit"
	"github.com/cairn-dev/cairn/helpers/internal/fsx"
	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
)

// ActiveName is the working set's file name inside .cairn/cache; the audit
// that goes with it is [audit.Name].
const ActiveName = "active.jsonl"

// The sanitize files, by their names under .cairn; the audit is
// [audit.File].
const (
	ActiveFile = knowledge.CacheDir + "/" + ActiveName
	LockFile   = knowledge.CacheDir + "/" + LockName
)

// ActivePath is where the working set lives in a cache directory.
func ActivePath(cacheDir string) string { return filepath.Join(cacheDir, ActiveName) }

// beforeReplace, when a test sets it, runs once both files are written
// and flushed, before they replace the previous ones.
var beforeReplace func()

// outputs are the temporary files a run writes, installed in place at its
// end (fsx's atomic install: fsync, rename, directory fsync).
type outputs struct {
	temps         [2]*fsx.Temp // working set, audit
	active, audit *bufio.Writer
}

// createOutputs creates the temporary files of the working set and the
// audit in the cache directory.
func createOutputs(root fsx.Root) (*outputs, error) {
	o := &outputs{}
	for i, name := range []string{ActiveFile, audit.File} {
		t, err := root.CreateTemp(name, 0o644)
		if err != nil {
			o.discard()
			return nil, err
		}
		o.temps[i] = t
	}
	o.active, o.audit = bufio.NewWriterSize(o.temps[0].File, 256<<10), bufio.NewWriterSize(o.temps[1].File, 256<<10)
	return o, nil
}

// flush writes out what both writers hold.
func (o *outputs) flush() error {
	names := []string{ActiveName, audit.Name}
	for i, w := range []*bufio.Writer{o.active, o.audit} {
		if err := w.Flush(); err != nil {
			return fmt.Errorf("write %s: %w", names[i], err)
		}
	}
	return nil
}

// install puts both files in place of the previous ones, the working set
// first.
func (o *outputs) install() error {
	for _, t := range o.temps {
		if err := t.Install(); err != nil {
			return err
		}
	}
	return nil
}

// discard removes whatever was not installed.
func (o *outputs) discard() {
	for _, t := range o.temps {
		if t != nil {
			t.Abort()
		}
	}
}

// removeTemps removes the temporary files of runs that were killed before
// installing them. Only a holder of the sanitize lock writes these files.
func removeTemps(root fsx.Root) {
	ents, err := root.ReadDir(knowledge.CacheDir)
	if err != nil {
		return
	}
	for _, e := range ents {
		for _, name := range []string{ActiveName, audit.Name} {
			if e.Regular && strings.HasPrefix(e.Name, fsx.TempPrefix(name)) {
				root.Remove(knowledge.CacheDir + "/" + e.Name)
			}
		}
	}
}

// fileSource opens the file name under .cairn for a run; a missing file
// is empty.
func fileSource(root fsx.Root, name, what string) (*source, error) {
	f, err := root.OpenFile(name, os.O_RDONLY, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return memSource(what, nil), nil
	}
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	if fi.Size() > knowledge.MaxLogBytes {
		f.Close()
		return nil, fmt.Errorf("%s: %w (%d bytes, the cap is %d)", name, fsx.ErrTooLarge, fi.Size(), int64(knowledge.MaxLogBytes))
	}
	return &source{name: what, r: f, size: fi.Size(), f: f, fi: fi}, nil
}

// errChanged is returned when a file a run reads changes under it (an
// in-place write; cairn's own writers replace the file, which leaves the
// file the run reads as it was).
var errChanged = errors.New("changed while sanitize read it; the next run will read it again")

// unchanged reports errChanged when the file was written since the run
// opened it.
func (s *source) unchanged() error {
	if s.f == nil {
		return nil
	}
	fi, err := s.f.Stat()
	if err != nil {
		return fmt.Errorf("read %s: %w", s.name, err)
	}
	if fi.Size() != s.fi.Size() || !fi.ModTime().Equal(s.fi.ModTime()) {
		return fmt.Errorf("the %s %w", s.name, errChanged)
	}
	return nil
}

func (s *source) close() {
	if s.f != nil {
		s.f.Close()
	}
}

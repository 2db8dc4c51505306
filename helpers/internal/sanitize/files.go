package sanitize

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

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
// and closed, before they replace the previous ones.
var beforeReplace func()

// tempMarker is in the name of every temporary file cairn writes under
// .cairn (see fsx; .cairn/.gitignore ignores them).
const tempMarker = ".cairn-tmp-"

// outputs are the temporary files a run writes, renamed into place at
// its end.
type outputs struct {
	root          fsx.Root
	names         [2]string // temporary names: working set, audit
	files         [2]*os.File
	active, audit *bufio.Writer
}

// createOutputs creates the temporary files of the working set and the
// audit in the cache directory.
func createOutputs(root fsx.Root) (*outputs, error) {
	o := &outputs{root: root}
	for i, name := range []string{ActiveName, audit.Name} {
		tmp := knowledge.CacheDir + "/." + name + tempMarker + strconv.Itoa(os.Getpid()) + "-" + strconv.FormatInt(time.Now().UnixNano(), 36)
		f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			o.discard()
			return nil, fmt.Errorf("create %s: %w", name, err)
		}
		o.names[i], o.files[i] = tmp, f
	}
	o.active, o.audit = bufio.NewWriterSize(o.files[0], 256<<10), bufio.NewWriterSize(o.files[1], 256<<10)
	return o, nil
}

// close flushes and closes both files.
func (o *outputs) close() error {
	names := []string{ActiveName, audit.Name}
	for i, w := range []*bufio.Writer{o.active, o.audit} {
		if err := w.Flush(); err != nil {
			return fmt.Errorf("write %s: %w", names[i], err)
		}
	}
	for i, f := range o.files {
		o.files[i] = nil
		if err := f.Close(); err != nil {
			return fmt.Errorf("write %s: %w", names[i], err)
		}
	}
	return nil
}

// rename puts both closed files in place of the previous ones, the
// working set first.
func (o *outputs) rename() error {
	for i, name := range []string{ActiveFile, audit.File} {
		if err := o.root.Rename(o.names[i], name); err != nil {
			return fmt.Errorf("replace %s: %w", name, err)
		}
		o.names[i] = ""
	}
	return nil
}

// discard closes and removes whatever was not renamed.
func (o *outputs) discard() {
	for i, f := range o.files {
		if f != nil {
			f.Close()
		}
		if o.names[i] != "" {
			o.root.Remove(o.names[i])
		}
	}
}

// removeTemps removes the temporary files of runs that were killed before
// renaming them. Only a holder of the sanitize lock writes these files.
func removeTemps(root fsx.Root) {
	ents, err := root.ReadDir(knowledge.CacheDir)
	if err != nil {
		return
	}
	for _, e := range ents {
		for _, name := range []string{ActiveName, audit.Name} {
			if e.Regular && strings.HasPrefix(e.Name, "."+name+tempMarker) {
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

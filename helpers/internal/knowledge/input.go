package knowledge

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"unicode"

	"github.com/cairn-dev/cairn/helpers/internal/anchor"
)

// Bounds of what a person or an agent gives an entry by hand (cairn add,
// the MCP add tool): the log is committed, and one line of it must stay a
// line a teammate can read.
const (
	MaxFiles = 50  // paths in files
	MaxTags  = 20  // tags
	MaxBead  = 200 // bytes of a bead id
)

// ErrInput is matched (errors.Is) by every error of [CleanInput].
var ErrInput = errors.New("invalid entry")

// inputError is a refused field, said for the person who gave it.
type inputError struct{ msg string }

func (e *inputError) Error() string        { return e.msg }
func (e *inputError) Is(target error) bool { return target == ErrInput }

func refuse(format string, args ...any) error {
	return &inputError{msg: fmt.Sprintf(format, args...)}
}

// CleanInput checks the fields of e given by hand besides its content, and
// puts them in the log's form: files are paths inside the project at root,
// relative to it with forward slashes (an absolute path inside root is
// made relative; one outside it, or one that climbs out with "..", is
// refused); at most [MaxFiles] of them and [MaxTags] tags; the bead is
// one line of at most [MaxBead] bytes; secrets in either are redacted
// before any of it. Every refusal matches [ErrInput].
func CleanInput(root string, e *Entry) error {
	// Secrets go first, as in redactEntry: cleaning a path ("a://b" to
	// "a:/b") could hide one from the redactor.
	kinds := map[string]bool{}
	for _, k := range e.Redacted {
		kinds[k] = true
	}
	for i := range e.Files {
		e.Files[i] = redactText(e.Files[i], kinds)
	}
	e.Bead = redactText(e.Bead, kinds)
	if len(kinds) > len(e.Redacted) {
		e.Redacted = sortedKinds(kinds)
	}
	if len(e.Files) > MaxFiles {
		return refuse("%d files; an entry names at most %d", len(e.Files), MaxFiles)
	}
	files := make([]string, 0, len(e.Files))
	seen := map[string]bool{}
	for _, f := range e.Files {
		rel, err := projectPath(root, f)
		if err != nil {
			return err
		}
		if !seen[rel] {
			seen[rel] = true
			files = append(files, rel)
		}
	}
	e.Files = files
	if len(files) == 0 {
		e.Files = nil
	}
	if len(e.Tags) > MaxTags {
		return refuse("%d tags; an entry has at most %d", len(e.Tags), MaxTags)
	}
	e.Bead = strings.TrimSpace(e.Bead)
	if strings.IndexFunc(e.Bead, unicode.IsControl) >= 0 {
		return refuse("the bead must be one line (an id such as bd-42)")
	}
	if len(e.Bead) > MaxBead {
		return refuse("a bead id of %d bytes; at most %d", len(e.Bead), MaxBead)
	}
	return nil
}

// projectPath is f as an anchor's path inside the project at root (see
// [anchor.Clean]; an absolute path inside root is made relative by
// [anchor.Rel]), or the refusal that says why it is not one.
func projectPath(root, f string) (string, error) {
	f = strings.TrimSpace(f)
	if f == "" || strings.IndexFunc(f, unicode.IsControl) >= 0 {
		return "", refuse("files: %q is not a path", f)
	}
	if p := filepath.FromSlash(f); filepath.IsAbs(p) || filepath.VolumeName(p) != "" {
		rel, ok := anchor.Rel(root, root, f)
		if root == "" || !ok {
			return "", refuse("files: %s is outside the project; give paths relative to its root (%s)", f, root)
		}
		return rel, nil
	}
	rel, ok := anchor.Clean(f)
	if root != "" {
		rel, ok = anchor.Rel(root, root, f)
	}
	if !ok {
		return "", refuse("files: %s is outside the project; give paths relative to its root", f)
	}
	return rel, nil
}

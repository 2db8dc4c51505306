package review

import "errors"

// The errors of a diff or a check that the person fixes; the command
// line says how (cli's hints).
var (
	// ErrRevision is in the chain of the error of a revision git does
	// not know here.
	ErrRevision = errors.New("unknown revision")
	// ErrNoDefaultBranch: the check has no base to compare with.
	ErrNoDefaultBranch = errors.New("no default branch to compare with (no origin/HEAD, main or master)")
	// ErrNoHead: the check compares with HEAD, which has no commit.
	ErrNoHead = errors.New("HEAD has no commit yet")
)

// revisionError is git's error for a revision it does not know, as git
// said it, and [ErrRevision].
type revisionError struct{ err error }

func (e revisionError) Error() string   { return e.err.Error() }
func (e revisionError) Unwrap() []error { return []error{e.err, ErrRevision} }

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

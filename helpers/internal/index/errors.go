package index

import (
	"errors"

	"github.com/cairn-dev/cairn/helpers/internal/knowledge"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// ErrCache is in the chain of every error of the cache database itself:
// SQLite could not open, read or write it, or a link or special file
// stands where its files belong. The cache is disposable, so deleting
// .cairn/cache and running cairn sync --full always fixes one. Errors of
// the log, the audit and the cache's lock are not ErrCache. It is
// [knowledge.ErrCache], which the command line tests without importing
// this package.
var ErrCache = knowledge.ErrCache

// ErrCorrupt is in the chain of an error SQLite gave because the cache's
// file is damaged or is not a database; such an error is also [ErrCache].
// Search rebuilds a damaged cache once before it gives up.
var ErrCorrupt = errors.New("search cache damaged")

// cacheError is an error of the cache database, of operation op ("" when
// err says it all).
type cacheError struct {
	op  string
	err error
}

func (e *cacheError) Error() string {
	if e.op == "" {
		return e.err.Error()
	}
	return e.op + ": " + e.err.Error()
}

func (e *cacheError) Unwrap() error { return e.err }

// Is makes every cacheError [ErrCache], and one whose cause SQLite
// classified as damage [ErrCorrupt].
func (e *cacheError) Is(target error) bool {
	switch target {
	case ErrCache:
		return true
	case ErrCorrupt:
		var se *sqlite.Error
		if errors.As(e.err, &se) {
			switch se.Code() & 0xff { // the primary code of an extended one
			case sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB:
				return true
			}
		}
	}
	return false
}

// dbErr marks err, of operation op on the cache database, as [ErrCache];
// nil stays nil.
func dbErr(op string, err error) error {
	if err == nil {
		return nil
	}
	return &cacheError{op: op, err: err}
}

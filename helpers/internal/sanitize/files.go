package sanitize

import (
	"path/filepath"

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

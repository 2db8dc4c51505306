// Package audit owns the format of sanitize's audit, .cairn/cache/audit.jsonl:
// one JSON line per decision sanitize took about the log (what left the
// working set, what stays flagged, and why), the run's summary last; and
// its reader. Sanitize writes it; the search cache, curation and doctor
// read it. It imports nothing but the entry model and file identities.
package audit

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/cairn-dev/cairn/helpers/internal/fsx"
	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
)

// Name is the audit's file name inside .cairn/cache.
const Name = "audit.jsonl"

// File is the audit's name under .cairn.
const File = knowledge.CacheDir + "/" + Name

// Path is where the audit lives in a cache directory.
func Path(cacheDir string) string { return filepath.Join(cacheDir, Name) }

// Actions an audit line records.
const (
	ActSkipInvalid = "skip_invalid"       // a log line that is not an entry
	ActRepair      = "repair"             // a log line read after repair
	ActRetracted   = "drop_retracted"     // the entry's latest line retracts it
	ActSuperseded  = "drop_superseded"    // the entry's latest line says it was replaced
	ActStatus      = "status"             // the entry's latest line carries another status
	ActNoise       = "filter_noise"       // a pasted command, a log line, a stack trace, a fragment
	ActDuplicate   = "collapse_duplicate" // same content as a newer entry
	ActAnchor      = "anchor"             // what the check of its files and symbols found
	ActSummary     = "summary"            // the last line: counts and what the run read
)

// Effects an audit line has on the working set.
const (
	EffectRemoved = "removed" // the entry is not in the working set
	EffectFlagged = "flagged" // the entry stays, ranked lower and marked
)

// Anchor results.
const (
	AnchorOK       = "ok"
	AnchorStale    = "stale"        // every file it names is gone
	AnchorReview   = "needs_review" // some named file is gone, or a symbol is not found
	AnchorOutdated = "outdated"     // a named file changed since the entry's commit
)

// Action is one line of the audit: what sanitize did with which keys, and
// why. Every removal from the working set and every flag has one.
type Action struct {
	Action  string   `json:"action"`
	Key     string   `json:"key,omitempty"`
	TS      int64    `json:"ts,omitempty"` // the judged line's ts
	Type    string   `json:"type,omitempty"`
	KeptKey string   `json:"kept_key,omitempty"`
	Keys    []string `json:"keys,omitempty"` // every key of a duplicate cluster, the kept one first
	Effect  string   `json:"effect,omitempty"`
	Result  string   `json:"result,omitempty"` // anchor result, or status
	Reason  string   `json:"reason,omitempty"`
	Source  string   `json:"source,omitempty"` // log or archive, for line actions
	Line    int      `json:"line,omitempty"`

	Files          []string `json:"files,omitempty"`
	MissingFiles   []string `json:"missing_files,omitempty"`
	ChangedFiles   []string `json:"changed_files,omitempty"`
	Symbols        []string `json:"symbols,omitempty"`
	MissingSymbols []string `json:"missing_symbols,omitempty"`

	Summary *Summary `json:"summary,omitempty"`
}

// Summary counts what one sanitize run did; it is the audit's last line.
type Summary struct {
	LogSHA256  string `json:"log_sha256"` // the log the run read
	Lines      int    `json:"lines"`
	Entries    int    `json:"entries"` // distinct keys in log and archive
	Active     int    `json:"active"`  // entries in the working set
	Invalid    int    `json:"invalid"`
	Repaired   int    `json:"repaired"`
	Archived   int    `json:"archived"`
	Retracted  int    `json:"retracted"`
	Superseded int    `json:"superseded"`
	Noise      int    `json:"noise"`
	Duplicates int    `json:"duplicates"`
	Stale      int    `json:"stale"`
	Review     int    `json:"needs_review"`
	Outdated   int    `json:"outdated"`
	// SymbolsComplete is false when the symbol search hit its time or size
	// bound; symbols it did not reach are not held against any entry.
	SymbolsComplete bool  `json:"symbols_complete"`
	TrackedFiles    int   `json:"tracked_files"`
	ElapsedMS       int64 `json:"elapsed_ms"`
	TS              int64 `json:"ts"`
	// LogID is the identity the log had before the run opened it: when
	// the log still has it, the audit is of the log as it is, which the
	// search cache can tell without reading the log. A log replaced while
	// the run read it has another identity by then, so the run is asked
	// for again, never wrongly skipped.
	LogID fsx.FileID `json:"log_id,omitzero"`
}

// Verdict is what recall needs of the audit for one entry line: whether it
// left the working set or stays flagged, with a note to show.
type Verdict struct {
	Key    string
	TS     int64
	Effect string
	Note   string
}

// maxBytes caps what is read of the audit: it is this machine's own file,
// but it lives under .cairn, where anything may have been committed.
const maxBytes = 512 << 20

// open opens the store's audit for reading and returns its size; a
// missing audit is a nil file.
func open(s *knowledge.Store) (*os.File, int64, error) {
	f, err := s.Root().OpenFile(File, os.O_RDONLY, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, err
	}
	fi, err := f.Stat()
	if err == nil && fi.Size() > maxBytes {
		err = fmt.Errorf("%s is %d bytes, over the cap of %d", File, fi.Size(), maxBytes)
	}
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	return f, fi.Size(), nil
}

// From is what an audit says of the log it was made from.
type From struct {
	LogSHA256 string
	LogID     fsx.FileID
}

// ReadVerdicts reads the store's audit, line by line, and returns the
// verdicts it holds and what it says of the log it was made from. A
// missing audit has none.
func ReadVerdicts(s *knowledge.Store) ([]Verdict, From, error) {
	var out []Verdict
	from, err := scan(s, mayMatter, func(a Action) {
		if a.Key != "" && a.Effect != "" {
			out = append(out, Verdict{Key: a.Key, TS: a.TS, Effect: a.Effect, Note: a.Reason})
		}
	})
	return out, from, err
}

// ReadKey reads the store's audit and returns every action about key (and
// the collapse of each duplicate it was kept over), in the audit's order,
// and what the audit says of the log it was made from. A missing audit
// has none.
func ReadKey(s *knowledge.Store, key string) ([]Action, From, error) {
	var out []Action
	from, err := scan(s, func(line []byte) bool {
		return bytes.Contains(line, []byte(key)) || containsFold(line, "ummary") || bytes.IndexByte(line, '\\') >= 0
	}, func(a Action) {
		if a.Key == key || a.Action == ActDuplicate && a.KeptKey == key {
			out = append(out, a)
		}
	})
	return out, from, err
}

// scan reads the store's audit line by line, decodes the lines keep
// accepts (the others are not decoded) and passes each action but the
// summary to fn; it returns what the summary says of the log the audit
// was made from. A missing audit has no lines.
func scan(s *knowledge.Store, keep func(line []byte) bool, fn func(Action)) (From, error) {
	f, size, err := open(s)
	if err != nil {
		return From{}, fmt.Errorf("read audit: %w", err)
	}
	if f == nil {
		return From{}, nil
	}
	defer f.Close()
	var from From
	sc := bufio.NewScanner(io.LimitReader(f, size))
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for sc.Scan() {
		line := sc.Bytes()
		if !keep(line) {
			continue
		}
		var a Action
		if json.Unmarshal(line, &a) != nil {
			continue
		}
		if a.Summary != nil {
			from = From{a.Summary.LogSHA256, a.Summary.LogID}
			continue
		}
		fn(a)
	}
	return from, nil
}

// mayMatter reports whether an audit line may carry an effect or the
// summary: most lines of a big audit are anchors found in order, which
// carry neither, and only the others are decoded. A line without an
// escape can set a field only with a key that matches the field's name up
// to case, as encoding/json matches them ("ſ" folds to "s": "ummary").
func mayMatter(line []byte) bool {
	return containsFold(line, "effect") || containsFold(line, "ummary") || bytes.IndexByte(line, '\\') >= 0
}

// containsFold reports whether s contains word (lower-case ASCII letters)
// in any ASCII case.
func containsFold(s []byte, word string) bool {
	for i := 0; i+len(word) <= len(s); i++ {
		j := 0
		for j < len(word) && s[i+j]|0x20 == word[j] {
			j++
		}
		if j == len(word) {
			return true
		}
	}
	return false
}

// tailBytes is how much of the audit's end ReadSummary reads: the summary
// line is a few hundred bytes.
const tailBytes = 64 << 10

// ReadSummary reads the summary line that ends the store's audit, from
// the end of the file.
func ReadSummary(s *knowledge.Store) (Summary, error) {
	f, size, err := open(s)
	if err != nil {
		return Summary{}, err
	}
	if f == nil {
		return Summary{}, fmt.Errorf("no %s yet", File)
	}
	defer f.Close()
	from := max(size-tailBytes, 0)
	data := make([]byte, size-from)
	if _, err := f.ReadAt(data, from); err != nil && err != io.EOF {
		return Summary{}, fmt.Errorf("read audit: %w", err)
	}
	data = bytes.TrimSpace(data)
	i := bytes.LastIndexByte(data, '\n')
	if i < 0 && from > 0 {
		// No line ends in the tail (a run of blanks, or a line longer
		// than any summary): read it all.
		if data, err = io.ReadAll(io.NewSectionReader(f, 0, size)); err != nil {
			return Summary{}, fmt.Errorf("read audit: %w", err)
		}
		data = bytes.TrimSpace(data)
		i = bytes.LastIndexByte(data, '\n')
	}
	var a Action
	if err := json.Unmarshal(data[i+1:], &a); err != nil || a.Summary == nil {
		return Summary{}, fmt.Errorf("%s has no summary", File)
	}
	return *a.Summary, nil
}

// Package audit owns the format of sanitize's audit, .cairn/cache/audit.jsonl:
// one JSON line per decision sanitize took about the log (what left the
// working set, what stays flagged, and why), the run's summary last; and
// its reader. Sanitize writes it; the search cache, curation and doctor
// read it. It imports nothing but the entry model.
package audit

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"

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

// ReadVerdicts reads the store's audit and returns the verdicts it holds
// and the sha256 of the log it was made from. A missing audit has none.
func ReadVerdicts(s *knowledge.Store) ([]Verdict, string, error) {
	data, err := s.ReadFile(File, maxBytes)
	if err != nil {
		return nil, "", fmt.Errorf("read audit: %w", err)
	}
	var out []Verdict
	var logSum string
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for sc.Scan() {
		var a Action
		if json.Unmarshal(sc.Bytes(), &a) != nil {
			continue
		}
		if a.Summary != nil {
			logSum = a.Summary.LogSHA256
		}
		if a.Key == "" || a.Effect == "" {
			continue
		}
		out = append(out, Verdict{Key: a.Key, TS: a.TS, Effect: a.Effect, Note: a.Reason})
	}
	return out, logSum, nil
}

// ReadSummary reads the summary line that ends the store's audit.
func ReadSummary(s *knowledge.Store) (Summary, error) {
	data, err := s.ReadFile(File, maxBytes)
	if err != nil {
		return Summary{}, err
	}
	if data == nil {
		return Summary{}, fmt.Errorf("no %s yet", File)
	}
	data = bytes.TrimSpace(data)
	last := data[bytes.LastIndexByte(data, '\n')+1:]
	var a Action
	if err := json.Unmarshal(last, &a); err != nil || a.Summary == nil {
		return Summary{}, fmt.Errorf("%s has no summary", File)
	}
	return *a.Summary, nil
}

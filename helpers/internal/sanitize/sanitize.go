// Package sanitize builds this machine's working set of the shared log:
// the latest line of every key, without retracted, superseded, noisy,
// duplicate and stale entries, with doubtful ones flagged, and an audit
// that explains every one of those decisions. Its artifacts live in
// .cairn/cache; it never writes the shared log.
//
// A run streams: it reads the log line by line, keeps per key only what
// its decisions need (where the key's latest line is, its ts and type, a
// hash of its words, its anchors), and writes the working set and the
// audit to temporary files that replace the previous ones only once the
// run is complete. A run that is cancelled or killed leaves the previous
// working set and audit as they were.
//
// It owns the anchor rules: what an entry names that the repository can
// confirm ([FindAnchors]), whether a symbol occurs in a file
// ([SymbolsIn], which cairn check reuses), and the verdict of the anchor
// check (judgeAnchors).
package sanitize

import (
	"bytes"
	"context"
	"encoding/json"
	"hash/maphash"
	"io"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/cairn-dev/cairn/helpers/internal/audit"
	"github.com/cairn-dev/cairn/helpers/internal/fsx"
	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
)

// LockName is the lock file, in .cairn/cache, that one sanitize run holds.
const LockName = "sanitize.lock"

// DefaultSymbolBudget bounds the symbol search of one run.
const DefaultSymbolBudget = 3 * time.Second

// Options tune a run.
type Options struct {
	Root         string        // the work tree, for anchor checks
	SymbolBudget time.Duration // default DefaultSymbolBudget
	Now          func() time.Time
	// Collect makes Run fill the Result's Active, Audit and Latest, as
	// Build always does (curation reads them). Without it a run holds
	// only what its decisions need, and its Result has the summary alone.
	Collect bool
}

// Result is what a run found: the working set in log order, the audit,
// and its summary (also the audit's last line). Active, Audit and Latest
// are filled by Build, and by Run with [Options.Collect].
type Result struct {
	Active  []ActiveEntry
	Audit   []audit.Action
	Summary audit.Summary
	// Latest is the latest line of every key read, working set or not.
	Latest map[string]knowledge.Entry
}

// ActiveEntry is one entry of the working set.
type ActiveEntry struct {
	Entry   knowledge.Entry
	JSON    []byte   // its latest line, as in the log
	Status  string   // active, needs_review or outdated
	Reasons []string // why it is flagged
}

// Local statuses of the working set.
const (
	LocalActive      = "active"
	LocalNeedsReview = "needs_review"
	LocalOutdated    = "outdated"
)

// Build computes the working set and the audit from the log and archive
// data, checking anchors against the repository at opts.Root. It runs the
// same pipeline as Run, over data in memory, and collects everything.
func Build(logData, archiveData []byte, opts Options) Result {
	r := newRun(opts, true)
	arch, log := memSource("archive", archiveData), memSource("log", logData)
	// Data in memory cannot fail to read or change under the run.
	_ = r.build(context.Background(), arch, log, nil, nil)
	return r.res
}

// Encode renders the working set (one JSON line per entry: its log line
// with local_status and local_reasons added) and the audit (one JSON line
// per action, the summary last), as Run writes them.
func (res *Result) Encode() (active, auditLog []byte) {
	var a []byte
	for _, e := range res.Active {
		a = appendActive(a, e.JSON, e.Status, e.Reasons)
	}
	var b bytes.Buffer
	enc := newAuditEncoder(&b)
	for _, act := range res.Audit {
		_ = enc.Encode(act)
	}
	s := res.Summary
	_ = enc.Encode(audit.Action{Action: audit.ActSummary, Summary: &s})
	return a, b.Bytes()
}

// appendActive appends the working-set line of an entry: its JSON object
// with the local fields added before the closing brace.
func appendActive(dst, obj []byte, status string, reasons []string) []byte {
	obj = bytes.TrimSpace(obj)
	obj = bytes.TrimSuffix(obj, []byte("}"))
	dst = append(dst, obj...)
	dst = append(dst, `,"local_status":`...)
	switch status {
	case LocalActive, LocalNeedsReview, LocalOutdated:
		dst = append(append(append(dst, '"'), status...), '"')
	default:
		st, _ := json.Marshal(status)
		dst = append(dst, st...)
	}
	if len(reasons) > 0 {
		rs, _ := json.Marshal(reasons)
		dst = append(dst, `,"local_reasons":`...)
		dst = append(dst, rs...)
	}
	return append(dst, "}\n"...)
}

// newAuditEncoder encodes audit lines as the audit holds them.
func newAuditEncoder(w io.Writer) *json.Encoder {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc
}

// Run sanitizes the store: it reads the log and archive, builds the
// working set and writes it and the audit into the cache, under the
// sanitize lock. With wait false, a run already in progress makes it
// return at once with ran false.
func Run(s *knowledge.Store, opts Options, wait bool) (res Result, ran bool, err error) {
	return RunContext(context.Background(), s, opts, wait)
}

// RunContext is Run that stops when ctx is done, leaving the previous
// working set and audit in place.
func RunContext(ctx context.Context, s *knowledge.Store, opts Options, wait bool) (res Result, ran bool, err error) {
	var lock *fsx.Lock
	if wait {
		if lock, err = s.Root().Acquire(LockFile, 5*time.Minute); err != nil {
			return res, false, err
		}
	} else {
		var ok bool
		if lock, ok, err = s.Root().TryAcquire(LockFile); err != nil || !ok {
			return res, false, err
		}
	}
	defer lock.Release()
	return RunLockedContext(ctx, s, opts)
}

// RunLockedContext is RunContext for a caller that holds the sanitize
// lock.
func RunLockedContext(ctx context.Context, s *knowledge.Store, opts Options) (Result, bool, error) {
	root := s.Root()
	// Whatever a killed run left is abandoned: the lock is ours.
	removeTemps(root)
	arch, err := fileSource(root, knowledge.ArchiveName, "archive")
	if err != nil {
		return Result{}, false, err
	}
	defer arch.close()
	// The log's identity is taken before it is opened: a log replaced in
	// between is newer than the identity says, so the search cache asks
	// for another run rather than trusting this one (see audit.Summary).
	logID, err := root.StatID(knowledge.LogName)
	if err != nil {
		return Result{}, false, err
	}
	log, err := fileSource(root, knowledge.LogName, "log")
	if err != nil {
		return Result{}, false, err
	}
	defer log.close()
	out, err := createOutputs(root)
	if err != nil {
		return Result{}, false, err
	}
	defer out.discard()
	r := newRun(opts, opts.Collect)
	r.res.Summary.LogID = logID
	if err := r.build(ctx, arch, log, out.active, out.audit); err != nil {
		return Result{}, false, err
	}
	if err := out.flush(); err != nil {
		return Result{}, false, err
	}
	if beforeReplace != nil {
		beforeReplace()
	}
	for _, src := range []*source{arch, log} {
		if err := src.unchanged(); err != nil {
			return Result{}, false, err
		}
	}
	if err := ctx.Err(); err != nil {
		return Result{}, false, err
	}
	if err := out.install(); err != nil {
		return Result{}, false, err
	}
	return r.res, true, nil
}

// keeps reports whether a should be the one kept of two duplicates: a
// canonical entry, else the newer, else the smaller key (stable choice).
func keeps(a, b knowledge.Entry) bool {
	ca, cb := a.Status == knowledge.StatusCanonical, b.Status == knowledge.StatusCanonical
	if ca != cb {
		return ca
	}
	if a.TS != b.TS {
		return a.TS > b.TS
	}
	return a.Key < b.Key
}

// fillerWords are dropped when comparing contents: rewording them does not
// change what an entry says.
var fillerWords = map[string]bool{"a": true, "an": true, "the": true, "that": true, "this": true, "just": true,
	"really": true, "very": true, "actually": true, "basically": true, "simply": true, "please": true, "note": true,
	"so": true, "also": true, "then": true}

// CanonicalText is the form under which two contents say the same thing:
// lower case, punctuation as space, filler words dropped, white space
// folded.
func CanonicalText(s string) string {
	words := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
	out := words[:0]
	for _, w := range words {
		if !fillerWords[w] {
			out = append(out, w)
		}
	}
	return strings.Join(out, " ")
}

// canonHash is the hash of CanonicalText(s) under seed, computed without
// building the text: equal canonical texts have equal hashes.
func canonHash(seed maphash.Seed, s string) uint64 {
	var h maphash.Hash
	h.SetSeed(seed)
	var wb [64]byte
	w := wb[:0]
	words := 0
	end := func() {
		if len(w) > 0 && !fillerWords[string(w)] {
			if words > 0 {
				h.WriteByte(' ')
			}
			h.Write(w)
			words++
		}
		w = w[:0]
	}
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			i++
			switch {
			case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
				w = append(w, c)
			case 'A' <= c && c <= 'Z':
				w = append(w, c+'a'-'A')
			default:
				end()
			}
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		if r = unicode.ToLower(r); unicode.IsLetter(r) || unicode.IsDigit(r) {
			w = utf8.AppendRune(w, r)
		} else {
			end()
		}
	}
	end()
	return h.Sum64()
}

func keyAction(action string, e knowledge.Entry, effect, reason string) audit.Action {
	return audit.Action{Action: action, Key: e.Key, TS: e.TS, Type: e.Type, Effect: effect, Reason: reason}
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func shortHash(h string) string {
	if len(h) > 10 {
		return h[:10]
	}
	return h
}

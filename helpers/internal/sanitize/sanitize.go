// Package sanitize builds this machine's working set of the shared log:
// the latest line of every key, without retracted, superseded, noisy,
// duplicate and stale entries, with doubtful ones flagged, and an audit
// that explains every one of those decisions. Its artifacts live in
// .cairn/cache; it never writes the shared log.
package sanitize

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"
	"unicode"

	"github.com/cairn-dev/cairn/helpers/internal/audit"
	"github.com/cairn-dev/cairn/helpers/internal/fsx"
	"github.com/cairn-dev/cairn/helpers/internal/gitx"
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
}

// Result is what a run found: the working set in log order, the audit,
// and its summary (also the audit's last line).
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

type member struct {
	rec     knowledge.Record
	anchors Anchors
	out     bool
	flags   []string
	status  string
}

// Build computes the working set and the audit from the log and archive
// data, checking anchors against the repository at opts.Root.
func Build(logData, archiveData []byte, opts Options) Result {
	now := time.Now
	if opts.Now != nil {
		now = opts.Now
	}
	start := now()
	// The symbol budget runs on the real clock, which symbolSearch reads,
	// whatever clock opts.Now gives.
	wallStart := time.Now()
	if opts.SymbolBudget <= 0 {
		opts.SymbolBudget = DefaultSymbolBudget
	}
	var res Result
	res.Summary.LogSHA256 = knowledge.Sum(logData)
	res.Summary.SymbolsComplete = true

	var recs []knowledge.Record
	for _, src := range []struct {
		name string
		data []byte
	}{{"archive", archiveData}, {"log", logData}} {
		rep := knowledge.ParseEach(src.data, func(r knowledge.Record) {
			r.Archived = src.name == "archive"
			recs = append(recs, r)
		}, func(p knowledge.Problem) {
			act := audit.Action{Action: audit.ActSkipInvalid, Source: src.name, Line: p.Line, Reason: p.Kind}
			if p.Repaired() {
				act.Action = audit.ActRepair
				res.Summary.Repaired++
			} else {
				res.Summary.Invalid++
			}
			res.Audit = append(res.Audit, act)
		})
		res.Summary.Lines += rep.Lines
	}
	latest := knowledge.Latest(recs)
	res.Summary.Entries = len(latest)
	res.Latest = make(map[string]knowledge.Entry, len(latest))
	for _, r := range latest {
		res.Latest[r.Entry.Key] = r.Entry
	}

	// Status: what curation already decided.
	var live []*member
	for _, r := range latest {
		m := &member{rec: r}
		e := r.Entry
		switch {
		case r.Archived:
			res.Summary.Archived++
			continue
		case e.Status == knowledge.StatusRetracted:
			res.Summary.Retracted++
			res.Audit = append(res.Audit, keyAction(audit.ActRetracted, e, audit.EffectRemoved, "retracted: "+orDash(e.ReviewReason)))
			continue
		case e.Status == knowledge.StatusSuperseded:
			res.Summary.Superseded++
			act := keyAction(audit.ActSuperseded, e, audit.EffectRemoved, "superseded by "+orDash(e.SupersededBy))
			act.KeptKey = e.SupersededBy
			res.Audit = append(res.Audit, act)
			continue
		case e.Status != "":
			act := keyAction(audit.ActStatus, e, "", orDash(e.ReviewReason))
			act.Result = e.Status
			res.Audit = append(res.Audit, act)
		}
		live = append(live, m)
	}

	// Noise.
	kept := live[:0]
	for _, m := range live {
		if why := Noise(m.rec.Entry.Content); why != "" && m.rec.Entry.Status != knowledge.StatusCanonical {
			res.Summary.Noise++
			res.Audit = append(res.Audit, keyAction(audit.ActNoise, m.rec.Entry, audit.EffectRemoved, why))
			continue
		}
		kept = append(kept, m)
	}
	live = kept

	// Duplicates: same type and the same words up to case, white space,
	// punctuation and filler; the newest stays (a canonical one first).
	clusters := map[string][]*member{}
	var order []string
	for _, m := range live {
		k := m.rec.Entry.Type + "|" + CanonicalText(m.rec.Entry.Content)
		if _, ok := clusters[k]; !ok {
			order = append(order, k)
		}
		clusters[k] = append(clusters[k], m)
	}
	for _, k := range order {
		c := clusters[k]
		if len(c) < 2 {
			continue
		}
		sort.SliceStable(c, func(a, b int) bool { return keeps(c[a].rec.Entry, c[b].rec.Entry) })
		keep := c[0].rec.Entry
		cluster := []string{keep.Key}
		for _, m := range c[1:] {
			cluster = append(cluster, m.rec.Entry.Key)
		}
		for _, m := range c[1:] {
			e := m.rec.Entry
			m.out = true
			res.Summary.Duplicates++
			why := "same content as " + keep.Key
			if knowledge.NormalizeContent(e.Content) != knowledge.NormalizeContent(keep.Content) {
				why = "same content as " + keep.Key + " up to case, punctuation or filler words"
			}
			act := keyAction(audit.ActDuplicate, e, audit.EffectRemoved, why)
			act.KeptKey = keep.Key
			act.Keys = cluster
			res.Audit = append(res.Audit, act)
		}
	}

	// Anchors.
	res.checkAnchors(live, opts, wallStart)

	for _, m := range live {
		if m.out {
			continue
		}
		status := LocalActive
		if m.status != "" {
			status = m.status
		}
		res.Active = append(res.Active, ActiveEntry{Entry: m.rec.Entry, JSON: m.rec.JSON, Status: status, Reasons: m.flags})
	}
	res.Summary.Active = len(res.Active)
	res.Summary.ElapsedMS = now().Sub(start).Milliseconds()
	res.Summary.TS = now().Unix()
	return res
}

// checkAnchors checks the anchored entries of live against the repository.
func (res *Result) checkAnchors(live []*member, opts Options, start time.Time) {
	var view *repoView
	var repo *gitx.Repo
	if opts.Root == "" {
		return
	}
	if r, err := gitx.Open(opts.Root); err == nil {
		if tracked, err := r.Tracked(); err == nil {
			m := make(map[string]string, len(tracked))
			for _, t := range tracked {
				m[t.Path] = t.Hash
			}
			view = newRepoView(opts.Root, m, true)
			repo = r
		}
	}
	if view == nil {
		view = newRepoView(opts.Root, map[string]string{}, false)
	}
	res.Summary.TrackedFiles = len(view.tracked)

	var symbols []string
	for _, m := range live {
		if m.out {
			continue
		}
		m.anchors = FindAnchors(m.rec.Entry)
		if view.git {
			symbols = append(symbols, m.anchors.Symbols...)
		}
	}
	var found map[string]bool
	if view.git && len(symbols) > 0 {
		files := make([]string, 0, len(view.tracked))
		for p := range view.tracked {
			files = append(files, p)
		}
		found, res.Summary.SymbolsComplete = symbolSearch(opts.Root, files, symbols, start.Add(opts.SymbolBudget))
	}
	// Resolve every entry's files once, and group the present ones by the
	// commit the entry was captured at, to read each commit's tree once.
	type resolved struct{ present, missing []string }
	resolvedOf := make(map[*member]resolved, len(live))
	byCommit := map[string][]string{}
	for _, m := range live {
		if m.out || m.anchors.Empty() {
			continue
		}
		var r resolved
		for _, f := range m.anchors.Files {
			if p, ok := view.resolve(f); ok {
				r.present = append(r.present, p)
			} else {
				r.missing = append(r.missing, f)
			}
		}
		for _, n := range m.anchors.Names {
			if p, ok := view.resolve(n); ok {
				r.present = append(r.present, p)
			}
		}
		resolvedOf[m] = r
		if c := m.rec.Entry.Commit; repo != nil && gitx.IsObjectID(c) && len(r.present) > 0 {
			byCommit[c] = append(byCommit[c], r.present...)
		}
	}
	const maxCommits = 500
	commits := map[string]map[string]string{} // commit -> path -> hash there
	var order []string
	for c := range byCommit {
		order = append(order, c)
	}
	sort.Strings(order)
	for _, c := range order[:min(len(order), maxCommits)] {
		commits[c], _ = repo.HashesAt(c, byCommit[c]) // an unknown commit: nothing to compare
	}
	for _, m := range live {
		a := m.anchors
		if m.out || a.Empty() {
			continue
		}
		e := m.rec.Entry
		r := resolvedOf[m]
		act := keyAction(audit.ActAnchor, e, "", "")
		act.Files, act.Symbols = append(append([]string{}, a.Files...), a.Names...), a.Symbols
		act.MissingFiles = r.missing
		if view.git && res.Summary.SymbolsComplete {
			for _, s := range a.Symbols {
				if !found[s] {
					act.MissingSymbols = append(act.MissingSymbols, s)
				}
			}
		}
		// Changed since the commit the entry was captured at.
		for _, p := range r.present {
			if h, ok := commits[e.Commit][p]; ok && h != view.tracked[p] {
				act.ChangedFiles = append(act.ChangedFiles, p)
			}
		}
		switch {
		case len(a.Files) > 0 && len(act.MissingFiles) == len(a.Files):
			act.Result, act.Effect = audit.AnchorStale, audit.EffectRemoved
			act.Reason = "stale: every file it names is gone (" + strings.Join(act.MissingFiles, ", ") + ")"
			m.out = true
			res.Summary.Stale++
		case len(act.MissingFiles) > 0 || len(act.MissingSymbols) > 0:
			act.Result, act.Effect = audit.AnchorReview, audit.EffectFlagged
			var gone []string
			gone = append(gone, act.MissingFiles...)
			for _, s := range act.MissingSymbols {
				gone = append(gone, s+" (symbol)")
			}
			act.Reason = "needs review: not found in the repository: " + strings.Join(gone, ", ")
			m.status = LocalNeedsReview
			m.flags = append(m.flags, act.Reason)
			res.Summary.Review++
		case len(act.ChangedFiles) > 0:
			act.Result, act.Effect = audit.AnchorOutdated, audit.EffectFlagged
			act.Reason = "possibly outdated: " + strings.Join(act.ChangedFiles, ", ") + " changed since " + shortHash(e.Commit)
			m.status = LocalOutdated
			m.flags = append(m.flags, act.Reason)
			res.Summary.Outdated++
		default:
			act.Result = audit.AnchorOK
			act.Reason = "no named file or symbol is missing"
		}
		res.Audit = append(res.Audit, act)
	}
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

// Encode renders the working set (one JSON line per entry: its log line
// with local_status and local_reasons added) and the audit (one JSON line
// per action, the summary last).
func (res *Result) Encode() (active, auditLog []byte) {
	var a bytes.Buffer
	for _, e := range res.Active {
		obj := bytes.TrimSpace(e.JSON)
		obj = bytes.TrimSuffix(obj, []byte("}"))
		a.Write(obj)
		st, _ := json.Marshal(e.Status)
		a.WriteString(`,"local_status":`)
		a.Write(st)
		if len(e.Reasons) > 0 {
			rs, _ := json.Marshal(e.Reasons)
			a.WriteString(`,"local_reasons":`)
			a.Write(rs)
		}
		a.WriteString("}\n")
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	for _, act := range res.Audit {
		_ = enc.Encode(act)
	}
	s := res.Summary
	_ = enc.Encode(audit.Action{Action: audit.ActSummary, Summary: &s})
	return a.Bytes(), b.Bytes()
}

// Run sanitizes the store: it reads the log and archive, builds the
// working set and writes it and the audit into the cache, under the
// sanitize lock. With wait false, a run already in progress makes it
// return at once with ran false.
func Run(s *knowledge.Store, opts Options, wait bool) (res Result, ran bool, err error) {
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
	return RunLocked(s, opts)
}

// RunLocked is Run for a caller that holds the sanitize lock.
func RunLocked(s *knowledge.Store, opts Options) (Result, bool, error) {
	logData, err := s.ReadLog()
	if err != nil {
		return Result{}, false, err
	}
	archData, err := s.ReadArchive()
	if err != nil {
		return Result{}, false, err
	}
	res := Build(logData, archData, opts)
	active, auditLog := res.Encode()
	if err := s.Root().ReplaceFile(ActiveFile, active, 0o644); err != nil {
		return res, false, fmt.Errorf("write working set: %w", err)
	}
	if err := s.Root().ReplaceFile(audit.File, auditLog, 0o644); err != nil {
		return res, false, fmt.Errorf("write audit: %w", err)
	}
	return res, true, nil
}

// Package curate turns sanitize's findings into reviewed changes of the
// shared log: proposals of exact lines to add (canonical entries for
// duplicate clusters, supersessions, needs_review for stale entries),
// their file format, and retractions; what a person sees of one entry
// and how they correct it (show, rm, edit); and resolve, the repair of a
// merge's conflict markers, staged with git add. A change of a committed
// entry is always a new line with the same key and a later ts; only rm and
// edit of an entry no commit holds yet take its lines out of the log.
package curate

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/helpers/internal/audit"
	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
	"github.com/cairn-dev/cairn/helpers/internal/sanitize"
)

// FormatVersion is the version of the proposal file's header.
const FormatVersion = 1

// Proposal is a reviewed change of the log: the lines to add, made from
// the log whose sha256 it records.
type Proposal struct {
	LogSHA256 string
	Created   int64
	Lines     []knowledge.Entry
}

// header is the first line of a proposal file.
type header struct {
	Curation  int    `json:"cairn_curation"`
	LogSHA256 string `json:"log_sha256"`
	Created   int64  `json:"created"`
	Lines     int    `json:"lines"`
	Apply     string `json:"apply"`
}

// Propose builds the lines that curate a sanitize result: for each cluster
// of duplicates, a canonical line for the kept entry listing the others in
// merged_from, and a superseded line for each other pointing at it; for
// each stale entry, a needs_review line. Lines that would say what the log
// already says are left out, so applying a proposal and proposing again
// gives nothing.
func Propose(res sanitize.Result, now time.Time) Proposal {
	p := Proposal{LogSHA256: res.Summary.LogSHA256, Created: now.Unix()}
	clusters := map[string][]string{}
	var kept []string
	for _, a := range res.Audit {
		switch a.Action {
		case audit.ActDuplicate:
			if _, ok := clusters[a.KeptKey]; !ok {
				kept = append(kept, a.KeptKey)
			}
			clusters[a.KeptKey] = append(clusters[a.KeptKey], a.Key)
		case audit.ActAnchor:
			e, ok := res.Latest[a.Key]
			if !ok || a.Result != audit.AnchorStale || e.Status == knowledge.StatusNeedsReview {
				continue
			}
			p.Lines = append(p.Lines, change(e, knowledge.StatusNeedsReview, a.Reason, now))
		}
	}
	sort.Strings(kept)
	for _, k := range kept {
		e, ok := res.Latest[k]
		if !ok {
			continue
		}
		dups := clusters[k]
		sort.Strings(dups)
		if e.Status != knowledge.StatusCanonical || !covers(e.MergedFrom, dups) {
			c := change(e, knowledge.StatusCanonical, fmt.Sprintf("kept for %d duplicate(s): %s", len(dups), strings.Join(dups, ", ")), now)
			c.MergedFrom = union(e.MergedFrom, dups)
			p.Lines = append(p.Lines, c)
		}
		for _, d := range dups {
			de, ok := res.Latest[d]
			if !ok {
				continue
			}
			s := change(de, knowledge.StatusSuperseded, "duplicate of "+k, now)
			s.SupersededBy = k
			p.Lines = append(p.Lines, s)
		}
	}
	return p
}

// change is a new line of entry e giving it status with a reason, dated
// now but always after e's own line.
func change(e knowledge.Entry, status, reason string, now time.Time) knowledge.Entry {
	c := e
	c.Status = status
	c.ReviewReason = reason
	c.SupersededBy = ""
	c.Note = ""
	c.TS = max(now.Unix(), e.TS+1)
	return c
}

// Retraction is the line that retracts entry e for reason.
func Retraction(e knowledge.Entry, reason string, now time.Time) knowledge.Entry {
	return change(e, knowledge.StatusRetracted, reason, now)
}

func covers(have, want []string) bool {
	set := map[string]bool{}
	for _, k := range have {
		set[k] = true
	}
	for _, k := range want {
		if !set[k] {
			return false
		}
	}
	return true
}

func union(a, b []string) []string {
	set := map[string]bool{}
	var out []string
	for _, k := range append(append([]string{}, a...), b...) {
		if !set[k] {
			set[k] = true
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// Encode writes the proposal file: a header line, then one log line per
// change, exactly as it will be added.
func (p Proposal) Encode() ([]byte, error) {
	var b bytes.Buffer
	h, _ := json.Marshal(header{Curation: FormatVersion, LogSHA256: p.LogSHA256, Created: p.Created, Lines: len(p.Lines),
		Apply: "review the lines below (delete any you do not want), then run: cairn curate --apply FILE --yes"})
	b.Write(h)
	b.WriteByte('\n')
	for i := range p.Lines {
		line, err := knowledge.Marshal(&p.Lines[i])
		if err != nil {
			return nil, err
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	return b.Bytes(), nil
}

// ErrNotProposal means a file is not a proposal written by curate.
var ErrNotProposal = errors.New("not a cairn curation proposal")

// Decode reads a proposal file. Each change line must be an entry that
// gives a curation status with a reason.
func Decode(data []byte) (Proposal, error) {
	var p Proposal
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	n := 0
	seenHeader := false
	for sc.Scan() {
		n++
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		if !seenHeader {
			seenHeader = true
			var h header
			if json.Unmarshal(line, &h) != nil || h.Curation != FormatVersion || h.LogSHA256 == "" {
				return p, ErrNotProposal
			}
			p.LogSHA256, p.Created = h.LogSHA256, h.Created
			continue
		}
		e, err := knowledge.DecodeEntry(line)
		if err != nil {
			return p, fmt.Errorf("line %d: %w", n, err)
		}
		switch e.Status {
		case knowledge.StatusCanonical, knowledge.StatusSuperseded, knowledge.StatusNeedsReview, knowledge.StatusRetracted:
		default:
			return p, fmt.Errorf("line %d: status %q is not a curation status", n, e.Status)
		}
		if strings.TrimSpace(e.ReviewReason) == "" {
			return p, fmt.Errorf("line %d: %s has no review_reason", n, e.Key)
		}
		p.Lines = append(p.Lines, e)
	}
	if err := sc.Err(); err != nil {
		return p, err
	}
	if !seenHeader {
		return p, ErrNotProposal
	}
	return p, nil
}

// Describe is one readable line about a change.
func Describe(e knowledge.Entry) string {
	switch e.Status {
	case knowledge.StatusCanonical:
		return fmt.Sprintf("canonical     %s (merges %s)", e.Key, strings.Join(e.MergedFrom, ", "))
	case knowledge.StatusSuperseded:
		return fmt.Sprintf("superseded    %s -> %s", e.Key, e.SupersededBy)
	case knowledge.StatusNeedsReview:
		return fmt.Sprintf("needs_review  %s: %s", e.Key, e.ReviewReason)
	}
	return fmt.Sprintf("%-13s %s: %s", e.Status, e.Key, e.ReviewReason)
}

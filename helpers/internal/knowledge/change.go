package knowledge

import (
	"bytes"
	"sort"
)

// Kinds of [Change], as a reviewer reads a change of the log.
const (
	ChangeAdded      = "added"      // a new entry
	ChangeRetracted  = "retracted"  // an entry retracted (Reason says why)
	ChangeSuperseded = "superseded" // an entry replaced by another (Old -> New)
	ChangeStatus     = "status"     // a curation status changed (canonical, needs_review, back to active)
	ChangeEdited     = "edited"     // the entry's latest line changed otherwise
	ChangeArchived   = "archived"   // moved from the log to the archive by a rotation: not removed
	ChangeRestored   = "restored"   // moved from the archive back to the log
	ChangeRemoved    = "removed"    // every line of the key is gone from log and archive
)

// Change is one change of the knowledge between two states of the log and
// its archive.
type Change struct {
	Kind string `json:"kind"`
	// Entry is the entry's latest line after the change (before it, for
	// ChangeRemoved); for ChangeSuperseded, the entry replaced.
	Entry Entry `json:"entry"`
	// New is the entry that replaces Entry (ChangeSuperseded), when the
	// after state holds it.
	New *Entry `json:"new,omitempty"`
	// FromStatus and ToStatus are the statuses before and after
	// (ChangeStatus; "" is active).
	FromStatus string `json:"from_status,omitempty"`
	ToStatus   string `json:"to_status,omitempty"`
	// Reason is a retraction's or a review's reason.
	Reason string `json:"reason,omitempty"`
}

// keyState is what one side holds of a key: its latest line, and whether
// the log and the archive have lines of it.
type keyState struct {
	latest       Record
	inLog, inArc bool
}

func states(recs []Record) map[string]*keyState {
	m := map[string]*keyState{}
	for _, r := range recs {
		s := m[r.Entry.Key]
		if s == nil {
			s = &keyState{latest: r}
			m[r.Entry.Key] = s
		} else if r.Version().Newer(s.latest.Version()) {
			s.latest = r
		}
		if r.Archived {
			s.inArc = true
		} else {
			s.inLog = true
		}
	}
	return m
}

// Compare lists the changes from before to after, each the records of a
// log and its archive (Record.Archived set for the archive's), as a
// reviewer reads them: added, retracted, superseded (the old entry with
// the new), status changes, edits; a rotation's moves into the archive as
// archived, never as removals. Changes come in a fixed order: by kind as
// listed above, then by key.
func Compare(before, after []Record) []Change {
	b, a := states(before), states(after)
	var out []Change
	replaces := map[string]bool{} // new keys shown with the entry they supersede
	for key, s := range a {
		e := s.latest.Entry
		old, had := b[key]
		switch {
		case had && bytes.Equal(old.latest.JSON, s.latest.JSON):
			switch {
			case old.inLog && !s.inLog && s.inArc:
				out = append(out, Change{Kind: ChangeArchived, Entry: e})
			case !old.inLog && s.inLog:
				out = append(out, Change{Kind: ChangeRestored, Entry: e})
			}
		case e.Status == StatusRetracted && (!had || old.latest.Entry.Status != StatusRetracted):
			out = append(out, Change{Kind: ChangeRetracted, Entry: e, Reason: e.ReviewReason})
		case e.Status == StatusSuperseded && (!had || old.latest.Entry.Status != StatusSuperseded):
			c := Change{Kind: ChangeSuperseded, Entry: e}
			if n, ok := a[e.SupersededBy]; ok && e.SupersededBy != "" {
				ne := n.latest.Entry
				c.New = &ne
				if _, existed := b[e.SupersededBy]; !existed {
					replaces[e.SupersededBy] = true
				}
			}
			out = append(out, c)
		case !had:
			out = append(out, Change{Kind: ChangeAdded, Entry: e})
		case old.latest.Entry.Status != e.Status:
			out = append(out, Change{Kind: ChangeStatus, Entry: e, FromStatus: old.latest.Entry.Status, ToStatus: e.Status, Reason: e.ReviewReason})
		default:
			out = append(out, Change{Kind: ChangeEdited, Entry: e})
		}
	}
	for key, s := range b {
		if _, ok := a[key]; !ok {
			out = append(out, Change{Kind: ChangeRemoved, Entry: s.latest.Entry})
		}
	}
	// A new entry that supersedes an old one is shown with it, once.
	kept := out[:0]
	for _, c := range out {
		if c.Kind == ChangeAdded && replaces[c.Entry.Key] {
			continue
		}
		kept = append(kept, c)
	}
	out = kept
	order := map[string]int{}
	for i, k := range []string{ChangeAdded, ChangeRetracted, ChangeSuperseded, ChangeStatus, ChangeEdited, ChangeArchived, ChangeRestored, ChangeRemoved} {
		order[k] = i
	}
	sort.Slice(out, func(i, j int) bool {
		if order[out[i].Kind] != order[out[j].Kind] {
			return order[out[i].Kind] < order[out[j].Kind]
		}
		return out[i].Entry.Key < out[j].Entry.Key
	})
	return out
}

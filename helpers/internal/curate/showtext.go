package curate

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/helpers/internal/audit"
	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
	"github.com/cairn-dev/cairn/helpers/internal/when"
)

// WriteShown writes what Show found, for people.
func WriteShown(w io.Writer, sh Shown) {
	e := sh.Entry
	field := func(name, value string) {
		if value != "" {
			fmt.Fprintf(w, "%-10s %s\n", name+":", value)
		}
	}
	fmt.Fprintln(w, e.Key)
	field("type", e.Type)
	field("content", e.Content)
	field("tags", strings.Join(e.Tags, ", "))
	field("files", strings.Join(e.Files, ", "))
	field("blobs", strings.Join(e.Blobs, ", "))
	field("bead", e.Bead)
	field("author", e.Author)
	field("branch", e.Branch)
	field("commit", e.Commit)
	field("session", e.Session)
	field("source", e.Source)
	field("agent", e.Agent)
	field("recorded", secondsStamp(e.TS))
	field("status", status(e))
	field("redacted", strings.Join(e.Redacted, ", "))
	if d := e.Detail; d != nil {
		field("context", d.Context)
		field("alternatives", strings.Join(d.Alternatives, "; "))
		field("rationale", d.Rationale)
		field("root cause", d.RootCause)
		field("resolution", d.Resolution)
		field("prevention", d.Prevention)
	}
	if sh.Archived {
		field("archived", "yes: its latest line is in "+knowledge.DirName+"/"+knowledge.ArchiveName)
	}
	field("committed", committed(sh))
	fmt.Fprintf(w, "history (%d line(s), oldest first):\n", len(sh.History))
	for _, l := range sh.History {
		where := "working tree"
		switch {
		case l.Committed:
			where = "committed"
		case sh.Commit == CommitNoGit:
			where = "log"
		}
		if l.Archived {
			where += ", archive"
		}
		by := l.Author
		if by == "" {
			by = "unknown"
		}
		if l.Source != "" {
			by += " (" + l.Source + ")"
		}
		fmt.Fprintf(w, "  %s  %s, by %s [%s]\n", secondsStamp(l.TS), event(l.Entry), by, where)
	}
	fmt.Fprintln(w, "this machine:")
	switch {
	case !sh.Audited:
		fmt.Fprintln(w, "  working set: not judged yet (run cairn sanitize)")
	case len(sh.Verdicts) == 0 && !sh.AuditCurrent:
		fmt.Fprintln(w, "  working set: nothing to remark in the last sanitize, which read an older log (run cairn sanitize)")
	case len(sh.Verdicts) == 0:
		fmt.Fprintln(w, "  working set: in it, nothing to remark")
	default:
		said := map[string]bool{}
		for _, v := range sh.Verdicts {
			if s := verdict(e.Key, v); !said[s] {
				said[s] = true
				fmt.Fprintln(w, "  working set: "+s)
			}
		}
		if !sh.AuditCurrent {
			fmt.Fprintln(w, "  (from a sanitize of an older log; run cairn sanitize for today's)")
		}
	}
	if sh.LastShown == nil {
		fmt.Fprintln(w, "  last shown to an agent: not in the last week")
	} else {
		fmt.Fprintf(w, "  last shown to an agent: %s (%d session(s) in the last week)\n", when.Person(*sh.LastShown), sh.Sessions)
	}
}

// secondsStamp is an entry's ts (Unix seconds) as people read it (see
// package when).
func secondsStamp(ts int64) string { return when.Person(time.Unix(ts, 0)) }

// status says whether an entry is in recall, and if not why.
func status(e knowledge.Entry) string {
	switch e.Status {
	case "":
		return "active"
	case knowledge.StatusSuperseded:
		if e.SupersededBy != "" {
			return "superseded by " + e.SupersededBy
		}
	case knowledge.StatusRetracted:
		return "retracted: " + e.ReviewReason
	case knowledge.StatusNeedsReview:
		return "needs review: " + e.ReviewReason
	}
	return e.Status
}

// committed says where the entry's lines are, for people.
func committed(sh Shown) string {
	switch sh.Commit {
	case CommitAll:
		return "yes: HEAD's log holds every line of it"
	case CommitNone:
		return "no: only the working tree has it (cairn rm or cairn edit change it in place)"
	case CommitPartly:
		return "partly: HEAD holds it; the lines marked [working tree] are not committed yet"
	case CommitNoGit:
		return "not a git work tree"
	case CommitNoHeadYet:
		return "no: the repository has no commit yet"
	}
	return "unknown: " + sh.CommitOf
}

// event says what one line of an entry's history did.
func event(e knowledge.Entry) string {
	switch e.Status {
	case knowledge.StatusSuperseded:
		return "superseded by " + e.SupersededBy + reason(e)
	case knowledge.StatusRetracted:
		return "retracted" + reason(e)
	case knowledge.StatusCanonical:
		s := "canonical"
		if len(e.MergedFrom) > 0 {
			s += " (merges " + strings.Join(e.MergedFrom, ", ") + ")"
		}
		return s + reason(e)
	case knowledge.StatusNeedsReview:
		return "needs review" + reason(e)
	case "":
		if e.Supersedes != "" {
			return "recorded, superseding " + e.Supersedes
		}
		return "recorded"
	}
	return "status " + e.Status + reason(e)
}

func reason(e knowledge.Entry) string {
	if e.ReviewReason == "" {
		return ""
	}
	return ": " + e.ReviewReason
}

// verdict says what one audit action of this machine said of the entry.
func verdict(key string, v Verdict) string {
	var s string
	switch v.Action {
	case audit.ActDuplicate:
		if v.Kept == key {
			others := make([]string, 0, len(v.Keys))
			for _, k := range v.Keys {
				if k != key {
					others = append(others, k)
				}
			}
			return "kept over its duplicate(s) " + strings.Join(others, ", ")
		}
		s = "duplicate of " + v.Kept
	case audit.ActNoise:
		s = "noise"
	case audit.ActAnchor:
		s = "anchor " + v.Result
	case audit.ActRetracted:
		s = "retracted"
	case audit.ActSuperseded:
		s = "superseded"
	case audit.ActStatus:
		s = "status " + v.Result
	default:
		s = v.Action
	}
	if v.Reason != "" {
		s += ": " + v.Reason
	}
	switch v.Effect {
	case audit.EffectRemoved:
		s = "removed, " + s
	case audit.EffectFlagged:
		s = "flagged, " + s
	}
	return s
}

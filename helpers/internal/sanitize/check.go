package sanitize

import (
	"sort"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/helpers/internal/audit"
	"github.com/cairn-dev/cairn/helpers/internal/gitx"
)

// checkAnchors checks the anchored entries of the live ones against the
// repository at opts.Root: an entry whose every named file is gone is
// stale and leaves the working set; one naming a missing file or symbol
// needs review; one whose files changed since its commit is possibly
// outdated.
func (r *run) checkAnchors(start time.Time) {
	opts := r.opts
	if opts.Root == "" {
		return
	}
	res := &r.res
	var view *repoView
	var repo *gitx.Repo
	if g, err := gitx.Open(opts.Root); err == nil {
		if tracked, err := g.Tracked(); err == nil {
			m := make(map[string]string, len(tracked))
			for _, t := range tracked {
				m[t.Path] = t.Hash
			}
			view = newRepoView(opts.Root, m, true)
			repo = g
		}
	}
	if view == nil {
		view = newRepoView(opts.Root, map[string]string{}, false)
	}
	res.Summary.TrackedFiles = len(view.tracked)

	var list []int32
	for _, i := range r.live {
		if st := &r.states[i]; st.flags&fOut == 0 && st.more != nil && !st.more.anchors.Empty() {
			list = append(list, i)
		}
	}
	r.sortByKey(list) // the order of the audit
	anchored := make([]*keyState, len(list))
	var symbols []string
	for j, i := range list {
		st := &r.states[i]
		anchored[j] = st
		if view.git {
			symbols = append(symbols, st.more.anchors.Symbols...)
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
	resolvedOf := make([]resolved, len(anchored))
	byCommit := map[string][]string{}
	for j, st := range anchored {
		m := st.more
		var rv resolved
		for _, f := range m.anchors.Files {
			if p, ok := view.resolve(f); ok {
				rv.present = append(rv.present, p)
			} else {
				rv.missing = append(rv.missing, f)
			}
		}
		for _, n := range m.anchors.Names {
			if p, ok := view.resolve(n); ok {
				rv.present = append(rv.present, p)
			}
		}
		resolvedOf[j] = rv
		if c := m.commit; repo != nil && gitx.IsObjectID(c) && len(rv.present) > 0 {
			byCommit[c] = append(byCommit[c], rv.present...)
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
	for j, st := range anchored {
		m := st.more
		a := m.anchors
		rv := resolvedOf[j]
		act := r.keyAction(audit.ActAnchor, st, "", "")
		act.Files, act.Symbols = append(append([]string{}, a.Files...), a.Names...), a.Symbols
		act.MissingFiles = rv.missing
		if view.git && res.Summary.SymbolsComplete {
			for _, s := range a.Symbols {
				if !found[s] {
					act.MissingSymbols = append(act.MissingSymbols, s)
				}
			}
		}
		// Changed since the commit the entry was captured at.
		for _, p := range rv.present {
			if h, ok := commits[m.commit][p]; ok && h != view.tracked[p] {
				act.ChangedFiles = append(act.ChangedFiles, p)
			}
		}
		switch {
		case len(a.Files) > 0 && len(act.MissingFiles) == len(a.Files):
			act.Result, act.Effect = audit.AnchorStale, audit.EffectRemoved
			act.Reason = "stale: every file it names is gone (" + strings.Join(act.MissingFiles, ", ") + ")"
			st.flags |= fOut
			res.Summary.Stale++
		case len(act.MissingFiles) > 0 || len(act.MissingSymbols) > 0:
			act.Result, act.Effect = audit.AnchorReview, audit.EffectFlagged
			var gone []string
			gone = append(gone, act.MissingFiles...)
			for _, s := range act.MissingSymbols {
				gone = append(gone, s+" (symbol)")
			}
			act.Reason = "needs review: not found in the repository: " + strings.Join(gone, ", ")
			m.local = LocalNeedsReview
			m.reasons = append(m.reasons, act.Reason)
			res.Summary.Review++
		case len(act.ChangedFiles) > 0:
			act.Result, act.Effect = audit.AnchorOutdated, audit.EffectFlagged
			act.Reason = "possibly outdated: " + strings.Join(act.ChangedFiles, ", ") + " changed since " + shortHash(m.commit)
			m.local = LocalOutdated
			m.reasons = append(m.reasons, act.Reason)
			res.Summary.Outdated++
		default:
			act.Result = audit.AnchorOK
			act.Reason = "no named file or symbol is missing"
		}
		r.emit(act)
	}
}

package sanitize

import (
	"sort"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/helpers/internal/audit"
	"github.com/cairn-dev/cairn/helpers/internal/gitx"
	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
)

// checkAnchors checks the anchored entries of the live ones against the
// repository at opts.Root: an entry whose every named file or directory is
// gone is stale and leaves the working set; one naming a missing file or
// symbol needs review; one whose files changed since it was written (its
// Blobs; without them, since its commit) is possibly outdated (see
// [judgeAnchors]).
func (r *run) checkAnchors(start time.Time) {
	opts := r.opts
	if opts.Root == "" {
		return
	}
	view, repo := openRepoView(opts.Root)
	r.res.Summary.TrackedFiles = len(view.tracked)
	anchored := r.anchoredStates()
	var found map[string]bool
	found, r.res.Summary.SymbolsComplete = view.findSymbols(anchored, start.Add(opts.SymbolBudget))
	resolved := view.resolveFiles(anchored)
	commits := commitHashes(repo, anchored, resolved)
	for j, st := range anchored {
		r.judge(st, view, resolved[j], commits[st.more.commit], found)
	}
}

// openRepoView reads what the anchor checks know of the repository at
// root: its tracked files when it is a git repository (with the repository
// open), else only the files on disk.
func openRepoView(root string) (*repoView, *gitx.Repo) {
	if g, err := gitx.Open(root); err == nil {
		if tracked, err := g.Tracked(); err == nil {
			m := make(map[string]string, len(tracked))
			for _, t := range tracked {
				m[t.Path] = t.Hash
			}
			return newRepoView(root, m, true), g
		}
	}
	return newRepoView(root, map[string]string{}, false), nil
}

// anchoredStates are the live entries still in the working set that name
// something to check, in key order (the order of the audit).
func (r *run) anchoredStates() []*keyState {
	var list []int32
	for _, i := range r.live {
		if st := &r.states[i]; st.flags&fOut == 0 && st.more != nil && !st.more.anchors.Empty() {
			list = append(list, i)
		}
	}
	r.sortByKey(list)
	anchored := make([]*keyState, len(list))
	for j, i := range list {
		anchored[j] = &r.states[i]
	}
	return anchored
}

// findSymbols searches the tracked files for the symbols the anchored
// entries name, until the deadline (see symbolSearch). Outside git, or
// with no symbol, there is nothing to search: found is nil, and no symbol
// is held against an entry.
func (v *repoView) findSymbols(anchored []*keyState, deadline time.Time) (found map[string]bool, complete bool) {
	if !v.git {
		return nil, true
	}
	var symbols []string
	for _, st := range anchored {
		symbols = append(symbols, st.more.anchors.Symbols...)
	}
	if len(symbols) == 0 {
		return nil, true
	}
	files := make([]string, 0, len(v.tracked))
	for p := range v.tracked {
		files = append(files, p)
	}
	return symbolSearch(v.root, files, symbols, deadline)
}

// resolvedFiles are an entry's files as the repository has them: those
// found (its file anchors and the bare names found), and the file anchors
// not found.
type resolvedFiles struct{ present, missing []string }

// resolveFiles resolves every anchored entry's files once.
func (v *repoView) resolveFiles(anchored []*keyState) []resolvedFiles {
	out := make([]resolvedFiles, len(anchored))
	for j, st := range anchored {
		a := st.more.anchors
		for _, f := range a.Files {
			if p, ok := v.resolve(f); ok {
				out[j].present = append(out[j].present, p)
			} else {
				out[j].missing = append(out[j].missing, f)
			}
		}
		for _, n := range a.Names {
			if p, ok := v.resolve(n); ok {
				out[j].present = append(out[j].present, p)
			}
		}
	}
	return out
}

// maxCommits bounds how many commits' trees one run reads.
const maxCommits = 500

// commitHashes reads, for each commit an anchored entry was captured at,
// the content hash there of the present files of the entries of that
// commit: one read of each commit's tree, for at most maxCommits commits
// (in id order). An unknown commit has none.
func commitHashes(repo *gitx.Repo, anchored []*keyState, resolved []resolvedFiles) map[string]map[string]string {
	commits := map[string]map[string]string{} // commit -> path -> hash there
	if repo == nil {
		return commits
	}
	byCommit := map[string][]string{}
	for j, st := range anchored {
		if c := st.more.commit; gitx.IsObjectID(c) {
			for _, p := range resolved[j].present {
				if _, ok := knowledge.FindBlob(st.more.blobs, p); !ok {
					byCommit[c] = append(byCommit[c], p)
				}
			}
		}
	}
	order := make([]string, 0, len(byCommit))
	for c := range byCommit {
		order = append(order, c)
	}
	sort.Strings(order)
	for _, c := range order[:min(len(order), maxCommits)] {
		commits[c], _ = repo.HashesAt(c, byCommit[c]) // an unknown commit: nothing to compare
	}
	return commits
}

// judge records the anchor check of one entry: what it found missing or
// changed (then) since its commit, the verdict, and the verdict's effect
// on the entry and the summary.
func (r *run) judge(st *keyState, view *repoView, rv resolvedFiles, then map[string]string, found map[string]bool) {
	m := st.more
	a := m.anchors
	act := r.keyAction(audit.ActAnchor, st, "", "")
	act.Files, act.Symbols = append(append([]string{}, a.Files...), a.Names...), a.Symbols
	act.MissingFiles = rv.missing
	if found != nil && r.res.Summary.SymbolsComplete {
		for _, s := range a.Symbols {
			if !found[s] {
				act.MissingSymbols = append(act.MissingSymbols, s)
			}
		}
	}
	since := m.commit
	for _, p := range rv.present {
		now, file := view.tracked[p]
		if !file {
			continue // a directory: its files come and go
		}
		if b, ok := knowledge.FindBlob(m.blobs, p); ok {
			if !strings.HasPrefix(now, b) {
				act.ChangedFiles = append(act.ChangedFiles, p)
				since = ""
			}
		} else if h, ok := then[p]; ok && h != now {
			act.ChangedFiles = append(act.ChangedFiles, p)
		}
	}
	act.Result, act.Effect, act.Reason = judgeAnchors(len(a.Files), act.MissingFiles, act.MissingSymbols, act.ChangedFiles, since)
	switch act.Result {
	case audit.AnchorStale:
		st.flags |= fOut
		r.res.Summary.Stale++
	case audit.AnchorReview:
		m.local = LocalNeedsReview
		m.reasons = append(m.reasons, act.Reason)
		r.res.Summary.Review++
	case audit.AnchorOutdated:
		m.local = LocalOutdated
		m.reasons = append(m.reasons, act.Reason)
		r.res.Summary.Outdated++
	}
	r.emit(act)
}

// judgeAnchors is the rule of the anchor check for an entry with files
// file or directory anchors: stale (it leaves the working set) when every
// one of them is missing; needs review when an anchor or a symbol is
// missing; possibly outdated when a file changed since commit, or, with
// commit empty, since the entry was written; else ok.
func judgeAnchors(files int, missingFiles, missingSymbols, changed []string, commit string) (result, effect, reason string) {
	switch {
	case files > 0 && len(missingFiles) == files:
		return audit.AnchorStale, audit.EffectRemoved, "stale: every file it names is gone (" + strings.Join(missingFiles, ", ") + ")"
	case len(missingFiles) == 0 && len(missingSymbols) == 0 && len(changed) > 0 && commit == "":
		return audit.AnchorOutdated, audit.EffectFlagged, "possibly outdated: " + strings.Join(changed, ", ") + " changed since the note was written"
	case len(missingFiles) > 0 || len(missingSymbols) > 0:
		gone := append([]string{}, missingFiles...)
		for _, s := range missingSymbols {
			gone = append(gone, s+" (symbol)")
		}
		return audit.AnchorReview, audit.EffectFlagged, "needs review: not found in the repository: " + strings.Join(gone, ", ")
	case len(changed) > 0:
		return audit.AnchorOutdated, audit.EffectFlagged, "possibly outdated: " + strings.Join(changed, ", ") + " changed since " + shortHash(commit)
	}
	return audit.AnchorOK, "", "no named file or symbol is missing"
}

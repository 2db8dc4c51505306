package report

import (
	"hash/maphash"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/cairn-dev/cairn/helpers/internal/agent"
	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
	"github.com/cairn-dev/cairn/helpers/internal/relevance"
)

// UnusedAfter is how many sessions an entry must have been injected into,
// never used, to be named a curation candidate.
const UnusedAfter = 3

// mentionTerms is how many of an entry's distinctive words a reply must
// mention for the entry to count as used (all of them when it has fewer).
const mentionTerms = 3

// EntryUse is one injected entry: in how many sessions it was injected
// and in how many of those it was used.
type EntryUse struct {
	Key      string `json:"key"`
	Type     string `json:"type"`
	Injected int    `json:"injected"`
	Used     int    `json:"used"`
	// Review is the command that shows the entry, to keep, edit or
	// retract it.
	Review string `json:"review"`
}

// watched is an injected entry as the report watches for its use: its
// anchored files and its distinctive words.
type watched struct {
	e     knowledge.Entry
	terms []string
}

func newWatched(e knowledge.Entry) *watched {
	w := &watched{e: e}
	for _, t := range relevance.Terms(e.Content) {
		if len([]rune(t)) >= 4 {
			w.terms = append(w.terms, t)
		}
	}
	return w
}

// sessionWatch watches one session's transcript for the use of what was
// injected into it.
type sessionWatch struct {
	root    string
	since   map[string]time.Time // key -> first injected
	entries map[string]*watched
	used    map[string]bool
	words   map[string]map[string]bool // key -> its terms mentioned so far
}

func newSessionWatch(shown map[string]time.Time, entries map[string]*watched, root string) *sessionWatch {
	return &sessionWatch{root: root, since: shown, entries: entries, used: map[string]bool{}, words: map[string]map[string]bool{}}
}

// see judges one thing the transcript saw: a tool's touch of an entry's
// anchored file, or a reply's mention of its words, after the entry was
// injected.
func (w *sessionWatch) see(s agent.Seen) {
	var words map[string]bool
	for key, at := range w.since {
		en := w.entries[key]
		if en == nil || w.used[key] || !s.At.IsZero() && s.At.Before(at.Add(-time.Second)) {
			continue
		}
		switch s.Kind {
		case agent.SeenTouch, agent.SeenEdit:
			if w.touches(en.e.Files, s.Path) {
				w.used[key] = true
			}
		case agent.SeenReply:
			if len(en.terms) == 0 {
				continue
			}
			if words == nil {
				words = wordSet(s.Text)
			}
			m := w.words[key]
			if m == nil {
				m = map[string]bool{}
				w.words[key] = m
			}
			for _, t := range en.terms {
				if words[t] {
					m[t] = true
				}
			}
			if len(m) >= min(mentionTerms, len(en.terms)) {
				w.used[key] = true
			}
		}
	}
}

// touches reports whether path (absolute, or from the project's root) is
// one of files or under one of them.
func (w *sessionWatch) touches(files []string, path string) bool {
	if filepath.IsAbs(path) {
		rel, err := filepath.Rel(w.root, path)
		if err != nil || strings.HasPrefix(rel, "..") {
			return false
		}
		path = rel
	}
	path = filepath.ToSlash(filepath.Clean(path))
	for _, f := range files {
		f = strings.TrimSuffix(filepath.ToSlash(filepath.Clean(f)), "/")
		if path == f || strings.HasPrefix(path, f+"/") {
			return true
		}
	}
	return false
}

// done adds the session's injections and uses to u.
func (w *sessionWatch) done(u *uses) {
	u.mu.Lock()
	defer u.mu.Unlock()
	for key := range w.since {
		en := w.entries[key]
		if en == nil {
			continue
		}
		c := u.byKey[key]
		if c == nil {
			c = &EntryUse{Key: key, Type: en.e.Type, Review: "cairn show " + key}
			u.byKey[key] = c
		}
		c.Injected++
		if w.used[key] {
			c.Used++
		}
	}
}

// wordSet is text's lower-case words.
func wordSet(text string) map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		out[w] = true
	}
	return out
}

// uses counts each injected entry's sessions (sessions are read in
// parallel: mu guards byKey).
type uses struct {
	mu    sync.Mutex
	byKey map[string]*EntryUse
}

func newUses() *uses { return &uses{byKey: map[string]*EntryUse{}} }

// split returns the used entries, most used first, and the curation
// candidates, most injected first.
func (u *uses) split() (used, unused []EntryUse) {
	used, unused = []EntryUse{}, []EntryUse{}
	for _, c := range u.byKey {
		switch {
		case c.Used > 0:
			used = append(used, *c)
		case c.Injected >= UnusedAfter:
			unused = append(unused, *c)
		}
	}
	slices.SortFunc(used, func(a, b EntryUse) int {
		if a.Used != b.Used {
			return b.Used - a.Used
		}
		return strings.Compare(a.Key, b.Key)
	})
	slices.SortFunc(unused, func(a, b EntryUse) int {
		if a.Injected != b.Injected {
			return b.Injected - a.Injected
		}
		return strings.Compare(a.Key, b.Key)
	})
	return used, unused
}

// reverts counts the edits of one session that undo an earlier edit of
// the same file: an edit replacing B with A after one replaced A with B.
type reverts struct {
	seen     map[[3]uint64]bool
	seed     maphash.Seed // made with seen: no work in the package's init, which the hooks' fast path waits for
	reverted int
}

func (r *reverts) add(path, old, new string) {
	if old == new || old == "" && new == "" {
		return
	}
	if r.seen == nil {
		r.seen, r.seed = map[[3]uint64]bool{}, maphash.MakeSeed()
	}
	p := maphash.String(r.seed, path)
	o, n := maphash.String(r.seed, old), maphash.String(r.seed, new)
	if r.seen[[3]uint64{p, n, o}] {
		r.reverted++
	}
	r.seen[[3]uint64{p, o, n}] = true
}

// correctivePrefixes and correctivePhrases are the person's corrective
// prompts (docs/report.md lists them): a prompt that starts with one of
// the prefixes (as a word) or contains one of the phrases, in lower case.
var (
	correctivePrefixes = []string{"no", "nope", "wrong", "stop", "undo", "revert", "don't", "do not"}
	correctivePhrases  = []string{"that's wrong", "that is wrong", "that's not what", "that is not what", "not what i asked",
		"not what i meant", "you broke", "still failing", "still broken", "still doesn't work", "still does not work",
		"didn't work", "did not work", "doesn't work", "try again", "undo that", "revert that", "wrong file"}
)

// Corrective reports whether a prompt corrects the agent (see
// correctivePrefixes).
func Corrective(prompt string) bool {
	p := strings.ToLower(strings.TrimSpace(strings.ReplaceAll(prompt, "’", "'")))
	for _, pre := range correctivePrefixes {
		if rest, ok := strings.CutPrefix(p, pre); ok && (rest == "" || !unicode.IsLetter([]rune(rest)[0])) {
			return true
		}
	}
	for _, ph := range correctivePhrases {
		if strings.Contains(p, ph) {
			return true
		}
	}
	return false
}

package curate

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/helpers/internal/audit"
	"github.com/cairn-dev/cairn/helpers/internal/gitx"
	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
	"github.com/cairn-dev/cairn/helpers/internal/project"
	"github.com/cairn-dev/cairn/helpers/internal/recall"
)

// What a person sees of one entry and how they correct it: show, rm and
// edit. rm and edit change the log only where no commit holds the entry
// yet; a committed entry is corrected by a new line (a supersession or a
// retraction), as every other change of the shared log.

// ErrCommitted: the entry is in HEAD's log, so removing or rewriting its
// lines would rewrite what teammates already have.
var ErrCommitted = errors.New("is committed")

// Commit states of an entry.
const (
	CommitNone        = "uncommitted" // no line of the key is in HEAD
	CommitAll         = "committed"   // every line of the key is in HEAD
	CommitPartly      = "partly"      // some lines are in HEAD, some only in the working tree
	CommitNoGit       = "no-git"      // the project is not a git work tree
	CommitNoHeadYet   = "no-commit"   // the repository has no commit yet
	CommitUnavailable = "unknown"     // HEAD could not be read
)

// Line is one line of an entry's history.
type Line struct {
	knowledge.Entry
	Archived  bool `json:"archived,omitempty"`
	Committed bool `json:"committed"`
}

// Verdict is what this machine's last sanitize run said of the entry.
type Verdict struct {
	Action string   `json:"action"`
	Effect string   `json:"effect,omitempty"` // removed from the working set, or flagged
	Result string   `json:"result,omitempty"`
	Reason string   `json:"reason,omitempty"`
	Kept   string   `json:"kept_key,omitempty"` // of a duplicate: the entry kept
	Keys   []string `json:"keys,omitempty"`     // of a duplicate cluster
}

// Shown is everything cairn knows of one entry.
type Shown struct {
	Entry    knowledge.Entry `json:"entry"` // the latest line
	Archived bool            `json:"archived"`
	History  []Line          `json:"history"` // every line of the key, oldest first
	Commit   string          `json:"commit_state"`
	CommitOf string          `json:"commit_detail,omitempty"` // why the state is unknown
	Verdicts []Verdict       `json:"local"`
	// Audited is set when a sanitize ran on this machine; AuditCurrent
	// when the log it read is the one there now (else its verdicts may be
	// out of date).
	Audited      bool       `json:"local_audited"`
	AuditCurrent bool       `json:"local_current"`
	LastShown    *time.Time `json:"last_shown,omitempty"`
	Sessions     int        `json:"shown_sessions"`
}

// Show gathers what the log, the archive, HEAD and this machine's state
// say of the entry key. An unknown key is an error wrapping ErrNoEntry
// that names the nearest keys.
func Show(p *project.Project, key string) (Shown, error) {
	var sh Shown
	mine, err := p.Store.ReadKeys(map[string]bool{key: true}, true)
	if err != nil {
		return sh, err
	}
	if len(mine) == 0 {
		recs, _, err := p.Store.ReadAll(true)
		if err != nil {
			return sh, err
		}
		return sh, unknownKey(key, recs)
	}
	latest := knowledge.Latest(mine)[0]
	sh.Entry, sh.Archived = latest.Entry, latest.Archived
	head := headLines(p, key)
	sh.Commit, sh.CommitOf = head.state, head.detail
	if head.state == CommitNone || head.state == CommitAll {
		in := 0
		for _, r := range mine {
			if head.lines[string(r.JSON)] {
				in++
			}
		}
		switch {
		case in == 0:
			sh.Commit = CommitNone
		case in == len(mine):
			sh.Commit = CommitAll
		default:
			sh.Commit = CommitPartly
		}
	}
	sort.SliceStable(mine, func(a, b int) bool { return mine[b].Version().Newer(mine[a].Version()) })
	for _, r := range mine {
		sh.History = append(sh.History, Line{Entry: r.Entry, Archived: r.Archived, Committed: head.lines[string(r.JSON)]})
	}
	acts, from, err := audit.ReadKey(p.Store, key)
	if err != nil {
		return sh, err
	}
	sh.Verdicts = []Verdict{}
	for _, a := range acts {
		sh.Verdicts = append(sh.Verdicts, Verdict{Action: a.Action, Effect: a.Effect, Result: a.Result, Reason: a.Reason, Kept: a.KeptKey, Keys: a.Keys})
	}
	sh.Audited = from.LogSHA256 != ""
	if sh.Audited {
		if data, err := p.Store.ReadLog(); err == nil {
			sh.AuditCurrent = knowledge.Sum(data) == from.LogSHA256
		}
	}
	if last, n, ok := recall.LastShown(p.Store, key); ok {
		last = last.UTC() // RFC 3339 in UTC in --json
		sh.LastShown, sh.Sessions = &last, n
	}
	return sh, nil
}

// head is what HEAD's log and archive hold of a key.
type head struct {
	state  string          // CommitNone when HEAD could be read
	detail string          // why it could not
	lines  map[string]bool // the entries' JSON objects, as read
	keys   map[string]bool
}

// headLines reads the lines of key in the log and the archive as HEAD
// has them (the other keys' lines are not parsed).
func headLines(p *project.Project, key string) head {
	h := head{lines: map[string]bool{}, keys: map[string]bool{}}
	if !p.IsGit {
		h.state = CommitNoGit
		return h
	}
	repo, err := gitx.Open(p.Root)
	if err != nil {
		h.state, h.detail = CommitUnavailable, err.Error()
		return h
	}
	rel, err := filepath.Rel(repo.Root(), p.Store.Dir)
	if err != nil || !filepath.IsLocal(rel) {
		h.state, h.detail = CommitUnavailable, fmt.Sprintf("%s is not inside the work tree %s", p.Store.Dir, repo.Root())
		return h
	}
	found := false
	for _, name := range []string{knowledge.LogName, knowledge.ArchiveName} {
		data, ok, err := repo.HeadFile(filepath.ToSlash(filepath.Join(rel, name)), knowledge.MaxLogBytes)
		if err != nil {
			h.state, h.detail = CommitUnavailable, err.Error()
			return h
		}
		found = found || ok
		knowledge.ParseKeys(data, map[string]bool{key: true}, func(r knowledge.Record) {
			h.lines[string(r.JSON)] = true
			h.keys[r.Entry.Key] = true
		})
	}
	h.state = CommitNone
	if !found && !repo.HasHead() {
		h.state = CommitNoHeadYet
	}
	return h
}

// unknownKey is the error for a key no line has, naming the nearest keys.
func unknownKey(key string, recs []knowledge.Record) error {
	seen := map[string]bool{}
	var keys []string
	for _, r := range recs {
		if k := r.Entry.Key; !seen[k] {
			seen[k] = true
			keys = append(keys, k)
		}
	}
	return unknownAmong(key, keys)
}

// unknownAmong is the error for a key not among keys, naming the nearest.
func unknownAmong(key string, keys []string) error {
	near := Nearest(key, keys, 3)
	if len(near) == 0 {
		return fmt.Errorf("%w %s", ErrNoEntry, key)
	}
	return fmt.Errorf("%w %s; nearest: %s", ErrNoEntry, key, strings.Join(near, ", "))
}

// Nearest returns up to n of keys nearest to key: keys that start with it
// (or that it starts with) first, then those within a few edits of it,
// closest first; ties in key order.
func Nearest(key string, keys []string, n int) []string {
	type cand struct {
		key  string
		dist int
	}
	var cs []cand
	limit := max(3, len(key)/4)
	for _, k := range keys {
		switch {
		case k == key:
			continue
		case strings.HasPrefix(k, key) || strings.HasPrefix(key, k):
			cs = append(cs, cand{k, -1})
		default:
			if d := editDistance(key, k, limit); d <= limit {
				cs = append(cs, cand{k, d})
			}
		}
	}
	sort.Slice(cs, func(a, b int) bool {
		if cs[a].dist != cs[b].dist {
			return cs[a].dist < cs[b].dist
		}
		return cs[a].key < cs[b].key
	})
	var out []string
	for i := 0; i < len(cs) && i < n; i++ {
		out = append(out, cs[i].key)
	}
	return out
}

// editDistance is the Levenshtein distance of a and b in bytes, or more
// than limit once it is sure to exceed it.
func editDistance(a, b string, limit int) int {
	if d := len(a) - len(b); d > limit || -d > limit {
		return limit + 1
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		best := cur[0]
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			best = min(best, cur[j])
		}
		if best > limit {
			return limit + 1
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// committedError says that key is in HEAD and what to do instead.
func committedError(key string) error {
	return fmt.Errorf("%s %w: HEAD's %s/%s holds it", key, ErrCommitted, knowledge.DirName, knowledge.LogName)
}

// Remove takes every line of the entry key out of the log, under the
// writers' lock, keeping every other line as it is; it refuses an entry
// HEAD's log or archive holds (ErrCommitted), and one with lines in the
// archive. It returns how many lines it removed.
func Remove(p *project.Project, key string) (int, error) {
	if err := p.RequireStore(); err != nil {
		return 0, err
	}
	if err := known(p, key); err != nil {
		return 0, err
	}
	h := headLines(p, key)
	if h.keys[key] {
		return 0, committedError(key)
	}
	n := 0
	_, err := p.Store.Rewrite(knowledge.Rewrite{Key: key, Remove: true, Check: func(lines []knowledge.Record) error {
		n = len(lines)
		return nil
	}})
	if errors.Is(err, knowledge.ErrNoLines) {
		return 0, fmt.Errorf("%s has lines only in %s/%s (rotated): rm removes entries of the log", key, knowledge.DirName, knowledge.ArchiveName)
	}
	return n, err
}

// known fails, naming the nearest keys, when no line of the log or the
// archive has key.
func known(p *project.Project, key string) error {
	recs, _, err := p.Store.ReadAll(true)
	if err != nil {
		return err
	}
	for _, r := range recs {
		if r.Entry.Key == key {
			return nil
		}
	}
	return unknownKey(key, recs)
}

// Change is what cairn edit changes of an entry; nil leaves a field as it
// is.
type Change struct {
	Content *string
	Type    *string
	Tags    *[]string
	Files   *[]string
}

// Edited is what Edit did.
type Edited struct {
	Old        string          `json:"old_key"`
	Entry      knowledge.Entry `json:"entry"` // as written
	Superseded bool            `json:"superseded"`
	InPlace    bool            `json:"in_place"` // the entry's lines were rewritten
}

// Write says what the edit of key did: the key written on out, how it
// was written on note.
func (ed Edited) Write(out, note io.Writer, key string) {
	fmt.Fprintln(out, ed.Entry.Key)
	switch {
	case ed.Superseded:
		fmt.Fprintf(note, "cairn: %s is committed: added %s, which supersedes it\n", key, ed.Entry.Key)
	case ed.InPlace && ed.Entry.Key != key:
		fmt.Fprintf(note, "cairn: rewrote %s in place as %s (no commit held it)\n", key, ed.Entry.Key)
	case ed.InPlace:
		fmt.Fprintf(note, "cairn: rewrote %s in place (no commit held it)\n", key)
	default:
		fmt.Fprintf(note, "cairn: %s is committed: added a later line of it\n", key)
	}
}

// ErrUnchanged: an edit changes nothing of the entry.
var ErrUnchanged = errors.New("the edit changes nothing")

// Edit changes the entry key. An entry no commit holds is rewritten in
// place: its lines are replaced by one line of the changed entry (a new
// key when its type or content changed). A committed one keeps its lines:
// a new entry with the change and `supersedes` is added, with a line that
// marks the old one superseded_by it. Either way, in one write under the
// writers' lock, through the redacting insert; by says who signs the lines
// the superseding lines.
func Edit(p *project.Project, key string, ch Change, by Editor, now time.Time) (Edited, error) {
	ed := Edited{Old: key}
	if err := p.RequireStore(); err != nil {
		return ed, err
	}
	have, err := latest(p.Store)
	if err != nil {
		return ed, err
	}
	cur, ok := have[key]
	if !ok {
		return ed, known(p, key)
	}
	next := cur
	next.Tags, next.Files = slices.Clone(cur.Tags), slices.Clone(cur.Files)
	if ch.Content != nil {
		next.Content = *ch.Content
	}
	if ch.Type != nil {
		next.Type = *ch.Type
	}
	if ch.Tags != nil {
		next.Tags = knowledge.CleanTags(*ch.Tags)
	}
	if ch.Files != nil {
		next.Files = *ch.Files
		if len(next.Files) == 0 {
			next.Files = nil
		}
	}
	if err := knowledge.CleanInput(p.Root, &next); err != nil {
		return ed, err
	}
	rekey := next.Type != cur.Type || knowledge.NormalizeContent(next.Content) != knowledge.NormalizeContent(cur.Content)
	if !rekey && next.Content == cur.Content && slices.Equal(next.Tags, cur.Tags) && slices.Equal(next.Files, cur.Files) {
		return ed, fmt.Errorf("%s: %w", key, ErrUnchanged)
	}
	if next.Content != cur.Content || !slices.Equal(next.Files, cur.Files) {
		p.Restamp(&next) // rewritten against its files as they are now
	}
	if h := headLines(p, key); h.keys[key] {
		if !rekey {
			return restate(p, cur, next, by, now)
		}
		return supersede(p, cur, next, by, now)
	}
	if rekey {
		next.Key = knowledge.MakeKey(next.Type, next.Content)
	}
	next.Note = ""
	written, err := p.Store.Rewrite(knowledge.Rewrite{Key: key, Remove: true, Add: []knowledge.Entry{next}})
	if errors.Is(err, knowledge.ErrNoLines) {
		return ed, fmt.Errorf("%s has lines only in %s/%s (rotated): edit rewrites entries of the log", key, knowledge.DirName, knowledge.ArchiveName)
	}
	if err != nil {
		return ed, err
	}
	ed.Entry, ed.InPlace = written[0], true
	return ed, nil
}

// Editor is who edits an entry: what the lines an edit of a committed
// entry adds say of who wrote them.
type Editor struct {
	Author string // git user.name ("" keeps the entry's)
	// Source is user or agent, with the agent's name and session for an
	// agent ("" keeps the entry's).
	Source, Agent, Session string
}

// supersede adds the entry next, which supersedes cur, and the line that
// marks cur superseded by it. The new entry is the editor's: their name,
// source and session, the branch and commit of now.
func supersede(p *project.Project, cur, next knowledge.Entry, by Editor, now time.Time) (Edited, error) {
	ed := Edited{Old: cur.Key, Superseded: true}
	if cur.Status == knowledge.StatusRetracted {
		return ed, fmt.Errorf("%s is %w: it cannot be superseded", cur.Key, ErrAlreadyRetracted)
	}
	next.Key = knowledge.MakeKey(next.Type, next.Content)
	next.TS = max(now.Unix(), cur.TS+1)
	next.Status, next.SupersededBy, next.ReviewReason, next.MergedFrom, next.Note = "", "", "", nil, ""
	next.Supersedes = cur.Key
	if by.Author != "" {
		next.Author = by.Author
	}
	if by.Source != "" {
		next.Source, next.Agent, next.Session = by.Source, by.Agent, by.Session
	}
	next.Branch, next.Commit = "", ""
	p.Provenance(&next, now)
	written, err := p.Store.Rewrite(knowledge.Rewrite{
		Key: cur.Key,
		Add: []knowledge.Entry{next},
		Lines: func(added []knowledge.Entry) ([][]byte, error) {
			old := change(cur, knowledge.StatusSuperseded, "superseded by "+added[0].Key, now)
			old.SupersededBy = added[0].Key
			if by.Author != "" {
				old.Author = by.Author
			}
			line, err := knowledge.Marshal(&old)
			return [][]byte{line}, err
		},
	})
	if err != nil {
		return ed, err
	}
	ed.Entry = written[0]
	return ed, nil
}

// restate adds a later line of the committed entry cur with the tags and
// files of next: a change that keeps its type and content keeps its key.
func restate(p *project.Project, cur, next knowledge.Entry, by Editor, now time.Time) (Edited, error) {
	ed := Edited{Old: cur.Key}
	if cur.Status == knowledge.StatusRetracted {
		return ed, fmt.Errorf("%s is %w", cur.Key, ErrAlreadyRetracted)
	}
	line := next
	line.TS = max(now.Unix(), cur.TS+1)
	line.Note = ""
	if by.Author != "" {
		line.Author = by.Author
	}
	raw, err := knowledge.Marshal(&line)
	if err != nil {
		return ed, err
	}
	_, err = p.Store.Rewrite(knowledge.Rewrite{
		Key:   cur.Key,
		Lines: func([]knowledge.Entry) ([][]byte, error) { return [][]byte{raw}, nil },
	})
	if err != nil {
		return ed, err
	}
	ed.Entry = line
	return ed, nil
}

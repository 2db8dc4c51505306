package recall

import (
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/helpers/internal/anchor"
	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
	"github.com/cairn-dev/cairn/helpers/internal/rank"
	"github.com/cairn-dev/cairn/helpers/internal/relevance"
)

// PerPromptBudget caps the block injected for one prompt, in UTF-16 code
// units.
const PerPromptBudget = 2000

// staleState is how long a session's record of shown entries is kept.
const staleState = 7 * 24 * time.Hour

// shownState is what a session has already been shown: every entry, at
// any moment (start, prompt, before a tool), and apart the must-checks
// shown before a tool call as a check, which a session start's showing
// does not spare.
type shownState struct {
	Shown   []string `json:"shown"`
	Checked []string `json:"checked,omitempty"`
	// Asked are the must-checks the person was asked about before a tool
	// call (the guards): each once per session.
	Asked []string `json:"asked,omitempty"`
}

// sessionsDir holds one record per session, under .cairn.
const sessionsDir = knowledge.LocalDir + "/sessions"

// maxStateBytes caps what is read of one session's record.
const maxStateBytes = 4 << 20

// stateName is the file name of a session's record: 16 hex digits of the
// session id's hash, so nothing from the payload reaches a path (the
// session's other records share the name, see [anchor.SessionName]).
func stateName(session string) string { return anchor.SessionName(session) + ".json" }

// isStateName reports whether a file name is one stateName makes.
func isStateName(n string) bool { return isRecordName(n, ".json") }

// isRecordName reports whether a file name is a session record's name
// with the extension ext (".json": what the session was shown; ".files":
// the files its turn edited, see [anchor.Touched]).
func isRecordName(n, ext string) bool {
	if len(n) != 16+len(ext) || !strings.HasSuffix(n, ext) {
		return false
	}
	for _, c := range n[:16] {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// loadState reads a session's record (empty for an unknown session or an
// unreadable record).
func loadState(s *knowledge.Store, session string) shownState {
	var st shownState
	if session == "" {
		return st
	}
	data, err := s.ReadFile(sessionsDir+"/"+stateName(session), maxStateBytes)
	if err != nil || data == nil {
		return st
	}
	if json.Unmarshal(data, &st) != nil {
		return shownState{}
	}
	return st
}

func set(keys []string) map[string]bool {
	m := make(map[string]bool, len(keys))
	for _, k := range keys {
		m[k] = true
	}
	return m
}

// LoadShown returns the keys already shown in a session (none for an
// unknown session or an unreadable record).
func LoadShown(s *knowledge.Store, session string) map[string]bool {
	return set(loadState(s, session).Shown)
}

// LoadChecked returns the must-checks already shown in a session before a
// tool call, as checks.
func LoadChecked(s *knowledge.Store, session string) map[string]bool {
	return set(loadState(s, session).Checked)
}

// LoadAsked returns the must-checks the person was already asked about
// in a session (see [AddAsked]).
func LoadAsked(s *knowledge.Store, session string) map[string]bool {
	return set(loadState(s, session).Asked)
}

// AddShown records keys as shown in a session.
func AddShown(s *knowledge.Store, session string, keys []string) error {
	return addState(s, session, keys, nil, nil)
}

// AddChecked records keys as shown, and as shown as checks before a tool
// call, in a session.
func AddChecked(s *knowledge.Store, session string, keys []string) error {
	return addState(s, session, keys, keys, nil)
}

// AddAsked records that the person was asked about the must-checks keys
// before a tool call in a session.
func AddAsked(s *knowledge.Store, session string, keys []string) error {
	return addState(s, session, nil, nil, keys)
}

func addState(s *knowledge.Store, session string, shown, checked, asked []string) error {
	if session == "" || len(shown)+len(checked)+len(asked) == 0 {
		return nil
	}
	st := loadState(s, session)
	add := func(list []string, keys []string) []string {
		have := set(list)
		for _, k := range keys {
			if !have[k] {
				list = append(list, k)
				have[k] = true
			}
		}
		return list
	}
	st.Shown = add(st.Shown, shown)
	st.Checked = add(st.Checked, checked)
	st.Asked = add(st.Asked, asked)
	data, _ := json.Marshal(st)
	return s.Root().ReplaceFile(sessionsDir+"/"+stateName(session), data, 0o644)
}

// PruneShown deletes session records older than a week (what a session
// was shown, the files its last turn edited): only regular files named as
// cairn names them, never anything else that may be there (and nothing at
// all when the directory is a link).
func PruneShown(s *knowledge.Store, now time.Time) error {
	ents, err := s.Root().ReadDir(sessionsDir)
	if err != nil {
		return err
	}
	for _, e := range ents {
		if e.Regular && (isStateName(e.Name) || isRecordName(e.Name, ".files")) && now.Sub(e.ModTime) > staleState {
			if err := s.Root().Remove(sessionsDir + "/" + e.Name); err != nil {
				return err
			}
		}
	}
	return nil
}

// StronglyRelevant is the bar for per-prompt recall: at least two of the
// prompt's terms, and at least a quarter of them, appear in the entry
// (ranking's knobs PromptTerms and PromptShare, see [rank.Knobs]). A
// prompt is prose, so most of its words are about the request, not the
// topic; two shared topic words is what sets a real match apart.
func StronglyRelevant(e knowledge.Entry, terms []string) bool {
	matched, share := relevance.Coverage(e, terms)
	return matched >= rank.Default.PromptTerms && share >= rank.Default.PromptShare
}

// Mentions reports whether e covers at least one of the query's terms.
func Mentions(e knowledge.Entry, terms []string) bool {
	matched, _ := relevance.Coverage(e, terms)
	return matched >= 1
}

// LastShown reports when key was last put in front of an agent on this
// machine, as the records of the sessions of the last week say: the time
// the newest record that holds it was written, and how many sessions were
// shown it. ok is false when none was.
func LastShown(s *knowledge.Store, key string) (last time.Time, sessions int, ok bool) {
	ents, err := s.Root().ReadDir(sessionsDir)
	if err != nil {
		return last, 0, false
	}
	for _, e := range ents {
		if !e.Regular || !isStateName(e.Name) {
			continue
		}
		data, err := s.ReadFile(sessionsDir+"/"+e.Name, maxStateBytes)
		var st shownState
		if err != nil || json.Unmarshal(data, &st) != nil || !slices.Contains(st.Shown, key) {
			continue
		}
		sessions++
		if e.ModTime.After(last) {
			last = e.ModTime
		}
	}
	return last, sessions, sessions > 0
}

package recall

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"time"

	"github.com/cairn-dev/cairn/helpers/internal/fsx"
	"github.com/cairn-dev/cairn/helpers/internal/index"
	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
)

// PerPromptBudget caps the block injected for one prompt, in UTF-16 code
// units.
const PerPromptBudget = 2000

// staleState is how long a session's record of shown entries is kept.
const staleState = 7 * 24 * time.Hour

// shownState is what a session has already been shown.
type shownState struct {
	Shown []string `json:"shown"`
}

func statePath(localDir, session string) string {
	sum := sha256.Sum256([]byte(session))
	return filepath.Join(localDir, "sessions", hex.EncodeToString(sum[:8])+".json")
}

// LoadShown returns the keys already shown in a session (none for an
// unknown session or an unreadable record).
func LoadShown(localDir, session string) map[string]bool {
	shown := map[string]bool{}
	if session == "" {
		return shown
	}
	data, err := os.ReadFile(statePath(localDir, session))
	if err != nil {
		return shown
	}
	var st shownState
	if json.Unmarshal(data, &st) == nil {
		for _, k := range st.Shown {
			shown[k] = true
		}
	}
	return shown
}

// AddShown records keys as shown in a session.
func AddShown(localDir, session string, keys []string) error {
	if session == "" || len(keys) == 0 {
		return nil
	}
	shown := LoadShown(localDir, session)
	st := shownState{}
	for k := range shown {
		st.Shown = append(st.Shown, k)
	}
	for _, k := range keys {
		if !shown[k] {
			st.Shown = append(st.Shown, k)
			shown[k] = true
		}
	}
	path := statePath(localDir, session)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	data, _ := json.Marshal(st)
	return fsx.ReplaceFile(path, data, 0o644)
}

// PruneShown deletes session records older than a week.
func PruneShown(localDir string, now time.Time) {
	dir := filepath.Join(localDir, "sessions")
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		if fi, err := e.Info(); err == nil && now.Sub(fi.ModTime()) > staleState {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}

// StronglyRelevant is the bar for per-prompt recall: at least two of the
// prompt's terms, and at least a quarter of them, appear in the entry. A
// prompt is prose, so most of its words are about the request, not the
// topic; two shared topic words is what sets a real match apart.
func StronglyRelevant(e knowledge.Entry, terms []string) bool {
	matched, share := index.Coverage(e, terms)
	return matched >= 2 && share >= 0.25
}

package recall

import (
	"time"

	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
	"github.com/cairn-dev/cairn/helpers/internal/untrusted"

	"github.com/cairn-dev/cairn/helpers/internal/when"
)

// Entry is an entry as cairn shows it to other programs: the one JSON
// form of `cairn recall --json` and the MCP recall tool alike. Every text
// is made inert with untrusted.ForAgent (an agent reads both), and
// Untrusted marks it as data written by whoever pushed: a reader must not
// follow directions in it.
type Entry struct {
	Key      string   `json:"key"`
	Type     string   `json:"type"`
	Content  string   `json:"content"`
	Score    float64  `json:"score"`
	TS       int64    `json:"ts"`
	Date     string   `json:"date"` // UTC, YYYY-MM-DD
	Status   string   `json:"status"`
	Tags     []string `json:"tags"`
	Bead     string   `json:"bead,omitempty"`
	Author   string   `json:"author,omitempty"`
	Branch   string   `json:"branch,omitempty"`
	Commit   string   `json:"commit,omitempty"`
	Files    []string `json:"files,omitempty"`
	Session  string   `json:"session,omitempty"`
	Archived bool     `json:"archived"`
	Note     string   `json:"note,omitempty"` // sanitize's flag on this machine

	Untrusted bool `json:"untrusted"` // always true
}

// External is e in its external form, found with score (rounded to three
// decimals) in the log or, when archived, in the archive.
func External(e knowledge.Entry, score float64, archived bool) Entry {
	status := e.Status
	if status == "" {
		status = "active"
	}
	return Entry{
		Key: inert(e.Key), Type: inert(e.Type), Content: inert(e.Content), Score: RoundScore(score), TS: e.TS,
		Date: when.MachineDay(time.Unix(e.TS, 0)), Status: inert(status), Tags: untrusted.ForAgentAll(e.Tags),
		Bead: inert(e.Bead), Author: inert(e.Author), Branch: inert(e.Branch), Commit: inert(e.Commit),
		Files: untrusted.ForAgentAll(e.Files), Session: inert(e.Session), Archived: archived, Note: inert(e.Note),
		Untrusted: true,
	}
}

// RoundScore is a score as cairn shows it: three decimals.
func RoundScore(s float64) float64 {
	return float64(int64(s*1000+0.5)) / 1000
}

func inert(s string) string { return untrusted.ForAgent(s, 0) }

// Package entryjson owns the one form in which cairn shows an entry to
// other programs: every command's --json (recall, recall --explain, show,
// check, diff, edit, retract, curate, promote) and the MCP tools. The log
// is written by whoever pushed, so every text in it is made inert for an
// agent (untrusted.ForAgent) and every entry says "untrusted": true: a
// reader must not follow directions in it.
//
// The form has every field of the log's line under its log name, and the
// same fields in every output (none left out when empty, lists as [] and
// a missing detail as null), so a script reads one schema.
package entryjson

import (
	"time"

	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
	"github.com/cairn-dev/cairn/helpers/internal/untrusted"
	"github.com/cairn-dev/cairn/helpers/internal/when"
)

// Entry is an entry as cairn shows it to other programs. The fields of
// knowledge.Entry keep their names; Score, Date, Archived, Note and
// Untrusted are added.
type Entry struct {
	Key     string  `json:"key"`
	Type    string  `json:"type"`
	Content string  `json:"content"`
	Score   float64 `json:"score"` // the ranking's score, rounded (see RoundScore); 0 where nothing was ranked
	TS      int64   `json:"ts"`
	Date    string  `json:"date"`   // UTC, YYYY-MM-DD
	Status  string  `json:"status"` // "active" for a line without one
	// Tags and the rest are the log line's provenance and curation fields.
	Tags         []string          `json:"tags"`
	Source       string            `json:"source"`
	Agent        string            `json:"agent"`
	Bead         string            `json:"bead"`
	Author       string            `json:"author"`
	Branch       string            `json:"branch"`
	Commit       string            `json:"commit"`
	Files        []string          `json:"files"`
	Blobs        []string          `json:"blobs"`
	Session      string            `json:"session"`
	Supersedes   string            `json:"supersedes"`
	SupersededBy string            `json:"superseded_by"`
	MergedFrom   []string          `json:"merged_from"`
	ReviewReason string            `json:"review_reason"`
	Redacted     []string          `json:"redacted"`
	Detail       *knowledge.Detail `json:"detail"`
	Archived     bool              `json:"archived"` // its latest line is in the archive
	Note         string            `json:"note"`     // sanitize's remark on this machine

	Untrusted bool `json:"untrusted"` // always true
}

// New is e in its external form, ranked with score (rounded to three
// decimals), found in the log or, when archived, in the archive.
func New(e knowledge.Entry, score float64, archived bool) Entry {
	e = e.Clone()
	knowledge.EachText(&e, func(s *string) { *s = untrusted.ForAgent(*s, 0) })
	status := e.Status
	if status == "" {
		status = "active"
	}
	return Entry{
		Key: e.Key, Type: e.Type, Content: e.Content, Score: RoundScore(score), TS: e.TS,
		Date: when.MachineDay(time.Unix(e.TS, 0)), Status: status,
		Tags: list(e.Tags), Source: e.Source, Agent: e.Agent, Bead: e.Bead, Author: e.Author,
		Branch: e.Branch, Commit: e.Commit, Files: list(e.Files), Blobs: list(e.Blobs), Session: e.Session,
		Supersedes: e.Supersedes, SupersededBy: e.SupersededBy, MergedFrom: list(e.MergedFrom),
		ReviewReason: e.ReviewReason, Redacted: list(e.Redacted), Detail: e.Detail,
		Archived: archived, Note: e.Note, Untrusted: true,
	}
}

// Of is e in its external form, unranked, in the log.
func Of(e knowledge.Entry) Entry { return New(e, 0, false) }

// List is each of es in its external form, unranked, in the log; never
// nil, so it prints as [] when empty.
func List(es []knowledge.Entry) []Entry {
	out := make([]Entry, 0, len(es))
	for _, e := range es {
		out = append(out, Of(e))
	}
	return out
}

// RoundScore is a score as cairn shows it: three decimals.
func RoundScore(s float64) float64 {
	return float64(int64(s*1000+0.5)) / 1000
}

// list is s, or an empty list for none.
func list(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

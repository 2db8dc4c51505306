package cli

import (
	"github.com/cairn-dev/cairn/helpers/internal/curate"
	"github.com/cairn-dev/cairn/helpers/internal/entryjson"
	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
)

// The --json forms of the commands that print entries: each report as the
// command builds it, with every entry in package entryjson's form (the
// fields of the report's own types that hold an entry are shadowed by
// fields of the same JSON name at the top level).

// shownJSON is what show --json prints.
type shownJSON struct {
	curate.Shown
	Entry   entryjson.Entry `json:"entry"`
	History []shownLine     `json:"history"`
}

// shownLine is one line of an entry's history: the entry as that line
// wrote it, and whether HEAD holds the line.
type shownLine struct {
	entryjson.Entry
	Committed bool `json:"committed"`
}

func showJSON(sh curate.Shown) shownJSON {
	out := shownJSON{Shown: sh, Entry: entryjson.New(sh.Entry, 0, sh.Archived), History: []shownLine{}}
	for _, l := range sh.History {
		out.History = append(out.History, shownLine{Entry: entryjson.New(l.Entry, 0, l.Archived), Committed: l.Committed})
	}
	return out
}

// editJSON is what edit --json prints.
func editJSON(ed curate.Edited) any {
	return struct {
		curate.Edited
		Entry entryjson.Entry `json:"entry"`
	}{ed, entryjson.Of(ed.Entry)}
}

// changeJSON is one change of diff --json.
type changeJSON struct {
	knowledge.Change
	Entry entryjson.Entry  `json:"entry"`
	New   *entryjson.Entry `json:"new,omitempty"`
}

// diffJSON is what diff --json prints.
func diffJSON(r diffReport) any {
	changes := make([]changeJSON, 0, len(r.Changes))
	for _, ch := range r.Changes {
		c := changeJSON{Change: ch, Entry: entryjson.New(ch.Entry, 0, ch.Kind == knowledge.ChangeArchived)}
		if ch.New != nil {
			n := entryjson.Of(*ch.New)
			c.New = &n
		}
		changes = append(changes, c)
	}
	return struct {
		diffReport
		Changes []changeJSON `json:"changes"`
	}{r, changes}
}

// checkEntryJSON is one anchored entry of check --json.
type checkEntryJSON struct {
	checkEntry
	Entry entryjson.Entry `json:"entry"`
}

// checkJSON is what check --json prints.
func checkJSON(r checkReport) any {
	entries := make([]checkEntryJSON, 0, len(r.Entries))
	for _, e := range r.Entries {
		entries = append(entries, checkEntryJSON{checkEntry: e, Entry: entryjson.Of(e.Entry)})
	}
	return struct {
		checkReport
		Entries []checkEntryJSON  `json:"entries"`
		Added   []entryjson.Entry `json:"added"`
	}{r, entries, entryjson.List(r.Added)}
}

package curate

import "github.com/cairn-dev/cairn/helpers/internal/entryjson"

// The --json forms of show and edit: each as it is built, with every
// entry in package entryjson's form (the fields that hold an entry are
// shadowed by fields of the same JSON name).

// shownJSON is what show --json prints.
type shownJSON struct {
	Shown
	Entry   entryjson.Entry `json:"entry"`
	History []shownLine     `json:"history"`
}

// shownLine is one line of an entry's history: the entry as that line
// wrote it, and whether HEAD holds the line.
type shownLine struct {
	entryjson.Entry
	Committed bool `json:"committed"`
}

// ShowJSON is what show --json prints.
func ShowJSON(sh Shown) any {
	out := shownJSON{Shown: sh, Entry: entryjson.New(sh.Entry, 0, sh.Archived), History: []shownLine{}}
	for _, l := range sh.History {
		out.History = append(out.History, shownLine{Entry: entryjson.New(l.Entry, 0, l.Archived), Committed: l.Committed})
	}
	return out
}

// EditJSON is what edit --json prints.
func EditJSON(ed Edited) any {
	return struct {
		Edited
		Entry entryjson.Entry `json:"entry"`
	}{ed, entryjson.Of(ed.Entry)}
}

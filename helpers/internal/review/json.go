package review

import (
	"github.com/cairn-dev/cairn/helpers/internal/entryjson"
	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
)

// The --json forms of diff and check: each report as it is built, with
// every entry in package entryjson's form (the fields of the report's own
// types that hold an entry are shadowed by fields of the same JSON name).

// changeJSON is one change of diff --json.
type changeJSON struct {
	knowledge.Change
	Entry entryjson.Entry  `json:"entry"`
	New   *entryjson.Entry `json:"new,omitempty"`
}

// DiffJSON is what diff --json prints.
func DiffJSON(r DiffReport) any {
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
		DiffReport
		Changes []changeJSON `json:"changes"`
	}{r, changes}
}

// checkEntryJSON is one anchored entry of check --json.
type checkEntryJSON struct {
	CheckEntry
	Entry entryjson.Entry `json:"entry"`
}

// CheckJSON is what check --json prints.
func CheckJSON(r CheckReport) any {
	entries := make([]checkEntryJSON, 0, len(r.Entries))
	for _, e := range r.Entries {
		entries = append(entries, checkEntryJSON{CheckEntry: e, Entry: entryjson.Of(e.Entry)})
	}
	return struct {
		CheckReport
		Entries []checkEntryJSON  `json:"entries"`
		Added   []entryjson.Entry `json:"added"`
	}{r, entries, entryjson.List(r.Added)}
}

package capture

import (
	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
)

// MaxPerEvent caps how many entries one hook event (one reply, one
// command) may add: an agent records a handful; thousands are a runaway
// or an attack, and would each cost a rewrite of the log.
const MaxPerEvent = 50

// Entries turns captured items into log entries: keys derived, the session
// and source noted. Empty items are dropped. Secrets are redacted where
// every entry is written, by knowledge.Store.Insert.
func Entries(items []Item, session, source string) []knowledge.Entry {
	var out []knowledge.Entry
	for _, it := range items {
		// As captured: the log's writer redacts it before it folds it.
		content := it.Content
		if knowledge.CleanContent(content) == "" {
			continue
		}
		e := knowledge.Entry{
			Type:    it.Type,
			Content: content,
			Source:  source,
			Bead:    it.Bead,
			Session: session,
		}
		e.Key = knowledge.MakeKey(e.Type, e.Content)
		out = append(out, e)
	}
	return out
}

package project

import (
	"time"

	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
)

// Add records e in the project's log with its provenance (author, branch,
// commit, files it names), provisioning .cairn if needed. It returns e's
// key (or the key of the entry it repeats) and whether a line was added.
// The fields given by hand are checked first ([knowledge.CleanInput]): a
// refusal matches [knowledge.ErrInput].
func (p *Project) Add(e knowledge.Entry) (string, bool, error) {
	if err := knowledge.CleanInput(p.Root, &e); err != nil {
		return "", false, err
	}
	p.Provenance(&e, time.Now())
	return addEntry(p.Store, e)
}

// addEntry inserts e (the insertion provisions the store if needed),
// returning its key (or the existing key) and whether a line was added.
func addEntry(s *knowledge.Store, e knowledge.Entry) (string, bool, error) {
	if e.Key == "" {
		e.Key = knowledge.MakeKey(e.Type, e.Content)
	}
	res, err := s.Insert([]knowledge.Entry{e})
	if err != nil {
		return "", false, err
	}
	if len(res.Added) == 1 {
		return res.Added[0].Key, true, nil
	}
	if len(res.Duplicates) == 1 {
		return res.Duplicates[0].Key, false, nil
	}
	return e.Key, false, nil
}

package index

import (
	"errors"
	"io"
	"io/fs"
	"strings"

	"github.com/cairn-dev/cairn/helpers/internal/anchor"
	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
	"github.com/cairn-dev/cairn/helpers/internal/typed"
)

// live is the condition of an entry recall may show: in the log, not
// retracted or superseded, not removed by this machine's sanitize.
const live = `e.archived=0 AND e.status NOT IN ('retracted','superseded') AND coalesce(v.effect,'') != 'removed'`

// anchorMap is the anchor map of the entries the cache holds (see
// package anchor): the live entries' files, and the live must-checks'
// command prefixes (see [anchor.Command]). It reads only anchored entries and must-checks.
func (ix *Index) anchorMap() (anchor.Map, error) {
	m := anchor.Map{Files: map[string][]string{}, Commands: map[string][]string{}}
	rows, err := ix.db.Query(`SELECT e.json FROM entries e `+verdictJoin+` WHERE (e.anchored=1 OR e.type=?) AND `+live, typed.MustCheck)
	if err != nil {
		return m, dbErr("read anchors", err)
	}
	defer rows.Close()
	for rows.Next() {
		var js string
		if err := rows.Scan(&js); err != nil {
			return m, dbErr("read anchors", err)
		}
		e, err := knowledge.DecodeEntry([]byte(js))
		if err != nil {
			continue
		}
		for _, f := range e.Files {
			if f, ok := anchor.Clean(f); ok {
				m.Files[f] = append(m.Files[f], e.Key)
			}
		}
		if e.Type == typed.MustCheck {
			if c, ok := anchor.Command(e.Content); ok {
				m.Commands[c] = append(m.Commands[c], e.Key)
			}
		}
	}
	if err := rows.Err(); err != nil {
		return m, dbErr("read anchors", err)
	}
	return m, nil
}

// savedIdentity is the identity (see [anchor.Identity]) of the log files
// the cache holds, as its last write recorded them.
func (ix *Index) savedIdentity() (string, error) {
	saved, err := ix.savedFiles()
	if err != nil {
		return "", err
	}
	return anchor.FormatIDs(saved[ix.store.LogPath()].ID, saved[ix.store.ArchivePath()].ID), nil
}

// mapIdentity is the identity the anchor map on disk records ("" when
// there is none or it is not one).
func (ix *Index) mapIdentity() string {
	f, err := ix.store.Root().OpenFile(anchor.File, 0, 0)
	if err != nil {
		return ""
	}
	defer f.Close()
	head := make([]byte, 512)
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return ""
	}
	src, _ := anchor.SourcesOf(head[:n])
	return src
}

// syncAnchors writes the anchor map when it does not record the files the
// cache holds: after any write of the cache, and when it is missing.
func (ix *Index) syncAnchors() error {
	id, err := ix.savedIdentity()
	if err != nil {
		return err
	}
	if ix.mapIdentity() == id {
		return nil
	}
	m, err := ix.anchorMap()
	if err != nil {
		return err
	}
	m.Sources = id
	if err := ix.store.Root().MkdirAll(knowledge.CacheDir); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	return ix.store.Root().ReplaceFile(anchor.File, anchor.Encode(m), 0o644)
}

// Entries returns the live entries of keys the cache holds, in the order
// of keys (a key it does not hold, or holds archived or retracted, is
// left out).
func (ix *Index) Entries(keys []string) ([]knowledge.Entry, error) {
	if len(keys) == 0 {
		return nil, nil
	}
	marks := make([]string, len(keys))
	args := make([]any, len(keys))
	for i, k := range keys {
		marks[i], args[i] = "?", k
	}
	hits, err := ix.readCandidates(`SELECT e.json, e.archived, 0, coalesce(v.effect,''), coalesce(v.note,''), e.id FROM entries e `+
		verdictJoin+` WHERE e.key IN (`+strings.Join(marks, ",")+`) AND `+live, args...)
	if err != nil {
		return nil, err
	}
	by := map[string]knowledge.Entry{}
	for _, h := range hits {
		by[h.Entry.Key] = h.Entry
	}
	var out []knowledge.Entry
	for _, k := range keys {
		if e, ok := by[k]; ok {
			out = append(out, e)
			delete(by, k)
		}
	}
	return out, nil
}

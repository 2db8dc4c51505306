package knowledge

import (
	"os"

	"github.com/cairn-dev/cairn/helpers/internal/anchor"
	"github.com/cairn-dev/cairn/helpers/internal/typed"
)

// advanceAnchors brings the anchor map beside the cache (see package
// anchor) from the log an insertion read, whose identity was before, to
// the log it wrote, whose identity is after, with the anchors of the
// entries it added: new keys
// only, so no anchor loses one. Then the hook before the next tool call
// still answers from the map, without the cache, as it did before the
// insertion. A map that was not current before is left to the next sync
// of the cache, as is any failure: the map is a cache's.
func (s *Store) advanceAnchors(before, after string, added []Entry) {
	if !s.anchorsOf(before) {
		return
	}
	data, err := s.root.ReadFile(anchor.File, anchor.MaxBytes)
	if err != nil {
		return
	}
	if src, ok := anchor.SourcesOf(data); !ok || src != before {
		return
	}
	c := anchor.Change{Keys: map[string]bool{}, New: anchor.Map{Files: map[string][]string{}, Commands: map[string][]string{}}}
	for _, e := range added {
		if !e.Active() {
			continue
		}
		for _, f := range e.Files {
			if f, ok := anchor.Clean(f); ok {
				c.New.Files[f] = append(c.New.Files[f], e.Key)
			}
		}
		if e.Type == typed.MustCheck {
			if cmd, ok := anchor.Command(e.Content); ok {
				c.New.Commands[cmd] = append(c.New.Commands[cmd], e.Key)
			}
		}
	}
	out, ok := anchor.Update(data, after, c)
	if !ok {
		return
	}
	_ = s.root.ReplaceFile(anchor.File, out, 0o644)
}

// anchorsOf reports whether the anchor map's head names the log whose
// identity is id, from the head alone: a map of another log (the log
// changed underneath, as after a pull) is not read further, which at 100k
// entries spares reading some 0.7 MB of map on an insertion's path.
func (s *Store) anchorsOf(id string) bool {
	f, err := s.root.OpenFile(anchor.File, os.O_RDONLY, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	// The magic line and "src " take far less than 256 bytes: a map of
	// the log id has its whole sources line in head.
	head := make([]byte, len(id)+256)
	n, _ := f.ReadAt(head, 0)
	src, ok := anchor.SourcesOf(head[:n])
	return ok && src == id
}

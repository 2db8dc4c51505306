package wiki

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
	"github.com/cairn-dev/cairn/helpers/internal/model"
	"github.com/cairn-dev/cairn/helpers/internal/typed"
	"github.com/cairn-dev/cairn/helpers/internal/userconf"
	"github.com/cairn-dev/cairn/helpers/internal/when"
)

// TeamDir is the team wiki's directory under .cairn; it is committed.
const TeamDir = "wiki"

// TeamSources are the team log's active entries as sources, one per entry
// type ("knowledge/decision.md": the decisions, rendered one a line), so
// that a new or changed entry changes the source of its type alone. They
// are read through the store's confined access, like everything under
// .cairn.
func TeamSources(s *knowledge.Store) Readable { return &teamSources{store: s} }

type teamSources struct {
	store  *knowledge.Store
	loaded bool
	docs   map[string][]byte
	err    error
}

// load renders each type's active entries once.
func (t *teamSources) load() error {
	if t.loaded {
		return t.err
	}
	t.loaded = true
	recs, _, err := t.store.ReadAll(false)
	if errors.Is(err, fs.ErrNotExist) {
		err = nil
	}
	if err != nil {
		t.err = err
		return err
	}
	byType := map[string][]knowledge.Entry{}
	for _, r := range knowledge.Latest(recs) {
		if r.Entry.Active() {
			byType[r.Entry.Type] = append(byType[r.Entry.Type], r.Entry)
		}
	}
	t.docs = map[string][]byte{}
	for typ, entries := range byType {
		sort.Slice(entries, func(i, j int) bool { return entries[i].Key < entries[j].Key })
		var b strings.Builder
		fmt.Fprintf(&b, "# The team's %s entries (.cairn/knowledge.jsonl)\n\n", typ)
		for _, e := range entries {
			fmt.Fprintf(&b, "- %s (%s, %s): %s\n", e.Key, e.Author, when.MachineDay(time.Unix(e.TS, 0)), e.Content)
		}
		t.docs["knowledge/"+typ+".md"] = []byte(b.String())
	}
	return nil
}

// Has reports whether target ("knowledge/decision") names a type with
// entries.
func (t *teamSources) Has(target string) bool {
	if t.load() != nil {
		return false
	}
	_, ok := t.docs[strings.TrimSuffix(target, ".md")+".md"]
	return ok
}

// List hashes each type's rendering.
func (t *teamSources) List() (map[string]string, error) {
	if err := t.load(); err != nil {
		return nil, err
	}
	out := map[string]string{}
	for name, doc := range t.docs {
		sum := sha256.Sum256(doc)
		out[name] = hex.EncodeToString(sum[:])[:16]
	}
	return out, nil
}

// Read returns a type's rendering.
func (t *teamSources) Read(name string) ([]byte, error) {
	if err := t.load(); err != nil {
		return nil, err
	}
	doc, ok := t.docs[name]
	if !ok {
		return nil, fmt.Errorf("no source %q", name)
	}
	return doc, nil
}

// Link is "knowledge/<type>".
func (t *teamSources) Link(name string) string { return strings.TrimSuffix(name, ".md") }

// Cite names the entries in the log, and how to list them: no vault
// holds them as a page.
func (t *teamSources) Cite(name string) string {
	typ := strings.TrimPrefix(t.Link(name), "knowledge/")
	if !typed.Valid(typ) {
		typ = "?"
	}
	return "the " + typ + " entries of `.cairn/knowledge.jsonl` (`cairn recall --type " + typ + " --all`)"
}

// OpenTeam finds the team wiki of the project whose .cairn store is s
// (.cairn/wiki, compiled from the team log, committed with the code),
// with the user's configured model (getenv reads the environment). A
// .cairn/wiki that is a symbolic link (a committed one could point
// anywhere) is refused.
func OpenTeam(s *knowledge.Store, getenv func(string) string) (Wiki, error) {
	if err := s.Check(); err != nil {
		return Wiki{}, err
	}
	dir := filepath.Join(s.Dir, TeamDir)
	if fi, err := os.Lstat(dir); err == nil && !fi.IsDir() {
		return Wiki{}, fmt.Errorf("%w: %s", ErrLink, dir)
	}
	t := Wiki{Dir: dir, Sources: TeamSources(s)}
	u, err := userconf.Load(getenv)
	if err != nil {
		return t, err
	}
	d, c := u.Dirs, u.Config
	t.Model = model.Command(c.Command(), filepath.Join(d.State, "model"), c.Timeout())
	return t, nil
}

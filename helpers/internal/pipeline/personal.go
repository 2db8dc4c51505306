package pipeline

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/helpers/internal/fsx"
	"github.com/cairn-dev/cairn/helpers/internal/gitmeta"
	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
	"github.com/cairn-dev/cairn/helpers/internal/userconf"
	"github.com/cairn-dev/cairn/helpers/internal/when"
)

// ProjectID names a project the same way on every machine and in every
// checkout: its origin remote as host-owner-name ("github.com-acme-shop"),
// else "local-<directory name>-<hash of its path>".
func ProjectID(root string) string {
	if id := remoteID(gitmeta.Read(root).Origin); id != "" {
		return id
	}
	sum := sha256.Sum256([]byte(root))
	return "local-" + knowledge.Slug(filepath.Base(root), 40) + "-" + hex.EncodeToString(sum[:3])
}

// remoteID normalises a remote URL (scp-like, ssh://, https://, a path)
// to host-owner-name without credentials, port or .git.
func remoteID(remote string) string {
	remote = strings.TrimSpace(remote)
	if remote == "" {
		return ""
	}
	host, path := "", remote
	if u, err := url.Parse(remote); err == nil && u.Scheme != "" && u.Host != "" {
		host, path = u.Hostname(), u.Path
	} else if at, rest, ok := strings.Cut(remote, ":"); ok && !strings.Contains(at, "/") && len(at) > 1 {
		host, path = at[strings.LastIndexByte(at, '@')+1:], rest // git@host:owner/name
	}
	path = strings.TrimSuffix(strings.Trim(path, "/"), ".git")
	parts := strings.Split(path, "/")
	if len(parts) > 2 {
		parts = parts[len(parts)-2:]
	}
	words := append([]string{host}, parts...)
	var out []string
	for _, w := range words {
		if s := knowledge.Slug(strings.ReplaceAll(w, ".", "-dot-"), 60); s != "" {
			out = append(out, strings.ReplaceAll(s, "-dot-", "."))
		}
	}
	return strings.Join(out, "-")
}

// Personal is this developer's own knowledge of one project, kept in the
// knowledge directory (never in the repository): the distilled decisions
// and failures (a log in cairn's format) and the handoff of each branch.
type Personal struct {
	Dir string // <knowledge>/projects/<id>
}

// OpenPersonal is the personal knowledge of the project at root.
func OpenPersonal(knowledgeDir, root string) Personal {
	return Personal{Dir: filepath.Join(knowledgeDir, "projects", ProjectID(root))}
}

// PersonalFor finds the personal knowledge of the project at root from the
// user's config, as userconf.Load returned it; ok is false when there is
// no HOME to find it by, or the config is unusable.
func PersonalFor(u userconf.User, err error, root string) (Personal, bool) {
	if err != nil {
		return Personal{}, false
	}
	return OpenPersonal(u.Knowledge(), root), true
}

// Store is the personal log, in the team log's format.
func (p Personal) Store() *knowledge.Store { return knowledge.OpenDir(p.Dir) }

// maxPersonal caps how much of the personal log a session reads.
const maxPersonal = 8 << 20

// Entries reads the personal log's latest version of each entry, newest
// first (a missing log has none).
func (p Personal) Entries() ([]knowledge.Entry, error) {
	data, err := p.Store().ReadFile(knowledge.LogName, maxPersonal)
	if errors.Is(err, fs.ErrNotExist) || len(data) == 0 {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var recs []knowledge.Record
	knowledge.Parse(data, func(r knowledge.Record) { recs = append(recs, r) })
	latest := knowledge.Latest(recs)
	out := make([]knowledge.Entry, 0, len(latest))
	for _, r := range latest {
		if r.Entry.Active() {
			out = append(out, r.Entry)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].TS > out[j].TS })
	return out, nil
}

// Handoff is what a session left open on a branch, for the next one.
type Handoff struct {
	Branch  string
	Session string
	Written time.Time
	Items   []string
}

// handoffPath is the file of branch's handoff.
func (p Personal) handoffPath(branch string) string {
	name := knowledge.Slug(branch, 60)
	if name == "" {
		name = "no-branch"
	}
	sum := sha256.Sum256([]byte(branch))
	return filepath.Join(p.Dir, "handoff", name+"-"+hex.EncodeToString(sum[:2])+".md")
}

// WriteHandoff replaces branch's handoff with h's items, or deletes it
// when there are none.
func (p Personal) WriteHandoff(h Handoff) error {
	path := p.handoffPath(h.Branch)
	if len(h.Items) == 0 {
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	}
	var b bytes.Buffer
	b.WriteString("---\n")
	fmt.Fprintf(&b, "branch: %s\nsession_id: %s\nwritten_at: %s\n", strconv.Quote(clean(h.Branch)),
		strconv.Quote(clean(h.Session)), when.Machine(h.Written))
	b.WriteString("---\n\nOpen for the next session:\n\n")
	for _, it := range h.Items {
		fmt.Fprintf(&b, "- %s\n", oneLine(clean(it)))
	}
	return writeOwned(path, b.Bytes())
}

// maxHandoff caps a handoff file read.
const maxHandoff = 64 << 10

// ReadHandoff reads branch's handoff; ok is false when there is none.
func (p Personal) ReadHandoff(branch string) (Handoff, bool) {
	h, ok := readHandoff(p.handoffPath(branch))
	h.Branch = branch
	return h, ok
}

// readHandoff reads a handoff file; ok is false when it holds no item.
func readHandoff(path string) (h Handoff, ok bool) {
	f, err := fsx.OpenRegular(path)
	if err != nil {
		return h, false
	}
	defer f.Close()
	data := make([]byte, maxHandoff)
	n, _ := f.Read(data)
	for _, line := range strings.Split(string(data[:n]), "\n") {
		switch {
		case strings.HasPrefix(line, "branch: "):
			h.Branch, _ = strconv.Unquote(strings.TrimPrefix(line, "branch: "))
		case strings.HasPrefix(line, "written_at: "):
			h.Written, _ = time.Parse(time.RFC3339, strings.TrimPrefix(line, "written_at: "))
		case strings.HasPrefix(line, "session_id: "):
			h.Session, _ = strconv.Unquote(strings.TrimPrefix(line, "session_id: "))
		case strings.HasPrefix(line, "- "):
			h.Items = append(h.Items, strings.TrimPrefix(line, "- "))
		}
	}
	return h, len(h.Items) > 0
}

// oneLine folds s's white space to single spaces.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

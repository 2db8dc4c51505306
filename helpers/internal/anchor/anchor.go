// Package anchor is the anchor map: which entries are anchored to which
// files and directories of the project (an entry's files; a directory
// anchors everything under it), and which
// must-checks to which command prefixes ("terraform apply"). The cache
// writes it beside the search index (.cairn/cache/anchors.map) at every
// sync that changes the index, with the identity of the log files it was
// built from; the hook that runs before every tool call looks a path up
// by a binary search over its sorted lines, reading a few blocks of it by
// offset ([LookupAt]), without parsing the whole map, so that a tool call that touches nothing anchored costs what the capture
// hook's reject path costs. When the map is older than the log (a pull),
// that hook reads the log once instead ([UnanchoredAt]): no line of it
// anchors a note to the call's file, so the map caught up would not
// either. It depends on nothing but the standard
// library's early packages (never path/filepath, os/exec or fsx) and the
// leaves bashcmd and filestat, so that path can read it before the rest
// of the program starts (see package hookgate/toolgate); what it reads
// and writes under .cairn, it reads through the caller's fsx.Root or the
// gate's confined reader.
package anchor

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path"
	"slices"
	"strings"

	"github.com/cairn-dev/cairn/helpers/internal/bashcmd"
	"github.com/cairn-dev/cairn/helpers/internal/filestat"
)

// Name is the map's file name under .cairn/cache.
const Name = "anchors.map"

// File is the map's name under .cairn (for an fsx.Root).
const File = "cache/" + Name

// Sources are the log files, under .cairn, the map is built from (package
// knowledge's LogName and ArchiveName; a test checks they agree).
var Sources = []string{"knowledge.jsonl", "knowledge.archive.jsonl"}

// MaxBytes caps what is read of a map.
const MaxBytes = 32 << 20

// magic is the map's first line: its format.
const magic = "cairn-anchors 1"

// Map is the anchor map.
type Map struct {
	// Sources is the identity of the log files it was built from (see
	// [Identity]).
	Sources string
	// Files are the keys anchored to each path (a file or a directory; a
	// trailing slash is dropped).
	Files map[string][]string
	// Commands are the must-checks anchored to each command prefix.
	Commands map[string][]string
}

// ErrFormat: the data is not an anchor map of this format.
var ErrFormat = errors.New("not an anchor map")

// Identity is the identity of the log files under the .cairn at root (an
// fsx.Root, or the hook gate's reader; StatID gives a missing file's ID as
// zero): what a map built from them records, and what the hook compares.
func Identity(root interface {
	StatID(name string) (filestat.FileID, error)
}) (string, error) {
	ids := make([]filestat.FileID, len(Sources))
	for i, name := range Sources {
		id, err := root.StatID(name)
		if err != nil {
			return "", err
		}
		ids[i] = id
	}
	return FormatIDs(ids...), nil
}

// FormatIDs is the identity of files whose IDs are ids, in order.
func FormatIDs(ids ...filestat.FileID) string {
	var b strings.Builder
	for i, id := range ids {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%d:%d:%d:%d", id.Size, id.Mtime, id.Ctime, id.Ino)
	}
	return b.String()
}

// Encode writes m: the magic line, the sources line, then one line per
// command prefix ("c PREFIX\tKEY KEY") and per path ("f PATH\tKEY KEY"),
// sorted by prefix and path in byte order ([Lookup] searches them so), each
// line's keys in the order given, each once. Paths and prefixes that hold
// a tab or a newline, and keys that hold a blank, are left out. It is
// linear in the keys; [Update] changes a map by the lines that change.
func Encode(m Map) []byte {
	var b bytes.Buffer
	b.WriteString(magic + "\n")
	b.WriteString("src " + oneLine(m.Sources) + "\n")
	write := func(tag string, set map[string][]string) {
		merged := map[string][]string{}
		for n, keys := range set {
			if n, ok := lineName(tag[0], n); ok {
				merged[n] = append(merged[n], keys...)
			}
		}
		names := make([]string, 0, len(merged))
		for n := range merged {
			names = append(names, n)
		}
		slices.Sort(names)
		for _, n := range names {
			// Linear in the keys: a path may hold a hostile log's
			// hundred thousand.
			writeLine(&b, tag[0], n, mergeKeys(merged[n], nil, nil))
		}
	}
	write("c", m.Commands)
	write("f", m.Files)
	return b.Bytes()
}

func oneLine(s string) string {
	return strings.NewReplacer("\n", " ", "\r", " ").Replace(s)
}

// Parse reads a whole map (for tests and tools; the hook uses [Lookup]).
func Parse(data []byte) (Map, error) {
	m := Map{Files: map[string][]string{}, Commands: map[string][]string{}}
	lines := strings.Split(string(data), "\n")
	if len(lines) < 2 || lines[0] != magic || !strings.HasPrefix(lines[1], "src ") {
		return m, ErrFormat
	}
	m.Sources = lines[1][len("src "):]
	for i, l := range lines[2:] {
		if l == "" {
			continue
		}
		name, keys, ok := strings.Cut(l[min(2, len(l)):], "\t")
		if !ok || len(l) < 2 || l[1] != ' ' || name == "" || keys == "" {
			return m, fmt.Errorf("%w: line %d", ErrFormat, i+3)
		}
		switch l[0] {
		case 'f':
			m.Files[name] = append(m.Files[name], strings.Fields(keys)...)
		case 'c':
			m.Commands[name] = append(m.Commands[name], strings.Fields(keys)...)
		default:
			return m, fmt.Errorf("%w: line %d", ErrFormat, i+3)
		}
	}
	return m, nil
}

// SourcesOf returns the identity a map's data records; ok is false for
// data that is not a map.
func SourcesOf(data []byte) (string, bool) {
	rest, ok := bytes.CutPrefix(data, []byte(magic+"\nsrc "))
	if !ok {
		return "", false
	}
	line, _, ok := bytes.Cut(rest, []byte("\n"))
	return string(line), ok
}

// Hit is one anchor a lookup matched: the anchor (a path, a directory
// or a command prefix) and its keys.
type Hit struct {
	Anchor  string
	Command bool
	Keys    []string
}

// commandHas reports whether a command line (blanks folded) runs prefix:
// at its start or after a separator (;, &&, ||, |, a newline), as whole
// words.
func commandHas(command, prefix string) bool {
	for off := 0; off <= len(command); {
		i := strings.Index(command[off:], prefix)
		if i < 0 {
			return false
		}
		at := off + i
		end := at + len(prefix)
		before := strings.TrimRight(command[:at], " ")
		startOK := before == "" || strings.HasSuffix(before, ";") || strings.HasSuffix(before, "&") ||
			strings.HasSuffix(before, "|") || strings.HasSuffix(before, "(") || strings.HasSuffix(before, "sudo")
		endOK := end == len(command) || command[end] == ' ' || command[end] == ';' || command[end] == '&' || command[end] == '|' || command[end] == ')'
		if startOK && endOK {
			return true
		}
		off = at + 1
	}
	return false
}

func foldBlanks(s string) string { return strings.Join(strings.Fields(s), " ") }

// Candidates are the anchors that cover a project-relative path, most
// specific first: the path itself, then each directory above it
// ("a/b/c.go", "a/b", "a"), each by [Clean]. A path Clean refuses has
// none. Anchors are kept without a trailing slash: a file has nothing
// under it, so any anchor covers what is under it.
func Candidates(p string) []string {
	p, ok := Clean(p)
	if !ok {
		return nil
	}
	out := []string{p}
	for dir := path.Dir(p); dir != "." && dir != "/" && dir != ""; dir = path.Dir(dir) {
		out = append(out, dir)
	}
	return out
}

// Covers reports whether anchor (a path, or a directory, as an entry's
// files field holds it) covers the project-relative path p, both read by
// [Clean]: "./src/a.go" covers "src/a.go", "db/migrations/" covers
// "db/migrations/0001.sql".
func Covers(anchor, p string) bool {
	a, ok := Clean(anchor)
	return ok && slices.Contains(Candidates(p), a)
}

// Command is the command prefix a must-check's content guards: its first
// `quoted` span of at least two words whose first is a program name
// ("never run `terraform apply` without a plan from `terraform plan`"
// guards "terraform apply"; the later spans are what to do instead). A
// span that is a path is not one (the entry's files anchor it). ok is
// false when there is none.
func Command(content string) (string, bool) {
	parts := strings.Split(content, "`")
	for i := 1; i < len(parts); i += 2 {
		words := strings.Fields(parts[i])
		if len(words) < 2 || len(words) > 6 || !program(words[0]) {
			continue
		}
		return strings.Join(words, " "), true
	}
	return "", false
}

// program reports whether w reads as a program's name.
func program(w string) bool {
	if w == "" || len(w) > 40 || w[0] == '-' || w[0] == '.' {
		return false
	}
	for _, c := range w {
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}

// Touched is a session's record of the files its agent edited or wrote
// in the current turn, under .cairn (one path a line; the prompt that
// starts a turn removes it): capture anchors what the turn records to
// them. name is the session's record name (see [SessionName]).
func Touched(name string) string { return "local/sessions/" + name + ".files" }

// MaxTouched caps how many of the turn's files an entry is anchored to:
// the most recent.
const MaxTouched = 5

// LastTouched returns up to [MaxTouched] distinct paths of a turn's
// record, the most recent first.
func LastTouched(data []byte) []string {
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	var out []string
	for i := len(lines) - 1; i >= 0 && len(out) < MaxTouched; i-- {
		l := strings.TrimSpace(lines[i])
		if l != "" && !slices.Contains(out, l) {
			out = append(out, l)
		}
	}
	return out
}

// Rel turns a tool's path argument into an anchor's path ([Clean]: relative
// to the project root, forward slashes), given the session's working
// directory; ok is false for a path outside the project (or naming the
// root itself).
func Rel(root, cwd, p string) (string, bool) {
	if p == "" || strings.ContainsAny(p, "\x00\n\t") {
		return "", false
	}
	root = path.Clean(slashed(root))
	p = slashed(p)
	if !path.IsAbs(p) {
		base := slashed(cwd)
		if base == "" || !path.IsAbs(base) {
			base = root
		}
		p = path.Join(base, p)
	}
	p = path.Clean(p)
	rel, ok := strings.CutPrefix(p, root+"/")
	if !ok {
		return "", false
	}
	return Clean(rel)
}

func slashed(p string) string { return strings.ReplaceAll(p, `\`, "/") }

// SessionName is the name of a session's records under
// .cairn/local/sessions: 16 hex digits of the session id's hash, so
// nothing from a payload reaches a path.
func SessionName(session string) string {
	sum := sha256.Sum256([]byte(session))
	return hex.EncodeToString(sum[:8])
}

// NoteTouched appends paths (project-relative) to the session's record of
// the turn's edited files under the .cairn at root (an fsx.Root, or the
// hook gate's writer).
func NoteTouched(root interface {
	OpenFile(name string, flag int, perm os.FileMode) (*os.File, error)
}, session string, paths ...string) error {
	if session == "" || len(paths) == 0 {
		return nil
	}
	f, err := root.OpenFile(Touched(SessionName(session)), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	_, err = f.WriteString(strings.Join(paths, "\n") + "\n")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// maxTouchedBytes caps what is read of a turn's record.
const maxTouchedBytes = 64 << 10

// ReadTouched returns the most recent paths of the session's record of
// the turn's edited files (see [LastTouched]); none when there is none.
func ReadTouched(root interface {
	ReadFile(name string, max int64) ([]byte, error)
}, session string) []string {
	if session == "" {
		return nil
	}
	data, err := root.ReadFile(Touched(SessionName(session)), maxTouchedBytes)
	if err != nil {
		return nil
	}
	return LastTouched(data)
}

// ForgetTouched removes the session's record of the turn's edited files
// (a new turn starts).
func ForgetTouched(root interface{ Remove(name string) error }, session string) error {
	if session == "" {
		return nil
	}
	return root.Remove(Touched(SessionName(session)))
}

// maxCommandPaths caps how many words of a command are looked up.
const maxCommandPaths = 32

// CommandPaths are the words of a shell command that may name files or
// directories: the arguments that are not options, assignments, globs or
// URLs, and the files its redirections write (at most 32). Only those the anchor map holds matter, so a word
// that names nothing costs one lookup.
func CommandPaths(command string) []string {
	var out []string
	var walk func(cmds []*bashcmd.Command)
	walk = func(cmds []*bashcmd.Command) {
		for _, c := range cmds {
			walk(c.Nested)
			args := c.Args()
			words := slices.Concat(args[min(1, len(args)):], c.Redirected())
			for _, w := range words {
				if len(out) == maxCommandPaths {
					return
				}
				if w == "" || w[0] == '-' || strings.Contains(w, "://") || strings.ContainsAny(w, "=\n*?$`") {
					continue
				}
				if !slices.Contains(out, w) {
					out = append(out, w)
				}
			}
		}
	}
	walk(bashcmd.Parse(command))
	return out
}

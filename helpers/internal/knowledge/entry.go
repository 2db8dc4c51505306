// Package knowledge owns cairn's entry model and its shared log: the typed
// entry, its key, the tolerant reader of knowledge.jsonl, ordered
// insertion and rotation under a lock, import, the repair of a merge's
// conflict markers, and the team's config (.cairn/config.json). Every
// line written to the log passes its redaction first (Store.Insert,
// InsertLines, Import, Rewrite): the one choke point. It knows nothing of SQLite
// or git.
package knowledge

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/cairn-dev/cairn/helpers/internal/anchor"
	"github.com/cairn-dev/cairn/helpers/internal/typed"
)

// Types lists the entry type names in the order they are documented, from
// the one table of types in package typed.
var Types = typed.Names()

// Statuses a curation line may give an entry. An entry without a status is
// an ordinary active entry.
const (
	StatusCanonical   = "canonical"
	StatusSuperseded  = "superseded"
	StatusNeedsReview = "needs_review"
	StatusRetracted   = "retracted"
)

// MaxContentRunes caps an entry's content.
const MaxContentRunes = 4000

// Errors a caller can test with errors.Is.
var (
	ErrUnknownType  = errors.New("unknown type")
	ErrEmptyContent = errors.New("empty content")
)

// Entry is one piece of team knowledge: one line of knowledge.jsonl.
// Field order is the order written to the log.
type Entry struct {
	Key          string   `json:"key"`
	Type         string   `json:"type"`
	Content      string   `json:"content"`
	Source       string   `json:"source,omitempty"`
	Agent        string   `json:"agent,omitempty"` // the coding agent that recorded it (source agent): claude, codex, ...
	Tags         []string `json:"tags,omitempty"`
	TS           int64    `json:"ts"`
	Bead         string   `json:"bead,omitempty"`
	Author       string   `json:"author,omitempty"`
	Branch       string   `json:"branch,omitempty"`
	Commit       string   `json:"commit,omitempty"`
	Files        []string `json:"files,omitempty"`
	Blobs        []string `json:"blobs,omitempty"` // the state of the files it was written against (see BlobDigits)
	Session      string   `json:"session,omitempty"`
	Status       string   `json:"status,omitempty"`
	Supersedes   string   `json:"supersedes,omitempty"`
	SupersededBy string   `json:"superseded_by,omitempty"`
	MergedFrom   []string `json:"merged_from,omitempty"`
	ReviewReason string   `json:"review_reason,omitempty"`
	Redacted     []string `json:"redacted,omitempty"`
	// Detail holds the fields of a distilled decision or failure (the
	// session pipeline's); cairn binaries older than it ignore it.
	Detail *Detail `json:"detail,omitempty"`

	// Note is this machine's remark on the entry from its last sanitize
	// run ("needs review: ...", "possibly outdated: ..."). It is shown by
	// recall and never written to the log.
	Note string `json:"-"`
}

// BlobDigits is how many hex digits of a git blob id an entry's Blobs
// keep: enough to tell two versions of one file apart. Blobs are the
// state of the anchored files the entry was written against: "BLOB PATH",
// the file's git blob id as it was on disk then, and its path as in Files
// (see [Entry.Blob]). A file without one (a line of an older cairn, a
// directory) is judged against Commit.
const BlobDigits = 12

// Blob returns the blob an entry recorded for its anchored file p (as
// Files holds it); see [FindBlob].
func (e *Entry) Blob(p string) (blob string, ok bool) { return FindBlob(e.Blobs, p) }

// FindBlob returns the blob id, lower case, that blobs (an entry's Blobs)
// record for the file p; ok is false when they record none, or one too
// short to tell versions apart (under 7 hex digits).
func FindBlob(blobs []string, p string) (blob string, ok bool) {
	for _, b := range blobs {
		if id, file, cut := strings.Cut(b, " "); cut && file == p && len(id) >= 7 {
			return strings.ToLower(id), true
		}
	}
	return "", false
}

// SetBlob records blob (a git blob id, cut to [BlobDigits]) as the state
// of the anchored file p, replacing what was recorded for it.
func (e *Entry) SetBlob(p, blob string) {
	blob = blob[:min(len(blob), BlobDigits)]
	e.Blobs = slices.DeleteFunc(e.Blobs, func(b string) bool {
		_, file, _ := strings.Cut(b, " ")
		return file == p
	})
	e.Blobs = append(e.Blobs, blob+" "+p)
}

// Detail is what the session pipeline's model said of a decision (context,
// alternatives, rationale) or a failure (root cause, resolution,
// prevention), beyond the entry's content.
type Detail struct {
	Context      string   `json:"context,omitempty"`
	Alternatives []string `json:"alternatives,omitempty"`
	Rationale    string   `json:"rationale,omitempty"`
	RootCause    string   `json:"root_cause,omitempty"`
	Resolution   string   `json:"resolution,omitempty"`
	Prevention   string   `json:"prevention,omitempty"`
}

// NormalizeType maps user spellings (LEARNED, Learned:, Must_Check, must
// check: any spelling package typed accepts, in any ASCII case, with
// surrounding blanks and one trailing colon) to a type name, or returns
// ErrUnknownType.
func NormalizeType(s string) (string, error) {
	if t, ok := typed.Lookup(strings.TrimSuffix(strings.TrimSpace(s), ":")); ok {
		return t, nil
	}
	return "", fmt.Errorf("%w %q (want one of %s)", ErrUnknownType, s, strings.Join(typed.Names(), ", "))
}

// ValidType reports whether t is a type name, exactly (see [Types]).
func ValidType(t string) bool { return typed.Valid(t) }

// CleanContent trims content, folds every run of white space (newlines
// included) to one space, drops control characters and caps its length.
func CleanContent(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	var b strings.Builder
	b.Grow(len(s))
	space := false
	n := 0
	for _, r := range s {
		if unicode.IsSpace(r) {
			space = b.Len() > 0
			continue
		}
		if unicode.IsControl(r) {
			continue
		}
		if n >= MaxContentRunes {
			break
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
		n++
	}
	return b.String()
}

// NormalizeContent is the form under which two contents count as the same
// entry: lower case, white space folded.
func NormalizeContent(s string) string {
	return strings.ToLower(CleanContent(s))
}

// MakeKey derives an entry's key from its type and content:
// type, a readable slug of the content, and six hex digits of the SHA-256
// of the type and normalised content. Identical content of the same type
// (up to case and white space) always gets the same key.
func MakeKey(typ, content string) string {
	norm := NormalizeContent(content)
	sum := sha256.Sum256([]byte(typ + "\n" + norm))
	slug := Slug(norm, 48)
	if slug == "" {
		return typ + "-" + hex.EncodeToString(sum[:3])
	}
	return typ + "-" + slug + "-" + hex.EncodeToString(sum[:3])
}

// Slug turns text into lower-case ASCII words joined by '-', cut at a word
// boundary to at most max bytes.
func Slug(s string, max int) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if r < utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(r)
			continue
		}
		dash = true
	}
	out := b.String()
	if len(out) <= max {
		return out
	}
	cut := strings.LastIndexByte(out[:max+1], '-')
	if cut <= 0 {
		return out[:max]
	}
	return out[:cut]
}

// CleanTags makes tags as the model or a person wrote them into tags:
// lower-case hyphenated words (see [Slug]) of at most 40 bytes, empty and
// repeated ones left out.
func CleanTags(list []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, t := range list {
		if t = Slug(t, 40); t != "" && !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}

// SortKey is the position of a key in the log: the SHA-256 of the key.
// Ordering the log by it scatters new lines uniformly, so two branches that
// each add a few entries touch different places of the file.
func SortKey(key string) [32]byte {
	return sha256.Sum256([]byte(key))
}

// Marshal encodes an entry as one compact JSON line without a newline.
// HTML characters are not escaped, so content reads as written.
func Marshal(e *Entry) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(e); err != nil {
		return nil, fmt.Errorf("encode entry %s: %w", e.Key, err)
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// Validate checks that an entry has what every line must have.
func (e *Entry) Validate() error {
	switch {
	case e.Key == "":
		return errors.New("missing key")
	case !ValidType(e.Type):
		return fmt.Errorf("%w %q", ErrUnknownType, e.Type)
	case strings.TrimSpace(e.Content) == "":
		return ErrEmptyContent
	case e.TS <= 0:
		return errors.New("missing ts")
	}
	return nil
}

// Active reports whether the entry belongs in ordinary recall: it is not
// retracted or superseded.
func (e *Entry) Active() bool {
	return e.Status != StatusRetracted && e.Status != StatusSuperseded
}

// MentionedPaths returns the words of content that look like file paths
// inside the project: they contain a slash or end in a short extension,
// are not URLs, and [anchor.Clean] takes them (so "./a.go" is "a.go", and
// "/etc/hosts" or "../x" is none). Surrounding quotes, backticks, brackets
// and trailing punctuation are dropped; a trailing slash (a directory) is
// kept; case is kept.
func MentionedPaths(content string) []string {
	var out []string
	seen := map[string]bool{}
	for _, w := range strings.Fields(content) {
		w = strings.Trim(w, "`'\"()[]{}<>,;:!?*")
		w = strings.TrimRight(w, ".")
		if i := strings.IndexByte(w, ':'); i > 0 && !strings.Contains(w, "://") { // path:line
			w = w[:i]
		}
		if strings.Contains(w, "://") {
			continue
		}
		dir := strings.HasSuffix(w, "/")
		c, ok := anchor.Clean(w)
		if !ok {
			continue
		}
		if w = c; dir {
			w += "/"
		}
		if len(w) < 3 || seen[w] {
			continue
		}
		if !strings.Contains(w, "/") && !hasExtension(w) {
			continue
		}
		seen[w] = true
		out = append(out, w)
	}
	return out
}

func hasExtension(w string) bool {
	i := strings.LastIndexByte(w, '.')
	if i <= 0 || i == len(w)-1 || len(w)-i > 9 {
		return false
	}
	for _, r := range w[i+1:] {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			return false
		}
	}
	return true
}

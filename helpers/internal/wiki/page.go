// Package wiki is cairn's wiki, the user's own (compiled from the daily
// logs of the session pipeline) and the team's (.cairn/wiki, compiled from
// the shared log, one source per entry type): the on-disk format of its
// articles (front matter, Obsidian wikilinks), the reading of a wiki
// directory, the compile state, compile and query (each a call of the
// model through a [model.Func], whose answer is validated before anything
// is written), and lint, which checks a wiki's structure and, unless told
// not to, asks the model for contradictions ([Contradictions]).
//
// A wiki is a directory W. Its articles are W/concepts/*.md,
// W/connections/*.md and W/qa/*.md; W/index.md (one table row per article)
// and W/log.md (the build log) are not articles, and other files are ignored
// except as link targets. Names starting with "." are not part of the wiki
// (W/.compile-state.json, .obsidian, temporary files).
//
// An article starts with front matter between a first line "---" and the
// next "---" line: YAML, read with github.com/goccy/go-yaml so that the
// wiki reads what Obsidian writes when a person edits a page there (block
// lists, single- and double-quoted strings, | and > blocks, empty values)
// rather than a hand-written subset that refused it. Front matter is
// hostile input (a pull brings it): it is capped in size and in YAML
// tokens, and anchors and aliases are refused, since go-yaml has no limit
// on alias expansion. cairn writes front matter in a fixed form that is
// YAML Obsidian reads: strings JSON-quoted, lists as JSON arrays, dates bare.
package wiki

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"time"
)

// Page is one article: its path relative to the wiki without ".md" (like
// "concepts/x"), its front matter, its body (everything after the front
// matter) and the wikilinks of its body.
type Page struct {
	Path  string
	Front FrontMatter
	Body  string
	// Links are the body's wikilinks, with Line counted in the whole file
	// (front matter included), from 1.
	Links []Link
}

// FrontMatter is an article's front matter. Every article has Title,
// Sources, Created and Updated; a connection also has Connects (article
// paths like "concepts/a"); a qa article has Question, Consulted and Filed.
// Extra keeps any other key with its value as one line of YAML: a plain
// one-line scalar as written, any other string JSON-quoted (a YAML
// double-quoted string), a list or map in flow style, an empty value "";
// ExtraString reads a string value.
type FrontMatter struct {
	Title                             string
	Aliases, Tags, Sources, Connects  []string
	Created, Updated, Question, Filed string
	Consulted                         []string
	Extra                             map[string]string
}

// Link is one Obsidian wikilink: [[Target#Heading|Alias]], or an embed
// (![[Target]]) when Embed is set. Target is as written (trimmed), without
// the heading and alias; it is empty for a link to a heading of the same
// page ([[#heading]]). Line counts from 1.
type Link struct {
	Target, Heading, Alias string
	Embed                  bool
	Line                   int
}

// The front matter keys this package knows, in their canonical order.
var knownKeys = []string{"title", "aliases", "tags", "sources", "created", "updated", "connects", "question", "consulted", "filed"}

// dateKeys are the keys whose values are dates, written bare when they are.
var dateKeys = map[string]bool{"created": true, "updated": true, "filed": true}

// ParsePage parses an article's file contents. path is the article's path
// relative to the wiki, with or without ".md". A file without front matter
// is a page with an empty FrontMatter. Front matter that does not parse is
// an error, returned with the page as far as it could be read: the fields
// that parsed (none when the YAML itself does not parse) and the body after
// the front matter, or, when the front matter is never closed, no fields
// and everything after the first line as the body.
func ParsePage(path string, data []byte) (Page, error) {
	p := Page{Path: strings.TrimSuffix(strings.ReplaceAll(path, "\\", "/"), ".md")}
	text := string(bytes.TrimPrefix(data, []byte("\ufeff")))
	first, rest, _ := strings.Cut(text, "\n")
	if !isDelimiter(first) {
		p.Body = text
		p.Links = Links(text)
		return p, nil
	}
	var (
		lines  []string
		offset = 1 // lines before the body
	)
	closed := false
	for rest != "" {
		var line string
		line, rest, _ = strings.Cut(rest, "\n")
		offset++
		if isDelimiter(line) {
			closed = true
			break
		}
		lines = append(lines, strings.TrimSuffix(line, "\r"))
	}
	if !closed {
		p.Front = FrontMatter{}
		_, p.Body, _ = strings.Cut(text, "\n")
		p.Links = shiftLines(Links(p.Body), 1)
		return p, errors.New("front matter: no closing ---")
	}
	p.Body = rest
	p.Links = shiftLines(Links(rest), offset)
	var err error
	p.Front, err = parseFrontMatter(strings.Join(lines, "\n"), 2)
	return p, err
}

// isDelimiter reports whether line is a front matter delimiter, "---".
func isDelimiter(line string) bool {
	return strings.TrimRight(line, " \t\r") == "---"
}

// shiftLines adds n to every link's line.
func shiftLines(links []Link, n int) []Link {
	for i := range links {
		links[i].Line += n
	}
	return links
}

// validKey reports whether k can be a front matter key.
func validKey(k string) bool {
	if k == "" {
		return false
	}
	for _, c := range []byte(k) {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// scalarField is the string field of key k.
func (f *FrontMatter) scalarField(k string) *string {
	switch k {
	case "title":
		return &f.Title
	case "created":
		return &f.Created
	case "updated":
		return &f.Updated
	case "question":
		return &f.Question
	case "filed":
		return &f.Filed
	}
	return nil
}

// listField is the list field of key k.
func (f *FrontMatter) listField(k string) *[]string {
	switch k {
	case "aliases":
		return &f.Aliases
	case "tags":
		return &f.Tags
	case "sources":
		return &f.Sources
	case "connects":
		return &f.Connects
	case "consulted":
		return &f.Consulted
	}
	return nil
}

// RenderFrontMatter writes f in its canonical form, delimiters included
// ("---\n" … "---\n"), ready to go before a body: title, aliases, tags,
// sources, created and updated always, then connects, question, consulted
// and filed when set, then the Extra keys in sorted order. Strings are JSON
// strings (YAML double-quoted strings), lists JSON arrays (YAML flow lists),
// and dates (YYYY-MM-DD or RFC 3339) bare. Extra values are YAML: one that
// is one line of YAML is written as ParsePage keeps it (as it is, for what
// ParsePage returned), any other text JSON-quoted; an Extra key that is not a valid
// key or is a known key is left out. ParsePage reads back the FrontMatter
// it was given.
func RenderFrontMatter(f FrontMatter) string {
	var b strings.Builder
	b.WriteString("---\n")
	for _, k := range knownKeys {
		var v string
		if s := f.scalarField(k); s != nil {
			if *s == "" && (k == "question" || k == "filed") {
				continue
			}
			v = quote(*s)
			if dateKeys[k] && isDate(*s) {
				v = *s
			}
		} else {
			l := *f.listField(k)
			if len(l) == 0 && (k == "connects" || k == "consulted") {
				continue
			}
			v = jsonText(l)
		}
		b.WriteString(k + ": " + v + "\n")
	}
	extra := make([]string, 0, len(f.Extra))
	for k := range f.Extra {
		if validKey(k) && !slices.Contains(knownKeys, k) {
			extra = append(extra, k)
		}
	}
	slices.Sort(extra)
	for _, k := range extra {
		v := strings.TrimSpace(f.Extra[k])
		if _, kept, ok := yamlValue(v); ok {
			v = kept
		} else {
			v = quote(v)
		}
		if v == "" {
			b.WriteString(k + ":\n")
			continue
		}
		b.WriteString(k + ": " + v + "\n")
	}
	b.WriteString("---\n")
	return b.String()
}

// quote is s as a JSON string.
func quote(s string) string { return jsonText(s) }

// jsonText is v as compact JSON without HTML escaping; an empty list is [].
func jsonText(v any) string {
	if l, ok := v.([]string); ok && l == nil {
		return "[]"
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v) // strings and string slices always encode
	return strings.TrimSuffix(buf.String(), "\n")
}

// isDate reports whether s is a date (YYYY-MM-DD) or an RFC 3339 time, which
// front matter writes bare.
func isDate(s string) bool {
	if _, err := time.Parse(time.DateOnly, s); err == nil {
		return true
	}
	_, err := time.Parse(time.RFC3339, s)
	return err == nil && !strings.ContainsAny(s, " \t\r\n\"[")
}

// Links returns the Obsidian wikilinks of a Markdown body, in order, with
// lines counted from 1: [[t]], [[t|alias]], [[t#heading]],
// [[t#heading|alias]] and embeds ![[t]]. Links inside fenced code blocks
// (``` or ~~~, at any indentation; an unclosed fence runs to the end) and
// inside code spans (which cross no blank line and no heading) do not
// count, nor do escaped brackets (\[[). A "\|" in a link, as in a table cell, separates
// the alias like "|". A link is on one line; [[]] and [[|a]] are not links.
func Links(body string) []Link {
	var (
		links []Link
		para  strings.Builder // the current paragraph, outside fences
		start = 1             // line of the paragraph's first line
		fence string          // the open fence's marker, "" outside
	)
	flush := func(next int) {
		if para.Len() > 0 {
			links = scanText(para.String(), start, links)
			para.Reset()
		}
		start = next
	}
	n := 0
	for rest := body; rest != ""; {
		var line string
		line, rest, _ = strings.Cut(rest, "\n")
		n++
		trimmed := strings.TrimLeft(line, " \t")
		switch {
		case fence != "":
			if closesFence(trimmed, fence) {
				fence = ""
			}
			start = n + 1
		case opensFence(trimmed) != "":
			flush(n + 1)
			fence = opensFence(trimmed)
		case strings.TrimSpace(line) == "":
			flush(n + 1)
		case isHeading(trimmed):
			flush(n)
			para.WriteString(line)
			flush(n + 1)
		default:
			if para.Len() > 0 {
				para.WriteByte('\n')
			}
			para.WriteString(line)
		}
	}
	flush(n + 1)
	return links
}

// isHeading reports whether line is an ATX heading (one to six "#", then a
// space or nothing), a block of its own that no code span crosses.
func isHeading(line string) bool {
	n := 0
	for n < len(line) && line[n] == '#' {
		n++
	}
	return n >= 1 && n <= 6 && (n == len(line) || line[n] == ' ' || line[n] == '\t' || line[n] == '\r')
}

// opensFence returns the marker of the code fence line opens (three or more
// backticks or tildes; a backtick fence's info string has no backtick), or "".
func opensFence(line string) string {
	if len(line) < 3 || line[0] != '`' && line[0] != '~' {
		return ""
	}
	c := line[0]
	i := 0
	for i < len(line) && line[i] == c {
		i++
	}
	if i < 3 || c == '`' && strings.IndexByte(line[i:], '`') >= 0 {
		return ""
	}
	return line[:i]
}

// closesFence reports whether line closes the fence opened by marker: the
// same character at least as many times, then only spaces.
func closesFence(line, marker string) bool {
	i := 0
	for i < len(line) && line[i] == marker[0] {
		i++
	}
	return i >= len(marker) && strings.TrimSpace(line[i:]) == ""
}

// scanText appends the wikilinks of one paragraph (lines joined by "\n",
// the first being line first) to links, skipping code spans.
func scanText(text string, first int, links []Link) []Link {
	line := first
	for i := 0; i < len(text); {
		switch c := text[i]; {
		case c == '\n':
			line++
			i++
		case c == '\\' && i+1 < len(text) && isPunct(text[i+1]):
			i += 2
		case c == '`':
			run := backtickRun(text, i)
			if end := closingRun(text, i+run, run); end >= 0 {
				line += strings.Count(text[i:end], "\n")
				i = end
			} else {
				i += run
			}
		case c == '[' && strings.HasPrefix(text[i:], "[["):
			embed := i > 0 && text[i-1] == '!' && !(i > 1 && text[i-2] == '\\')
			l, end, ok := parseLink(text, i)
			if !ok {
				i++
				continue
			}
			if l.Target != "" || l.Heading != "" {
				l.Embed, l.Line = embed, line
				links = append(links, l)
			}
			i = end
		default:
			i++
		}
	}
	return links
}

// isPunct reports whether c is ASCII punctuation, which a backslash escapes.
func isPunct(c byte) bool {
	return c >= '!' && c <= '/' || c >= ':' && c <= '@' || c >= '[' && c <= '`' || c >= '{' && c <= '~'
}

// backtickRun is the length of the run of backticks at text[i:].
func backtickRun(text string, i int) int {
	n := 0
	for i+n < len(text) && text[i+n] == '`' {
		n++
	}
	return n
}

// closingRun returns the index just after the first run of exactly n
// backticks at or after from, or -1.
func closingRun(text string, from, n int) int {
	for i := from; i < len(text); {
		j := strings.IndexByte(text[i:], '`')
		if j < 0 {
			return -1
		}
		i += j
		run := backtickRun(text, i)
		if run == n {
			return i + run
		}
		i += run
	}
	return -1
}

// parseLink parses the wikilink whose "[[" is at text[i:]; end is the index
// after its "]]". It is not a link if a line break or a "[" comes first.
func parseLink(text string, i int) (l Link, end int, ok bool) {
	inner := text[i+2:]
	j := strings.IndexAny(inner, "[]\n")
	if j < 0 || inner[j] != ']' || !strings.HasPrefix(inner[j:], "]]") {
		return Link{}, 0, false
	}
	inner = inner[:j]
	target, alias, hasAlias := strings.Cut(inner, "|")
	if hasAlias {
		target = strings.TrimSuffix(target, "\\")
		l.Alias = strings.TrimSpace(alias)
	}
	target, heading, _ := strings.Cut(target, "#")
	l.Target, l.Heading = strings.TrimSpace(target), strings.TrimSpace(heading)
	return l, i + 2 + j + 2, true
}

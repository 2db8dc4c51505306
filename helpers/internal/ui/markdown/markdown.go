// Package markdown renders untrusted Markdown (wiki pages, session
// exports) to HTML for cairn ui. It is the only importer of goldmark.
//
// What it renders cannot run or load anything: raw HTML is dropped
// (goldmark's default), a link or an image survives only when its
// destination is an http(s) URL, an in-app path ("/...", not "//...") or a
// fragment (an image only when it is an in-app path), checked as written
// and as the browser reads it once entities and percent escapes are
// decoded (so "/&#47;host" is refused), and every character that would reorder or hide text is shown
// escaped (see [untrusted.ForTerminal]). Obsidian wikilinks ([[target]],
// [[target#heading|alias]]) become links through a resolver the caller
// gives.
package markdown

import (
	"bytes"
	"html"
	"html/template"
	"net/url"
	"strings"

	"github.com/cairn-dev/cairn/helpers/internal/untrusted"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// Resolve maps a wikilink's target to an in-app URL; ok is false when it
// names nothing (the link is then shown as text, marked broken).
type Resolve func(target string) (url string, ok bool)

// Render renders src. resolve may be nil (every wikilink is broken).
func Render(src string, resolve Resolve) template.HTML {
	md := goldmark.New(goldmark.WithParserOptions(
		parser.WithInlineParsers(util.Prioritized(&wikiParser{resolve: resolve}, 199)),
		parser.WithASTTransformers(util.Prioritized(safeLinks{}, 100)),
		parser.WithAutoHeadingID(),
	))
	var out bytes.Buffer
	if err := md.Convert([]byte(Clean(src)), &out); err != nil {
		return template.HTML(template.HTMLEscapeString(src))
	}
	return template.HTML(out.String()) //nolint:gosec // goldmark without raw HTML, links vetted by safeLinks
}

// Clean shows every control or invisible character of src escaped, line
// by line (tabs become four spaces first, so code stays indented).
func Clean(src string) string {
	lines := strings.Split(strings.ReplaceAll(strings.ReplaceAll(src, "\r\n", "\n"), "\t", "    "), "\n")
	for i, l := range lines {
		lines[i] = untrusted.ForTerminal(l)
	}
	return strings.Join(lines, "\n")
}

// Decoded is dest as a browser reads it from the page: HTML entities and
// percent escapes decoded, again and again until nothing changes (the
// renderer decodes entities itself, so a check of the raw destination is
// not a check of what the browser sees).
func Decoded(dest string) string {
	d := dest
	for range 8 {
		next := html.UnescapeString(d)
		if u, err := url.PathUnescape(next); err == nil {
			next = u
		}
		if next == d {
			break
		}
		d = next
	}
	return d
}

// Allowed reports whether a link's destination may stay a link: an
// http(s) URL, an in-app path or a fragment, as written and as the
// browser reads it ([Decoded]).
func Allowed(dest string) bool { return allowed(dest) && allowed(Decoded(dest)) }

func allowed(dest string) bool {
	if strings.ContainsFunc(dest, func(r rune) bool { return r < 0x20 || r == 0x7f || r == '\\' }) {
		return false
	}
	d := strings.ToLower(strings.TrimSpace(dest))
	switch {
	case strings.HasPrefix(d, "http://"), strings.HasPrefix(d, "https://"):
		return true
	case strings.HasPrefix(d, "//"), strings.HasPrefix(d, `/\`):
		return false
	case strings.HasPrefix(d, "/"), strings.HasPrefix(d, "#"):
		return true
	}
	return false
}

// InApp reports whether an image's source is served by the app itself:
// a path ("/..."), never another host. A remote image would tell its host
// who reads the page, and when.
func InApp(src string) bool { return inApp(src) && inApp(Decoded(src)) }

func inApp(src string) bool {
	d := strings.TrimSpace(src)
	return strings.HasPrefix(d, "/") && !strings.HasPrefix(d, "//") && !strings.ContainsFunc(d, func(r rune) bool { return r < 0x20 || r == 0x7f || r == '\\' })
}

// safeLinks replaces every link, image and autolink whose destination is
// not Allowed with its text.
type safeLinks struct{}

func (safeLinks) Transform(doc *ast.Document, reader text.Reader, _ parser.Context) {
	src := reader.Source()
	var bad []ast.Node
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch l := n.(type) {
		case *ast.Link:
			if !Allowed(string(l.Destination)) {
				bad = append(bad, n)
			}
		case *ast.Image:
			if !InApp(string(l.Destination)) {
				bad = append(bad, n)
			}
		case *ast.AutoLink:
			if l.AutoLinkType != ast.AutoLinkURL || !Allowed(string(l.URL(src))) {
				bad = append(bad, n)
			}
		}
		return ast.WalkContinue, nil
	})
	for _, n := range bad {
		parent := n.Parent()
		if parent == nil {
			continue
		}
		if a, ok := n.(*ast.AutoLink); ok {
			parent.ReplaceChild(parent, n, ast.NewString(a.Label(src)))
			continue
		}
		for c := n.FirstChild(); c != nil; {
			next := c.NextSibling()
			parent.InsertBefore(parent, n, c)
			c = next
		}
		parent.RemoveChild(parent, n)
	}
}

// wikiParser reads [[target#heading|alias]] and ![[target]] as links.
type wikiParser struct{ resolve Resolve }

func (p *wikiParser) Trigger() []byte { return []byte{'[', '!'} }

func (p *wikiParser) Parse(_ ast.Node, block text.Reader, _ parser.Context) ast.Node {
	line, _ := block.PeekLine()
	skip := 0
	if bytes.HasPrefix(line, []byte("![[")) {
		skip = 1
	}
	if !bytes.HasPrefix(line[skip:], []byte("[[")) {
		return nil
	}
	rest := line[skip+2:]
	end := bytes.Index(rest, []byte("]]"))
	if end <= 0 || bytes.ContainsAny(rest[:end], "[\n") {
		return nil
	}
	inner := strings.ReplaceAll(string(rest[:end]), `\|`, "|")
	target, alias, _ := strings.Cut(inner, "|")
	target, heading, _ := strings.Cut(target, "#")
	target, alias = strings.TrimSpace(target), strings.TrimSpace(alias)
	if target == "" && heading == "" {
		return nil
	}
	block.Advance(skip + 2 + end + 2)
	label := alias
	if label == "" {
		label = target
		if heading != "" {
			label = strings.TrimSpace(target + " › " + heading)
		}
	}
	var url string
	ok := false
	switch {
	case target == "":
		url, ok = "#"+anchor(heading), true
	case p.resolve != nil:
		url, ok = p.resolve(target)
	}
	if !ok || !Allowed(url) {
		s := ast.NewEmphasis(1)
		s.SetAttributeString("class", []byte("broken"))
		s.AppendChild(s, ast.NewString([]byte(label)))
		return s
	}
	l := ast.NewLink()
	if heading != "" && target != "" {
		url += "#" + anchor(heading)
	}
	l.Destination = []byte(url)
	l.SetAttributeString("class", []byte("wikilink"))
	l.AppendChild(l, ast.NewString([]byte(label)))
	return l
}

// anchor is a heading as a fragment: lowercase words joined by "-".
func anchor(heading string) string {
	var b strings.Builder
	for _, f := range strings.FieldsFunc(strings.ToLower(heading), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127)
	}) {
		if b.Len() > 0 {
			b.WriteByte('-')
		}
		b.WriteString(f)
	}
	return b.String()
}

package wiki

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestParsePage: front matter in every value form, and every malformation,
// parses to the fields it holds, the body after it, and an error only when
// it is malformed; links carry their line in the whole file.
func TestParsePage(t *testing.T) {
	tests := []struct {
		name      string
		path      string
		data      string
		wantPath  string
		wantFront FrontMatter
		wantBody  string
		wantLinks []Link
		wantErr   string // a substring; "" for no error
	}{
		{
			name: "concept, every value form",
			path: "concepts/x.md",
			data: "---\n" +
				`title: "Lock order"` + "\n" +
				`aliases: ["lock ordering", "locks"]` + "\n" +
				"tags: []\n" +
				`sources: ["daily/2026-11-24.md"]` + "\n" +
				"created: 2026-11-24\n" +
				`updated: "2026-11-25"` + "\n" +
				"summary: bare text, then more\n" +
				"\n" +
				"---\n" +
				"# Lock order\n\nSee [[concepts/y]].\n",
			wantPath: "concepts/x",
			wantFront: FrontMatter{
				Title: "Lock order", Aliases: []string{"lock ordering", "locks"},
				Sources: []string{"daily/2026-11-24.md"}, Created: "2026-11-24", Updated: "2026-11-25",
				Extra: map[string]string{"summary": "bare text, then more"},
			},
			wantBody:  "# Lock order\n\nSee [[concepts/y]].\n",
			wantLinks: []Link{{Target: "concepts/y", Line: 13}},
		},
		{
			name:      "connection and qa keys, bare title, empty list",
			path:      "qa/why",
			data:      "---\ntitle: Why not   \nconnects: [\"concepts/a\",\"concepts/b\"]\nquestion: \"Why?\"\nconsulted:\nfiled: 2026-11-24T10:00:00Z\n---\nbody",
			wantPath:  "qa/why",
			wantFront: FrontMatter{Title: "Why not", Connects: []string{"concepts/a", "concepts/b"}, Question: "Why?", Filed: "2026-11-24T10:00:00Z"},
			wantBody:  "body",
		},
		{
			name:      "CRLF and BOM",
			path:      "concepts/c",
			data:      "\ufeff---\r\ntitle: \"C\"\r\n---\r\n[[a]]\r\n",
			wantPath:  "concepts/c",
			wantFront: FrontMatter{Title: "C"},
			wantBody:  "[[a]]\r\n",
			wantLinks: []Link{{Target: "a", Line: 4}},
		},
		{
			name:      "no front matter",
			path:      "concepts/n",
			data:      "# N\n[[a]]\n",
			wantPath:  "concepts/n",
			wantBody:  "# N\n[[a]]\n",
			wantLinks: []Link{{Target: "a", Line: 2}},
		},
		{
			name:      "front matter never closed",
			path:      "concepts/u",
			data:      "---\ntitle: \"U\"\n[[a]]\n",
			wantPath:  "concepts/u",
			wantBody:  "title: \"U\"\n[[a]]\n",
			wantLinks: []Link{{Target: "a", Line: 3}},
			wantErr:   "no closing ---",
		},
		{
			name:      "list where a string belongs, string where a list belongs",
			path:      "concepts/l",
			data:      "---\ntitle: [\"T\"]\ntags: go\nupdated: 2026-11-24\n---\n",
			wantPath:  "concepts/l",
			wantFront: FrontMatter{Updated: "2026-11-24"},
			wantErr:   "line 3: tags: want a list of strings, not a string",
		},
		{
			name:     "YAML that does not parse: nothing is read",
			path:     "concepts/r",
			data:     "---\ntitle: \"A\"\ntags:\n  - go\ncreated: \"2026\n---\n",
			wantPath: "concepts/r",
			wantErr:  "front matter line 5: could not find end character of double-quoted text",
		},
		{
			name:     "repeated key",
			path:     "concepts/r",
			data:     "---\ntitle: \"A\"\ntitle: \"B\"\n---\n",
			wantPath: "concepts/r",
			wantErr:  "front matter line 3: mapping key \"title\" already defined",
		},
		{
			name:      "number items read as written",
			path:      "concepts/s",
			data:      "---\nsources: [1, 2.50]\n---\n",
			wantPath:  "concepts/s",
			wantFront: FrontMatter{Sources: []string{"1", "2.50"}},
		},
		{
			name:     "list and map items",
			path:     "concepts/s",
			data:     "---\nsources: [[1], {a: b}]\n---\n",
			wantPath: "concepts/s",
			wantErr:  "front matter line 2: sources: item 1: want a string, not a list",
		},
		{
			name: "every YAML form Obsidian writes",
			path: "concepts/o",
			data: "---\n" +
				"title: 'It''s \"here\"'\n" +
				"aliases:\n- one\n- 'two: 2'\n" +
				"tags:\n  - retry\n  - \"back off\"\n" +
				"sources: [daily/2026-11-24.md, 'daily/2026-11-25.md']\n" +
				"created: 2026-11-24\n" +
				"updated: \"2026-11-25\"\n" +
				"question: >\n  Why does it\n  back off?\n" +
				"summary: |\n  Line one.\n  Line two.\n" +
				"empty:\n" +
				"count: 3 # a comment\n" +
				"nested:\n  a: [x, 'y']\n  b: |-\n    z\n" +
				"cssclasses: []\n" +
				"---\nbody\n",
			wantPath: "concepts/o",
			wantFront: FrontMatter{
				Title: `It's "here"`, Aliases: []string{"one", "two: 2"}, Tags: []string{"retry", "back off"},
				Sources: []string{"daily/2026-11-24.md", "daily/2026-11-25.md"}, Created: "2026-11-24", Updated: "2026-11-25",
				Question: "Why does it back off?\n",
				Extra: map[string]string{"summary": `"Line one.\nLine two.\n"`, "empty": "", "count": "3",
					"nested": `{"a": ["x", "y"], "b": "z"}`, "cssclasses": "[]"},
			},
			wantBody: "body\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := ParsePage(tt.path, []byte(tt.data))
			if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Fatalf("error = %v, want %q", err, tt.wantErr)
			}
			if p.Path != tt.wantPath {
				t.Errorf("Path = %q, want %q", p.Path, tt.wantPath)
			}
			if !reflect.DeepEqual(p.Front, tt.wantFront) {
				t.Errorf("Front = %#v\nwant    %#v", p.Front, tt.wantFront)
			}
			if p.Body != tt.wantBody {
				t.Errorf("Body = %q, want %q", p.Body, tt.wantBody)
			}
			if !reflect.DeepEqual(p.Links, tt.wantLinks) {
				t.Errorf("Links = %+v, want %+v", p.Links, tt.wantLinks)
			}
		})
	}
}

// TestParsePageErrorsEveryLine: every bad key of a front matter is named,
// with its line, and the keys that read are kept.
func TestParsePageErrorsEveryLine(t *testing.T) {
	p, err := ParsePage("concepts/r", []byte("---\ntitle: [\"A\"]\ntags: {a: b}\nsources:\n  - ok\n  -\nbad key: x\nupdated: 2026-11-24\n---\n"))
	for _, want := range []string{
		"front matter line 2: title: want a string, not a list",
		"front matter line 3: tags: want a list of strings, not a map",
		"front matter line 4: sources: item 2 is empty",
		"front matter line 7: want key: value",
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v lacks %q", err, want)
		}
	}
	if p.Front.Updated != "2026-11-24" {
		t.Errorf("Updated = %q, want the key that read", p.Front.Updated)
	}
}

// TestLinks: every wikilink form is read with its parts and line; what is
// code, escaped, or not a wikilink is not.
func TestLinks(t *testing.T) {
	tests := []struct {
		name string
		body string
		want []Link
	}{
		{"plain", "a [[x]] b", []Link{{Target: "x", Line: 1}}},
		{"alias", "[[x|the X]]", []Link{{Target: "x", Alias: "the X", Line: 1}}},
		{"heading", "[[concepts/x#Why it matters]]", []Link{{Target: "concepts/x", Heading: "Why it matters", Line: 1}}},
		{"heading and alias", "[[x#h|a]]", []Link{{Target: "x", Heading: "h", Alias: "a", Line: 1}}},
		{"block reference", "[[x#^abc]]", []Link{{Target: "x", Heading: "^abc", Line: 1}}},
		{"embed", "![[x]] and \\![[y]]", []Link{{Target: "x", Embed: true, Line: 1}, {Target: "y", Line: 1}}},
		{"heading of the same page", "[[#Intro]]", []Link{{Heading: "Intro", Line: 1}}},
		{"spaces trimmed", "[[ x # h | a ]]", []Link{{Target: "x", Heading: "h", Alias: "a", Line: 1}}},
		{"escaped pipe in a table", "| [[concepts/x\\|X]] | s |", []Link{{Target: "concepts/x", Alias: "X", Line: 1}}},
		{"lines counted", "one\n\ntwo [[a]]\nthree [[b]] [[c]]\n", []Link{{Target: "a", Line: 3}, {Target: "b", Line: 4}, {Target: "c", Line: 4}}},
		{"backtick fence", "```go\n[[in]]\n```\n[[out]]", []Link{{Target: "out", Line: 4}}},
		{"tilde fence, longer closer", "~~~\n[[in]]\n~~~~\n[[out]]", []Link{{Target: "out", Line: 4}}},
		{"indented fence in a list", "- item\n    ```\n    [[in]]\n    ```\n- [[out]]", []Link{{Target: "out", Line: 5}}},
		{"shorter run does not close", "````\n```\n[[in]]\n````\n[[out]]", []Link{{Target: "out", Line: 5}}},
		{"unclosed fence runs to the end", "[[a]]\n```\n[[in]]\n", []Link{{Target: "a", Line: 1}}},
		{"backtick fence info with a backtick is not a fence", "``` a`b\n[[x]]", []Link{{Target: "x", Line: 2}}},
		{"inline code", "`[[in]]` and [[out]]", []Link{{Target: "out", Line: 1}}},
		{"double backtick span", "``a ` [[in]]`` [[out]]", []Link{{Target: "out", Line: 1}}},
		{"code span across a line break", "`a\n[[in]]` [[out]]", []Link{{Target: "out", Line: 2}}},
		{"code span stops at a blank line", "`a\n\n[[out]]`", []Link{{Target: "out", Line: 3}}},
		{"code span stops at a heading", "`a\n## [[out]] `", []Link{{Target: "out", Line: 2}}},
		{"unmatched backtick is literal", "` [[x]]", []Link{{Target: "x", Line: 1}}},
		{"escaped backtick", "\\`[[x]]`", []Link{{Target: "x", Line: 1}}},
		{"escaped bracket", "\\[[x]]", nil},
		{"empty", "[[]] [[|a]] [[ ]]", nil},
		{"not across lines", "[[a\nb]]", nil},
		{"bracket inside", "[[a]b]] [[a[b]]", nil},
		{"nested opener keeps the inner", "[[a [[b]]", []Link{{Target: "b", Line: 1}}},
		{"markdown link is not a wikilink", "[x](y.md) [x]", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Links(tt.body); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Links(%q) = %+v, want %+v", tt.body, got, tt.want)
			}
		})
	}
}

// TestRenderFrontMatter: the canonical form has keys in a fixed order,
// strings JSON-quoted, lists as JSON arrays, dates bare; ParsePage reads it
// back to the same FrontMatter.
func TestRenderFrontMatter(t *testing.T) {
	tests := []struct {
		name string
		f    FrontMatter
		want string
	}{
		{
			name: "empty: the required keys",
			want: "---\ntitle: \"\"\naliases: []\ntags: []\nsources: []\ncreated: \"\"\nupdated: \"\"\n---\n",
		},
		{
			name: "every field",
			f: FrontMatter{
				Title: `Say "hi" <b>`, Aliases: []string{"a"}, Tags: []string{"t1", "t2"}, Sources: []string{"daily/2026-11-24.md"},
				Created: "2026-11-24", Updated: "2026-11-25T10:00:00Z", Connects: []string{"concepts/a", "concepts/b"},
				Question: "Why?", Consulted: []string{"concepts/a"}, Filed: "not a date",
				Extra: map[string]string{"zeta": `"z"`, "alpha": "[1]", "empty": "", "multi": "a\nb", "title": "dropped", "bad key": "dropped"},
			},
			want: "---\n" +
				"title: \"Say \\\"hi\\\" <b>\"\n" +
				"aliases: [\"a\"]\n" +
				"tags: [\"t1\",\"t2\"]\n" +
				"sources: [\"daily/2026-11-24.md\"]\n" +
				"created: 2026-11-24\n" +
				"updated: 2026-11-25T10:00:00Z\n" +
				"connects: [\"concepts/a\",\"concepts/b\"]\n" +
				"question: \"Why?\"\n" +
				"consulted: [\"concepts/a\"]\n" +
				"filed: \"not a date\"\n" +
				"alpha: [1]\n" +
				"empty:\n" +
				"multi: \"a\\nb\"\n" +
				"zeta: \"z\"\n" +
				"---\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := RenderFrontMatter(tt.f)
			if got != tt.want {
				t.Fatalf("RenderFrontMatter =\n%s\nwant\n%s", got, tt.want)
			}
			p, err := ParsePage("concepts/x", []byte(got+"body\n"))
			if err != nil {
				t.Fatalf("ParsePage of the rendering: %v", err)
			}
			if p.Body != "body\n" {
				t.Errorf("Body = %q", p.Body)
			}
			if again := RenderFrontMatter(p.Front); again != got {
				t.Errorf("rendering of the parse =\n%s\nwant\n%s", again, got)
			}
		})
	}
}

// TestReadWiki: every article is read in path order; index.md, log.md,
// other directories, non-Markdown and dot files are not articles; a
// symlink and an oversized file are skipped and reported; a page whose
// front matter is broken is returned and reported.
func TestReadWiki(t *testing.T) {
	w := writeWiki(t, map[string]string{
		"concepts/b.md":       art("B", "[[a]]"),
		"concepts/a.md":       art("A", ""),
		"connections/c.md":    art("C", ""),
		"qa/q.md":             "---\ntitle: [\n---\nbody\n",
		"qa/big.md":           strings.Repeat("x", MaxFileSize+1),
		"concepts/image.png":  "png",
		"concepts/.hidden.md": art("H", ""),
		"concepts/sub/d.md":   art("D", ""),
		"index.md":            "| Article |\n",
		"log.md":              "## log\n",
		"notes/n.md":          art("N", ""),
	})
	symlinked := symlink(t, filepath.Join(w, "concepts", "a.md"), filepath.Join(w, "concepts", "link.md"))
	pages, errs := ReadWiki(w)
	var paths []string
	for _, p := range pages {
		paths = append(paths, p.Path)
	}
	if want := []string{"concepts/a", "concepts/b", "connections/c", "qa/q"}; !reflect.DeepEqual(paths, want) {
		t.Errorf("pages %v, want %v", paths, want)
	}
	if pages[1].Front.Title != "B" || len(pages[1].Links) != 1 {
		t.Errorf("concepts/b read as %+v", pages[1])
	}
	got := map[string]string{}
	for _, err := range errs {
		var pe *PageError
		if !errors.As(err, &pe) {
			t.Fatalf("error %v is not a *PageError", err)
		}
		got[pe.Path] = pe.Err.Error()
	}
	want := map[string]string{"qa/big.md": "over 1048576 bytes, not read", "qa/q.md": "front matter line 2: sequence end token ']' not found"}
	if symlinked {
		want["concepts/link.md"] = "symlink, not read"
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("errors %v, want %v", got, want)
	}
	if _, errs := ReadWiki(filepath.Join(w, "missing")); len(errs) != 1 {
		t.Errorf("missing wiki: errors %v, want one", errs)
	}
}

// symlink makes link point to target, and reports whether the system allows
// it (Windows without the privilege does not).
func symlink(t *testing.T, target, link string) bool {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Logf("no symlink: %v", err)
		return false
	}
	return true
}

// pageSeeds are pages with every front matter and link form and defect.
var pageSeeds = []string{
	"",
	"---",
	"---\n",
	"---\n---\n",
	"---\ntitle: \"T\"\naliases: [\"a\"]\nsources: [\"daily/2026-11-24.md\"]\ncreated: 2026-11-24\nupdated: 2026-11-24\nx: y\n---\n# T\n[[a]] [[b|c]] [[d#e]] [[f#g|h]] ![[i]]\n",
	"\ufeff---\r\ntitle: T\r\n---\r\nbody\r\n",
	"---\ntitle: [\ntags: x\ntitle: again\n  - item\n---\n",
	"---\ntitle: \"\\ud800\"\nq: \xff\n---\n",
	"```\n[[a]]\n```\n`[[b]]` \\[[c]] [[d\\|e]]\n",
	"~~~~\n[[a]]\n~~~\n",
	"``a`` [[b]]`` ` ``[[c]]",
	"[[a[[b]]]] [[]] [[#h]] ![[x.png]]",
}

// FuzzParsePage: ParsePage never panics; a page it accepts renders to a
// canonical front matter that parses back to the same fields and body, and
// whose rendering is stable; every link's line is within the file.
func FuzzParsePage(f *testing.F) {
	for _, s := range pageSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ParsePage("concepts/x.md", data)
		if p.Path != "concepts/x" {
			t.Fatalf("Path = %q", p.Path)
		}
		lines := strings.Count(string(data), "\n") + 1
		for _, l := range p.Links {
			if l.Line < 1 || l.Line > lines {
				t.Fatalf("link %+v outside the file's %d lines", l, lines)
			}
		}
		if err != nil {
			return
		}
		rendered := RenderFrontMatter(p.Front)
		q, err := ParsePage("concepts/x", []byte(rendered+p.Body))
		if err != nil {
			t.Fatalf("rendering does not parse: %v\n%s", err, rendered)
		}
		if !reflect.DeepEqual(q.Front, p.Front) {
			t.Fatalf("front matter changed through rendering:\n%#v\n%#v", p.Front, q.Front)
		}
		if q.Body != p.Body {
			t.Fatalf("body changed through rendering: %q, %q", p.Body, q.Body)
		}
		if again := RenderFrontMatter(q.Front); again != rendered {
			t.Fatalf("rendering not stable:\n%s\n%s", rendered, again)
		}
	})
}

// FuzzLinks: Links never panics; every link is on a line of the body, has
// a target or a heading, no line break in any part and no "|" or "#" in its
// target; the same body gives the same links.
func FuzzLinks(f *testing.F) {
	for _, s := range pageSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		links := Links(body)
		lines := strings.Split(body, "\n")
		for _, l := range links {
			if l.Line < 1 || l.Line > len(lines) {
				t.Fatalf("link %+v outside the body's %d lines", l, len(lines))
			}
			if !strings.Contains(lines[l.Line-1], "[[") {
				t.Fatalf("link %+v on a line without [[: %q", l, lines[l.Line-1])
			}
			if l.Target == "" && l.Heading == "" {
				t.Fatalf("empty link %+v", l)
			}
			if strings.ContainsAny(l.Target, "|#[]\n") || strings.ContainsAny(l.Heading+l.Alias, "[]\n") {
				t.Fatalf("bad link parts %+v", l)
			}
			if !utf8.ValidString(body) {
				continue
			}
			if !utf8.ValidString(l.Target + l.Heading + l.Alias) {
				t.Fatalf("invalid UTF-8 from valid input: %+v", l)
			}
		}
		if again := Links(body); !reflect.DeepEqual(again, links) {
			t.Fatalf("not deterministic: %+v, %+v", links, again)
		}
	})
}

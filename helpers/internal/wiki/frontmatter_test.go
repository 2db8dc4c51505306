package wiki

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// obsidianPage is an article as Obsidian's property editor saves it after
// a person edits it: block lists, a single-quoted title, a multi-line
// summary, aliases as a block list, an empty property and one cairn does
// not know.
const obsidianPage = `---
title: 'Retry: it''s backoff'
aliases:
  - retries
  - "back-off"
tags:
  - retry
  - networking
sources:
  - daily/2026-11-23.md
created: 2026-11-23
updated: 2026-11-25
summary: |
  Retries back off exponentially.
  The cap is 30 s.
cssclasses:
publish: true
---
# Retry

`

// TestObsidianEditedPage: a page edited the Obsidian way passes wiki lint,
// reads back with the right values, and renders to front matter that
// reads back the same.
func TestObsidianEditedPage(t *testing.T) {
	w := writeWiki(t, map[string]string{
		"concepts/retry.md": obsidianPage + words(210) + "\n\nSee [[concepts/other]].\n",
		"concepts/other.md": art("Other", "See [[concepts/retry]]."),
	})
	r, err := Lint(w, nil, LintOptions{StructuralOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range r.Findings {
		if f.Severity == SeverityError || f.Check == CheckInvalidArticle {
			t.Errorf("lint: %+v", f)
		}
	}
	data, err := os.ReadFile(filepath.Join(w, "concepts", "retry.md"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := ParsePage("concepts/retry.md", data)
	if err != nil {
		t.Fatal(err)
	}
	want := FrontMatter{
		Title: "Retry: it's backoff", Aliases: []string{"retries", "back-off"}, Tags: []string{"retry", "networking"},
		Sources: []string{"daily/2026-11-23.md"}, Created: "2026-11-23", Updated: "2026-11-25",
		Extra: map[string]string{"summary": `"Retries back off exponentially.\nThe cap is 30 s.\n"`, "cssclasses": "", "publish": "true"},
	}
	if !reflect.DeepEqual(p.Front, want) {
		t.Errorf("Front = %#v\nwant    %#v", p.Front, want)
	}
	if got := Summary(p); got != "Retries back off exponentially. The cap is 30 s." {
		t.Errorf("Summary = %q", got)
	}
	if !strings.HasPrefix(p.Body, "# Retry\n") {
		t.Errorf("Body = %q", p.Body[:min(len(p.Body), 40)])
	}
	rendered := RenderFrontMatter(p.Front)
	q, err := ParsePage("concepts/retry", []byte(rendered+p.Body))
	if err != nil {
		t.Fatalf("rendering does not parse: %v\n%s", err, rendered)
	}
	if !reflect.DeepEqual(q.Front, p.Front) {
		t.Errorf("through rendering:\n%#v\n%#v\n%s", q.Front, p.Front, rendered)
	}
}

// TestFrontMatterAliasBomb: a billion-laughs document (each alias doubling
// the last, 2^30 strings expanded) is refused before anything is expanded,
// and lint reports it as an invalid article.
func TestFrontMatterAliasBomb(t *testing.T) {
	var b strings.Builder
	b.WriteString("---\ntitle: \"Bomb\"\na0: &a0 [\"lol\", \"lol\"]\n")
	for i := 1; i <= 30; i++ {
		fmt.Fprintf(&b, "a%d: &a%d [*a%d, *a%d]\n", i, i, i-1, i-1)
	}
	b.WriteString("tags: *a30\n---\nbody\n")
	_, err := ParsePage("concepts/bomb", []byte(b.String()))
	if err == nil || !strings.Contains(err.Error(), "front matter line 3: YAML anchors and aliases") {
		t.Fatalf("error = %v", err)
	}
	// A lone alias with no anchor, and a merge key, are refused too.
	for _, fm := range []string{"tags: *x\n", "base: &b {a: 1}\nx:\n  <<: *b\n"} {
		if _, err := parseFrontMatter(fm, 2); err == nil || !strings.Contains(err.Error(), "anchors and aliases") {
			t.Errorf("%q: error = %v", fm, err)
		}
	}
	w := writeWiki(t, map[string]string{"concepts/bomb.md": b.String()})
	r, err := Lint(w, nil, LintOptions{StructuralOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, f := range r.Findings {
		found = found || f.Check == CheckInvalidArticle && strings.Contains(f.Detail, "anchors and aliases")
	}
	if !found {
		t.Errorf("lint findings %+v lack the refused aliases", r.Findings)
	}
}

// TestFrontMatterBounds: hostile front matter is refused, not parsed
// slowly: past the size cap, past the token cap (go-yaml is quadratic in
// keys), nested past the depth cap; values of the wrong type are errors.
func TestFrontMatterBounds(t *testing.T) {
	var keys strings.Builder
	for i := 0; keys.Len() < 200<<10; i++ {
		fmt.Fprintf(&keys, "k%d: v\n", i)
	}
	tests := []struct{ name, fm, want string }{
		{"over the size cap", "summary: \"" + strings.Repeat("x", MaxFileSize) + "\"\n", "over 1048576 bytes"},
		{"too many keys", keys.String(), "over 10000 YAML tokens"},
		{"flow nested deep", "x: " + strings.Repeat("[", 100) + strings.Repeat("]", 100) + "\n", "front matter line 2: nested deeper than 64"},
		{"tags as a map", "tags:\n  a: b\n", "front matter line 2: tags: want a list of strings, not a map"},
		{"title as a map", "title: {a: b}\n", "title: want a string, not a map"},
		{"a list at the top", "- a\n- b\n", "front matter line 2: want key: value"},
		{"a string at the top", "just words\n", "front matter line 2: want key: value"},
		{"a complex key", "? [a]\n: b\n", "front matter line 3: "},
		{"a deep flow past the token cap", "x: " + strings.Repeat("[", 100000) + "\n", "over 10000 YAML tokens"},
		{"two documents", "a: 1\n...\nb: 2\n", "more than one YAML document"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parseFrontMatter(tt.fm, 2)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error = %.300v, want %q", err, tt.want)
			}
		})
	}
}

// TestRenderFrontMatterExtra: an Extra value that is one line of YAML is
// written in the form ParsePage keeps, any other text quoted; either way
// the rendering parses.
func TestRenderFrontMatterExtra(t *testing.T) {
	f := FrontMatter{Extra: map[string]string{
		"a": "bare text: with a colon", "b": "'single'", "c": "[x, y]", "d": "&x y", "e": "{\"k\": [1, \"v\"]}", "f": "plain words",
	}}
	got := RenderFrontMatter(f)
	for _, want := range []string{
		"a: \"bare text: with a colon\"\n", "b: \"single\"\n", "c: [\"x\", \"y\"]\n", "d: \"&x y\"\n", "e: {\"k\": [1, \"v\"]}\n", "f: plain words\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("rendering lacks %q:\n%s", want, got)
		}
	}
	p, err := ParsePage("concepts/x", []byte(got))
	if err != nil {
		t.Fatalf("rendering does not parse: %v\n%s", err, got)
	}
	if s, ok := p.Front.ExtraString("a"); !ok || s != "bare text: with a colon" {
		t.Errorf("ExtraString(a) = %q, %v", s, ok)
	}
	if _, ok := p.Front.ExtraString("e"); ok {
		t.Error("ExtraString of a map is ok")
	}
}

// FuzzFrontMatter: the front matter parser never panics and stays bounded
// on any input; front matter it accepts renders to a canonical form that
// reads back to the same fields, and renders the same again.
func FuzzFrontMatter(f *testing.F) {
	for _, s := range []string{
		"", "title: x\n", obsidianPage[4 : len(obsidianPage)-len("---\n# Retry\n\n")],
		"a: &a [x]\nb: *a\n", "tags: {a: b}\n", "x: [[[[[]]]]]\n", "? a\n: b\n", "a: !!str 1\n", "a: |-\n  x\n  y\n",
		"a: >+\n  x\n\n", "a: \"\\u00e9\\t\"\n", "a: 'b''c'\n", "k: ~\nl: null\nm: .inf\nn: 0x1F\n", "<<: {a: b}\n", "a:\n  - [x, {y: z}]\n  - \"w\"\n",
		"0:0\r0", "a: b # c\n", "%YAML 1.2\n---\na: b\n", "a: \x00\n", "- a\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, fm string) {
		if len(fm) > 4<<10 {
			return // bounded: the caps are tested above
		}
		p, err := parseFrontMatter(fm, 2)
		for k := range p.Extra {
			p.ExtraString(k)
		}
		if err != nil {
			return
		}
		rendered := RenderFrontMatter(p)
		q, err := ParsePage("concepts/x", []byte(rendered))
		if err != nil {
			t.Fatalf("rendering does not parse: %v\n%s", err, rendered)
		}
		if !reflect.DeepEqual(q.Front, p) {
			t.Fatalf("front matter changed through rendering:\n%#v\n%#v\n%s", p, q.Front, rendered)
		}
		if again := RenderFrontMatter(q.Front); again != rendered {
			t.Fatalf("rendering not stable:\n%s\n%s", rendered, again)
		}
	})
}

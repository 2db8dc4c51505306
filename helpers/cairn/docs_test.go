package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/cairn-dev/cairn/helpers/internal/testharness/cairntest"
)

// userDocs are the repository's documents for people: the README,
// CONTRIBUTING.md and everything under docs/, by slash path from the
// repository's root.
func userDocs(t *testing.T) []string {
	t.Helper()
	root := cairntest.RepoRoot(t)
	docs := []string{"README.md", "CONTRIBUTING.md"}
	err := filepath.WalkDir(filepath.Join(root, "docs"), func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(path, ".md") {
			rel, err := filepath.Rel(root, path)
			if err != nil {
				return err
			}
			docs = append(docs, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) < 4 {
		t.Fatalf("found only %v", docs)
	}
	return docs
}

// mdLink is an inline markdown link or image, [text](target), or a
// reference definition, [label]: target.
var mdLink = regexp.MustCompile(`\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)|(?m)^\s{0,3}\[[^\]]+\]:\s+<?(\S+?)>?(?:\s|$)`)

// prose is a document without its fenced code blocks and code spans,
// where nothing is a link.
func prose(doc string) string { return codeSpan.ReplaceAllString(unfenced(doc), "``") }

// unfenced is a document with its fenced code blocks blanked out.
func unfenced(doc string) string {
	var b strings.Builder
	fence := ""
	for _, line := range strings.SplitAfter(doc, "\n") {
		t := strings.TrimSpace(line)
		switch {
		case fence != "":
			if strings.HasPrefix(t, fence) {
				fence = ""
			}
			b.WriteString("\n")
			continue
		case strings.HasPrefix(t, "```"), strings.HasPrefix(t, "~~~"):
			fence = t[:3]
			b.WriteString("\n")
			continue
		}
		b.WriteString(line)
	}
	return b.String()
}

var codeSpan = regexp.MustCompile("`[^`\n]*`")

// links are the relative link targets of a document.
func links(doc string) []string {
	var out []string
	for _, m := range mdLink.FindAllStringSubmatch(prose(doc), -1) {
		target := m[1]
		if target == "" {
			target = m[2]
		}
		if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
			continue
		}
		out = append(out, target)
	}
	return out
}

// anchors are the heading anchors GitHub gives a markdown document.
func anchors(doc string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	for _, line := range strings.Split(unfenced(doc), "\n") {
		t := strings.TrimSpace(line)
		if !strings.HasPrefix(t, "#") {
			continue
		}
		title := strings.TrimSpace(strings.TrimLeft(t, "#"))
		if title == "" || len(t)-len(strings.TrimLeft(t, "#")) > 6 {
			continue
		}
		a := slug(title)
		if n := seen[a]; n > 0 {
			out[a+"-"+itoa(n)] = true
		} else {
			out[a] = true
		}
		seen[a]++
	}
	return out
}

// slug is GitHub's anchor of a heading: lower case, punctuation dropped,
// spaces made hyphens.
func slug(title string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(title) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

func itoa(n int) string {
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
}

// Every relative link of the README, CONTRIBUTING.md and docs/ points at
// a file of the repository, and a link to a heading (file.md#heading or
// #heading) at a heading that is there.
func TestDocsLinksResolve(t *testing.T) {
	root := cairntest.RepoRoot(t)
	checked := 0
	for _, name := range userDocs(t) {
		doc := string(readRepoFile(t, name))
		for _, target := range links(doc) {
			checked++
			path, frag, _ := strings.Cut(target, "#")
			file := name
			if path != "" {
				file = filepath.ToSlash(filepath.Join(filepath.Dir(name), path))
				if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(file))); err != nil {
					t.Errorf("%s links to %s, which is not there", name, target)
					continue
				}
			}
			if frag == "" || !strings.HasSuffix(file, ".md") {
				continue
			}
			if !anchors(string(readRepoFile(t, file)))[frag] {
				t.Errorf("%s links to %s, but %s has no heading with the anchor #%s", name, target, file, frag)
			}
		}
	}
	if checked < 10 {
		t.Errorf("found only %d relative links: is the link pattern broken?", checked)
	}
}

// The link check itself: it finds inline links and reference definitions,
// not what is in code, and computes GitHub's anchors.
func TestDocsLinkParser(t *testing.T) {
	doc := "# Two commands\n## A repository you clone can't hurt you\n### Any MCP client: `cairn mcp`\n" +
		"See [a](docs/a.md), ![b](img/b.png \"t\"), [c](https://x.org), `[d](no.md)`\n" +
		"```\n[e](no.md)\n```\n[f]: docs/f.md\n"
	got := strings.Join(links(doc), " ")
	if want := "docs/a.md img/b.png docs/f.md"; got != want {
		t.Errorf("links = %q, want %q", got, want)
	}
	a := anchors(doc)
	for _, want := range []string{"two-commands", "a-repository-you-clone-cant-hurt-you", "any-mcp-client-cairn-mcp"} {
		if !a[want] {
			t.Errorf("anchors %v lack %q", a, want)
		}
	}
}

// maxReadmeLines keeps the README a front door: what cairn is, the two
// commands, teammates, daily use, the agents, and links to docs/.
const maxReadmeLines = 300

func TestReadmeIsAFrontDoor(t *testing.T) {
	readme := string(readRepoFile(t, "README.md"))
	if n := strings.Count(readme, "\n"); n > maxReadmeLines {
		t.Errorf("README.md has %d lines, at most %d: move the detail into docs/ and link to it", n, maxReadmeLines)
	}
	for _, want := range []string{"./install.sh", "go test ./...", "docs/ARCHITECTURE.md", "CONTRIBUTING.md"} {
		if !strings.Contains(readme, want) {
			t.Errorf("README.md does not mention %s", want)
		}
	}
}

// issueRef is a reference to the project's issue tracker: "issue 15",
// "Issue #23", "issues 12".
var issueRef = regexp.MustCompile(`(?i)\bissues?\s*#?\d+`)

// People read the docs without the issue tracker: no document names an
// issue by its number.
func TestUserDocsNameNoIssues(t *testing.T) {
	for _, name := range userDocs(t) {
		for i, line := range strings.Split(string(readRepoFile(t, name)), "\n") {
			if m := issueRef.FindString(line); m != "" {
				t.Errorf("%s:%d names %q: say what changed, not which issue", name, i+1, m)
			}
		}
	}
	if !issueRef.MatchString("run at the end of Issue #15") || issueRef.MatchString("design §6, 15 issues") {
		t.Error("issueRef does not tell issue numbers from other text")
	}
}

// Every package under helpers/internal says what it owns in a package
// doc comment ("Package NAME ...").
func TestInternalPackagesHaveDocs(t *testing.T) {
	cmd := exec.Command("go", "list", "-f", "{{.ImportPath}}\t{{.Name}}\t{{.Doc}}", module+"/helpers/internal/...")
	cmd.Dir = cairntest.RepoRoot(t)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) < 30 {
		t.Fatalf("go list found %d packages", len(lines))
	}
	for _, line := range lines {
		f := strings.SplitN(line, "\t", 3)
		if len(f) < 3 || !strings.HasPrefix(f[2], "Package "+f[1]+" ") {
			t.Errorf("%s has no package doc comment (// Package %s ...) saying what it owns", f[0], f[1])
		}
	}
}

// The architecture guide's package map names every package under
// helpers/internal (the test harnesses and the agents' event tables as
// one line each), so a new package is described where a newcomer looks.
func TestPackageMapIsComplete(t *testing.T) {
	cmd := exec.Command("go", "list", module+"/helpers/internal/...")
	cmd.Dir = cairntest.RepoRoot(t)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	guide := string(cairntest.MustRead(t, filepath.Join(cairntest.RepoRoot(t), "docs", "ARCHITECTURE.md")))
	start := strings.Index(guide, "## Package map")
	end := strings.Index(guide, "<!-- package graph: begin -->")
	if start < 0 || end < start {
		t.Fatal("docs/ARCHITECTURE.md has no package map before the graph")
	}
	listed := map[string]bool{}
	for _, line := range strings.Split(guide[start:end], "\n") {
		if f := strings.Fields(line); len(f) > 1 && strings.HasPrefix(f[0], "internal/") {
			listed[f[0]] = true
		}
	}
	for _, p := range strings.Fields(string(out)) {
		rel := strings.TrimPrefix(p, module+"/helpers/")
		switch {
		case strings.HasPrefix(rel, "internal/testharness/"):
			rel = "internal/testharness/*"
		case strings.HasPrefix(rel, "internal/agent/") && strings.HasSuffix(rel, "/hooks"):
			rel = "internal/agent/*/hooks"
		}
		if !listed[rel] {
			t.Errorf("docs/ARCHITECTURE.md's package map does not name %s: add a line saying what it owns", rel)
		}
	}
}

package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/testharness/cairntest"
)

// anchorPackages are the packages that read or write anchor data (an
// entry's files, a tool call's paths, the anchor map's keys): capture and
// the log's input, the session's moments, the hook gate and the agents'
// payload readers, sanitize, the index's map, check, recall, curation and
// the commands that show them. Package anchor, which owns the rule, is
// not one of them.
var anchorPackages = []string{
	"helpers/internal/agent",
	"helpers/internal/capture",
	"helpers/internal/cli",
	"helpers/internal/curate",
	"helpers/internal/hookgate",
	"helpers/internal/index",
	"helpers/internal/knowledge",
	"helpers/internal/mcp",
	"helpers/internal/prcheck",
	"helpers/internal/project",
	"helpers/internal/rank",
	"helpers/internal/recall",
	"helpers/internal/review",
	"helpers/internal/sanitize",
	"helpers/internal/session",
}

// pathNormalisers are the calls that normalise a path by hand: a second
// rule beside anchor.Clean when applied to anchor data.
var pathNormalisers = []string{"filepath.Clean", "path.Clean", "filepath.ToSlash"}

// notAnchorData are the normalisers in those packages applied to paths
// that are no anchors, each with why ("file:function").
var notAnchorData = map[string]string{
	"helpers/internal/review/review.go:Open":                       "the project's and the log's directories inside the repository (the prefix of the change's paths; the log in a commit)",
	"helpers/internal/review/diff.go:Sources.files":                "the log's path inside a commit",
	"helpers/internal/curate/steer.go:headLines":                   "the log's path inside HEAD",
	"helpers/internal/agent/gemini/wiring.go:realPath":             "a directory Gemini CLI's settings name, compared with the project's",
	"helpers/internal/agent/codex/measure.go:Adapter.Transcripts":  "the project's root, to match a Codex rollout's working directory",
	"helpers/internal/agent/codex/measure.go:inside":               "a Codex rollout's working directory, compared with the project's root",
	"helpers/internal/agent/gemini/measure.go:Adapter.Transcripts": "the project's root, to match the root Gemini CLI's project directory names",
	"helpers/internal/agent/gemini/measure.go:inside":              "the root a Gemini CLI project directory names, compared with the project's root",
}

// TestOneAnchorPathRule: an anchor's path is read by anchor.Clean (and a
// tool's path by anchor.Rel) and nowhere else. A filepath.Clean,
// path.Clean, filepath.ToSlash or a TrimPrefix/CutPrefix of "./" in a
// package that handles anchors is a second rule, unless it is listed
// above as applied to something that is no anchor.
func TestOneAnchorPathRule(t *testing.T) {
	root := cairntest.RepoRoot(t)
	used := map[string]bool{}
	for _, pkg := range anchorPackages {
		err := filepath.WalkDir(filepath.Join(root, filepath.FromSlash(pkg)), func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if d.Name() == "testdata" {
					return filepath.SkipDir
				}
				return nil
			}
			if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
				return nil
			}
			f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.SkipObjectResolution)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(root, p)
			rel = filepath.ToSlash(rel)
			for _, decl := range f.Decls {
				where := rel + ":" + declName(decl)
				ast.Inspect(decl, func(n ast.Node) bool {
					call, ok := n.(*ast.CallExpr)
					if !ok {
						return true
					}
					if what, ok := normaliser(call); ok {
						if _, allowed := notAnchorData[where]; allowed {
							used[where] = true
						} else {
							t.Errorf("%s: %s is a second path rule; use anchor.Clean (or anchor.Rel for a tool's path), or list it in notAnchorData with why it is no anchor", where, what)
						}
					}
					return true
				})
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for where := range notAnchorData {
		if !used[where] {
			t.Errorf("notAnchorData lists %s, which normalises nothing now: remove it", where)
		}
	}
}

// normaliser reports whether call normalises a path by hand, and how.
func normaliser(call *ast.CallExpr) (string, bool) {
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return "", false
	}
	x, ok := sel.X.(*ast.Ident)
	if !ok {
		return "", false
	}
	name := x.Name + "." + sel.Sel.Name
	if slices.Contains(pathNormalisers, name) {
		return name, true
	}
	if (name == "strings.TrimPrefix" || name == "strings.CutPrefix") && len(call.Args) == 2 {
		if lit, ok := call.Args[1].(*ast.BasicLit); ok && lit.Kind == token.STRING {
			if s, err := strconv.Unquote(lit.Value); err == nil && s == "./" {
				return name + `(…, "./")`, true
			}
		}
	}
	return "", false
}

// declName is a declaration's name as notAnchorData writes it: a
// function, Type.method, or "var"/"const"/"type".
func declName(decl ast.Decl) string {
	switch d := decl.(type) {
	case *ast.FuncDecl:
		if d.Recv != nil && len(d.Recv.List) == 1 {
			t := d.Recv.List[0].Type
			if s, ok := t.(*ast.StarExpr); ok {
				t = s.X
			}
			if id, ok := t.(*ast.Ident); ok {
				return id.Name + "." + d.Name.Name
			}
		}
		return d.Name.Name
	case *ast.GenDecl:
		return d.Tok.String()
	}
	return "?"
}

// The check finds each form it forbids.
func TestNormaliserFindsEachForm(t *testing.T) {
	src := `package x
func a(p string) {
	_ = filepath.Clean(p)
	_ = path.Clean(p)
	_ = filepath.ToSlash(p)
	_ = strings.TrimPrefix(p, "./")
	_, _ = strings.CutPrefix(p, "./")
	_ = strings.TrimPrefix(p, "x")
	_ = anchor.Clean(p)
}`
	f, err := parser.ParseFile(token.NewFileSet(), "x.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	var found []string
	ast.Inspect(f, func(n ast.Node) bool {
		if call, ok := n.(*ast.CallExpr); ok {
			if what, ok := normaliser(call); ok {
				found = append(found, what)
			}
		}
		return true
	})
	want := []string{"filepath.Clean", "path.Clean", "filepath.ToSlash", `strings.TrimPrefix(…, "./")`, `strings.CutPrefix(…, "./")`}
	if !slices.Equal(found, want) {
		t.Errorf("found %q, want %q", found, want)
	}
}

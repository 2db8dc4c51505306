package rank

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// TestKnobsList: every knob is listed once, by a name of its own, with
// its value; a field without a knob tag would be listed without a name.
func TestKnobsList(t *testing.T) {
	k := Default
	k.GateShare, k.Columns.Idents = 0.42, 7
	list := k.List()
	leaves := 0
	var count func(reflect.Type)
	count = func(t reflect.Type) {
		for i := range t.NumField() {
			if f := t.Field(i); f.Type.Kind() == reflect.Struct {
				count(f.Type)
			} else {
				leaves++
			}
		}
	}
	count(reflect.TypeOf(k))
	if len(list) != leaves {
		t.Fatalf("List has %d knobs, Knobs %d fields", len(list), leaves)
	}
	seen := map[string]bool{}
	for _, kn := range list {
		if kn.Name == "" || strings.HasSuffix(kn.Name, ".") || seen[kn.Name] {
			t.Errorf("knob %q: every knob needs a name of its own (a knob tag)", kn.Name)
		}
		seen[kn.Name] = true
	}
	for name, want := range map[string]string{"gate.share": "0.42", "bm25.identifiers": "7", "prior.canonical": fmt.Sprint(Default.PriorCanonical)} {
		if !seen[name] {
			t.Errorf("no knob %q", name)
		}
		for _, kn := range list {
			if kn.Name == name && kn.Value != want {
				t.Errorf("%s = %s, want %s", name, kn.Value, want)
			}
		}
	}
}

// TestKnobsDecide: a knob's value is what the ranking uses (a gate that
// needs every word's weight stops a query that passes by default).
func TestKnobsDecide(t *testing.T) {
	ix := openSynced(t, gateLog(t))
	q := Query{Text: "driver app geofence zebra", Limit: 10, Floor: true}
	if hits, _ := Search(ix, q); len(hits) == 0 {
		t.Fatalf("%q: the default gate stops it", q.Text)
	}
	saved := Default
	t.Cleanup(func() { Default = saved })
	Default.GateShare = 1
	if hits, _ := Search(ix, q); len(hits) != 0 {
		t.Errorf("%q: a gate that needs a share of 1 lets it through", q.Text)
	}
}

// rankingLiteral finds, in a Go file, what would be a ranking knob outside
// this package: a fractional number declared as a package's constant or
// variable, or compared with (a weight, a share, a threshold), and a bm25
// call with its column weights written in SQL.
func rankingLiteral(fset *token.FileSet, f *ast.File) []string {
	var out []string
	at := func(n ast.Node, what string) {
		out = append(out, fmt.Sprintf("%s: %s", fset.Position(n.Pos()), what))
	}
	isFloat := func(e ast.Expr) bool {
		b, ok := e.(*ast.BasicLit)
		return ok && b.Kind == token.FLOAT
	}
	sqlWeights := regexp.MustCompile(`(?i)bm25\(\s*\w+\s*,\s*[0-9.]`)
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST && g.Tok != token.VAR {
			continue
		}
		for _, s := range g.Specs {
			vs := s.(*ast.ValueSpec)
			for _, v := range vs.Values {
				ast.Inspect(v, func(n ast.Node) bool {
					if e, ok := n.(ast.Expr); ok && isFloat(e) {
						at(n, "fractional constant "+vs.Names[0].Name)
					}
					return true
				})
			}
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.BinaryExpr:
			switch n.Op {
			case token.LSS, token.LEQ, token.GTR, token.GEQ:
				if isFloat(n.X) || isFloat(n.Y) {
					at(n, "comparison with a fractional literal")
				}
			}
		case *ast.BasicLit:
			if n.Kind == token.STRING && sqlWeights.MatchString(n.Value) {
				at(n, "bm25 column weights in SQL")
			}
		}
		return true
	})
	return out
}

// notRanking are the fractional literals outside rank that are not
// ranking's, each with what it is.
var notRanking = map[string]string{
	"internal/holdout/holdout.go fractional constant MaxShare":       "the most sessions a team may keep without recall",
	"internal/report/export.go comparison with a fractional literal": "a plausibility bound on an exported figure",
	"internal/ui/graph.go comparison with a fractional literal":      "the graph's layout",
}

// TestNoRankingKnobOutsideRank: no package but rank holds a ranking
// knob (see [rankingLiteral]); they are read from [Default].
func TestNoRankingKnobOutsideRank(t *testing.T) {
	// The finder finds what it looks for.
	src := "package p\nconst w = 0.5\nfunc f(s float64) bool { return s >= 0.25 }\nvar q = `SELECT bm25(fts, 10, 5) FROM fts`\n"
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := rankingLiteral(fset, f); len(got) != 3 { // the constant, the comparison, the SQL
		t.Fatalf("rankingLiteral found %q, want 3", got)
	}
	root := filepath.Join("..", "..")
	found := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() && (rel == "internal/rank" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		found++
		for _, l := range rankingLiteral(fset, f) {
			what := l[strings.LastIndex(l, ": ")+2:]
			if _, ok := notRanking[rel+" "+what]; ok {
				continue
			}
			t.Errorf("%s: a ranking knob outside rank? Put it in rank's Knobs (knobs.go), or name it in notRanking with what it is", l)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if found < 100 {
		t.Fatalf("read %d Go files under %s; the walk is broken", found, root)
	}
}

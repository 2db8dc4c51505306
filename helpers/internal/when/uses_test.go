package when

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Every time cairn writes goes through this package: no file of the
// program outside it calls Format or AppendFormat with a time layout (a
// string literal, or one of package time's layouts), so a new command or
// page cannot bring back a third format. Reading times (time.Parse) is
// free.
func TestTimesAreWrittenThroughWhen(t *testing.T) {
	root := filepath.Join("..", "..")
	if _, err := os.Stat(filepath.Join(root, "cairn")); err != nil {
		t.Fatalf("not at helpers/: %v", err)
	}
	self, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var found []string
	checked := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if abs, _ := filepath.Abs(path); abs == self || d.Name() == "testdata" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		checked++
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok || (sel.Sel.Name != "Format" && sel.Sel.Name != "AppendFormat") || len(call.Args) == 0 {
				return true
			}
			if layout(call.Args[len(call.Args)-1]) {
				found = append(found, fset.Position(call.Pos()).String())
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 100 {
		t.Fatalf("only %d files read: the walk missed the program", checked)
	}
	for _, f := range found {
		t.Errorf("%s writes a time itself: use when.Person, Day or Clock for a person, when.Machine or MachineDay for a program", f)
	}
}

// layout reports whether e is a time layout: one of package time's, or a
// string literal holding one of the reference time's fields.
func layout(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.SelectorExpr:
		x, ok := e.X.(*ast.Ident)
		return ok && x.Name == "time"
	case *ast.BasicLit:
		s, err := strconv.Unquote(e.Value)
		if err != nil {
			return false
		}
		for _, f := range []string{"2006", "15:04", "Jan", "Mon", "MST", "-0700", "Z07"} {
			if strings.Contains(s, f) {
				return true
			}
		}
	}
	return false
}

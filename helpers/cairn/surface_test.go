package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/testharness/cairntest"
)

// exported is one exported top-level name of a package of cairn's, and
// where it is used.
type exported struct {
	pkg, name string
	own       bool // used by its own package's non-test code
	others    bool // used by another package (its tests included)
	tests     bool // used by its own package's tests
}

// surface reads every Go file of the module (go/parser, no type checking)
// and returns the exported top-level names (functions, types, variables,
// constants; not methods, which interfaces may need) of the packages
// under helpers/internal, with where each is used. A use is a selector
// pkg.Name in a file that imports the package, or, in the package itself,
// the bare name.
func surface(t *testing.T) []*exported {
	t.Helper()
	root := cairntest.RepoRoot(t)
	type file struct {
		dir  string // import path of the file's directory
		test bool
		ast  *ast.File
	}
	var files []file
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); p != root && (strings.HasPrefix(n, ".") || n == "testdata" || n == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(p))
		files = append(files, file{dir: path.Join(module, filepath.ToSlash(rel)), test: strings.HasSuffix(p, "_test.go"), ast: f})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]*exported{} // import path + "." + name
	// An exported declaration's type and signature, and a constant block,
	// carry the exported names they mention: a type that is only ever the
	// type of another package's use (registry.Agents' Agent) is used too.
	carries := map[*exported][]*exported{}
	var decls []func()
	for _, f := range files {
		if f.test || !strings.Contains(f.dir, "/helpers/internal/") || strings.Contains(f.dir, "/testharness/") {
			continue
		}
		for _, decl := range f.ast.Decls {
			var idents []*ast.Ident
			switch d := decl.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil {
					idents = append(idents, d.Name)
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						idents = append(idents, s.Name)
					case *ast.ValueSpec:
						idents = append(idents, s.Names...)
					}
				}
			}
			var here []*exported
			for _, id := range idents {
				if id.IsExported() {
					e := &exported{pkg: f.dir, name: id.Name}
					names[f.dir+"."+id.Name] = e
					here = append(here, e)
				}
			}
			dir := f.dir
			decls = append(decls, func() {
				var mentioned []*exported
				ast.Inspect(decl, func(n ast.Node) bool {
					if fd, ok := n.(*ast.FuncDecl); ok {
						ast.Inspect(fd.Type, func(n ast.Node) bool {
							if id, ok := n.(*ast.Ident); ok && names[dir+"."+id.Name] != nil {
								mentioned = append(mentioned, names[dir+"."+id.Name])
							}
							return true
						})
						return false
					}
					if id, ok := n.(*ast.Ident); ok && names[dir+"."+id.Name] != nil {
						mentioned = append(mentioned, names[dir+"."+id.Name])
					}
					return true
				})
				for _, e := range here {
					carries[e] = append(carries[e], mentioned...)
				}
			})
		}
	}
	for _, d := range decls {
		d()
	}
	for _, f := range files {
		local := map[string]string{} // import name -> path
		for _, imp := range f.ast.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			name := path.Base(p)
			if strings.HasPrefix(name, "v") && strings.Trim(name[1:], "0123456789") == "" {
				name = path.Base(path.Dir(p))
			}
			if imp.Name != nil {
				name = imp.Name.Name
			}
			local[name] = p
		}
		internal := f.ast.Name.Name != "main" && !strings.HasSuffix(f.ast.Name.Name, "_test")
		ast.Inspect(f.ast, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.SelectorExpr:
				if x, ok := n.X.(*ast.Ident); ok {
					if e := names[local[x.Name]+"."+n.Sel.Name]; e != nil {
						switch {
						case e.pkg != f.dir:
							e.others = true
						case f.test:
							e.tests = true // an external test package's
						}
					}
				}
			case *ast.Ident:
				if e := names[f.dir+"."+n.Name]; e != nil && internal && n != nil {
					if f.test {
						e.tests = true
					} else if !isDecl(f.ast, n) {
						e.own = true
					}
				}
			}
			return true
		})
	}
	for changed := true; changed; {
		changed = false
		for e, mentioned := range carries {
			if !e.others {
				continue
			}
			for _, m := range mentioned {
				if !m.others {
					m.others, changed = true, true
				}
			}
		}
	}
	out := make([]*exported, 0, len(names))
	for _, e := range names {
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].pkg+"."+out[i].name < out[j].pkg+"."+out[j].name })
	return out
}

// isDecl reports whether id is the name a top-level declaration of f
// declares (not a use of it).
func isDecl(f *ast.File, id *ast.Ident) bool {
	for _, decl := range f.Decls {
		switch d := decl.(type) {
		case *ast.FuncDecl:
			if d.Name == id {
				return true
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					if s.Name == id {
						return true
					}
				case *ast.ValueSpec:
					for _, n := range s.Names {
						if n == id {
							return true
						}
					}
				}
			}
		}
	}
	return false
}

// An exported name under helpers/internal is used by code: one used only
// by its own package's tests, or by no one, is dead code kept alive by its
// tests. In the agent packages (helpers/internal/agent/...) an exported
// name is also used by another package: one used only inside its package
// is unexported. Elsewhere that count is logged, not enforced.
func TestExportedNamesAreUsedOutside(t *testing.T) {
	var dead, ownOnly []string
	rest := map[string]int{}
	for _, e := range surface(t) {
		name := strings.TrimPrefix(e.pkg, module+"/") + "." + e.name
		agentPkg := strings.Contains(e.pkg, "/helpers/internal/agent")
		switch {
		case e.others:
		case !e.own:
			dead = append(dead, name)
		case agentPkg:
			ownOnly = append(ownOnly, name)
		default:
			rest["own package only"]++
		}
	}
	if len(dead) > 0 {
		t.Errorf("exported, and used by no other package and not by its own code (remove it, or move what its tests check):\n  %s", strings.Join(dead, "\n  "))
	}
	if len(ownOnly) > 0 {
		t.Errorf("exported, and used only inside its own package (unexport it):\n  %s", strings.Join(ownOnly, "\n  "))
	}
	t.Logf("outside the agent packages: %d exported names used only inside their own package", rest["own package only"])
}

package adapters_test

import (
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/agent"
	"github.com/cairn-dev/cairn/helpers/internal/agent/adapters"
	"github.com/cairn-dev/cairn/helpers/internal/agent/registry"
	"github.com/cairn-dev/cairn/helpers/internal/event"
)

// The registry's two layers list the same agents, in the same order, and
// say the same of each: its event table, its session-start event, and
// whether cairn reads its transcripts. An agent in one layer alone would
// be wired by init but skip the hook gate, or the other way round.
func TestLayersAgree(t *testing.T) {
	var names []string
	for _, a := range adapters.All() {
		names = append(names, a.Name())
	}
	if want := registry.Names(); !slices.Equal(names, want) {
		t.Fatalf("agent/adapters lists %v, agent/registry %v", names, want)
	}
	for _, r := range registry.Agents {
		a, ok := adapters.Find(r.Name)
		if !ok {
			t.Fatalf("no adapter %s", r.Name)
		}
		if got := a.Kind(r.StartEvent); got != event.Start || r.Kind(r.StartEvent) != event.Start {
			t.Errorf("%s: start event %s is %v to the adapter, %v to the registry", r.Name, r.StartEvent, got, r.Kind(r.StartEvent))
		}
		for _, name := range []string{r.StartEvent, "Stop", "PostToolUse", "afterShellExecution", "TextComplete", "AfterAgent", "nope"} {
			if a.Kind(name) != r.Kind(name) {
				t.Errorf("%s: %s is %v to the adapter, %v to the registry", r.Name, name, a.Kind(name), r.Kind(name))
			}
		}
		_, err := a.ReadTranscript(strings.NewReader(""))
		var no agent.NoTranscript
		if reads := !errors.As(err, &no); reads != r.Transcript {
			t.Errorf("%s: the adapter reads transcripts: %v (%v); the registry says %v", r.Name, reads, err, r.Transcript)
		}
	}
	if a := adapters.Default(); a == nil || a.Name() != registry.Default {
		t.Errorf("Default = %v, want %s", a, registry.Default)
	}
}

// The registry is the one list of agents: no other file of the module
// imports the packages of two agents (agent/NAME, agent/NAME/hooks), and
// none spells two agents' names in one list (a composite literal or a
// switch case). A file that does is a second registry, which drifts.
func TestNoSecondRegistry(t *testing.T) {
	const module = "github.com/cairn-dev/cairn/"
	root := moduleRoot(t)
	home := map[string]bool{
		filepath.Join(root, "helpers/internal/agent/registry"): true,
		filepath.Join(root, "helpers/internal/agent/adapters"): true,
	}
	owner := map[string]string{} // import path -> agent
	names := map[string]bool{}
	for _, n := range registry.Names() {
		names[n] = true
		owner[module+"helpers/internal/agent/"+n] = n
		owner[module+"helpers/internal/agent/"+n+"/hooks"] = n
	}
	files := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); path != root && (strings.HasPrefix(n, ".") || n == "testdata" || n == "node_modules") || home[path] {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		files++
		rel, _ := filepath.Rel(root, path)
		imported := map[string]bool{}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if a, ok := owner[p]; ok {
				imported[a] = true
			}
		}
		if len(imported) > 1 {
			t.Errorf("%s imports the packages of %d agents %v: read the agents from agent/registry or agent/adapters", rel, len(imported), keys(imported))
		}
		ast.Inspect(f, func(n ast.Node) bool {
			var elts []ast.Expr
			switch n := n.(type) {
			case *ast.CompositeLit:
				elts = n.Elts
			case *ast.CaseClause:
				elts = n.List
			default:
				return true
			}
			spelled := map[string]bool{}
			for _, e := range elts {
				if kv, ok := e.(*ast.KeyValueExpr); ok {
					e = kv.Key
				}
				if lit, ok := e.(*ast.BasicLit); ok && lit.Kind == token.STRING {
					if s, _ := strconv.Unquote(lit.Value); names[s] {
						spelled[s] = true
					}
				}
			}
			if len(spelled) > 1 {
				t.Errorf("%s lists agents %v: read them from agent/registry", rel, keys(spelled))
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 {
		t.Fatalf("read only %d files under %s", files, root)
	}
}

func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// moduleRoot is the directory of the module's go.mod.
func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test")
		}
		dir = parent
	}
}

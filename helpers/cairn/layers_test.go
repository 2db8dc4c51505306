package main

import (
	"bytes"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/testharness/cairntest"
)

// layerTable reads the layer table of docs/ARCHITECTURE.md: each
// package named in a row's second column (in backticks) and the row's
// layer number. A name ending in "/*/hooks" stands for every agent's
// event table; "the root package `cairn`" is the module's root.
func layerTable(t *testing.T) (exact map[string]int, patterns map[*regexp.Regexp]int) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(cairntest.RepoRoot(t), graphDoc))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(data), "\n## Layers\n")
	if !ok {
		t.Fatalf("%s has no \"## Layers\" section", graphDoc)
	}
	row := regexp.MustCompile(`^\| (\d+)\. [^|]*\| ([^|]*) \|`)
	name := regexp.MustCompile("`([^`]+)`")
	exact = map[string]int{}
	patterns = map[*regexp.Regexp]int{}
	for _, line := range strings.Split(rest, "\n") {
		if strings.HasPrefix(line, "## ") {
			break
		}
		m := row.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		layer, _ := strconv.Atoi(m[1])
		for _, n := range name.FindAllStringSubmatch(m[2], -1) {
			pkg := n[1]
			switch {
			case pkg == "cairn":
				exact[module] = layer
			case pkg == "helpers/cairn":
				exact[module+"/helpers/cairn"] = layer
			case strings.Contains(pkg, "*"):
				re := "^" + regexp.QuoteMeta(module+"/helpers/internal/"+pkg) + "$"
				patterns[regexp.MustCompile(strings.ReplaceAll(re, `\*`, `[^/]+`))] = layer
			default:
				exact[module+"/helpers/internal/"+pkg] = layer
			}
		}
	}
	if len(exact) < 20 {
		t.Fatalf("read only %d packages from the layer table of %s", len(exact), graphDoc)
	}
	return exact, patterns
}

// TestLayers holds every package to the layer table in
// docs/ARCHITECTURE.md: a package imports only packages of its own layer
// or below, and every package of the binary has a row. The table is read
// from the document, so the document cannot drift from the code.
func TestLayers(t *testing.T) {
	exact, patterns := layerTable(t)
	layerOf := func(pkg string) (int, bool) {
		if l, ok := exact[pkg]; ok {
			return l, true
		}
		for re, l := range patterns {
			if re.MatchString(pkg) {
				return l, true
			}
		}
		return 0, false
	}
	own, _ := packages(t)
	checked := 0
	for _, p := range own {
		if strings.Contains(p.ImportPath, "/testharness/") || strings.HasPrefix(p.ImportPath, module+"/helpers/e2e") || p.ImportPath == module+"/helpers/scenarios" {
			continue
		}
		layer, ok := layerOf(p.ImportPath)
		if !ok {
			t.Errorf("%s has no row in the layer table of %s", short(p.ImportPath), graphDoc)
			continue
		}
		checked++
		for _, imp := range p.Imports {
			if !strings.HasPrefix(imp, module) {
				continue
			}
			if l, ok := layerOf(imp); ok && l > layer {
				t.Errorf("%s (layer %d) imports %s (layer %d)", short(p.ImportPath), layer, short(imp), l)
			}
		}
	}
	if checked < 20 {
		t.Fatalf("checked only %d packages", checked)
	}
}

// maxCLILines bounds the command line's own code: flag wiring, one table
// of errors to hints and exit codes, and the terminal's writer. A use case
// (what a command does, what it prints) lives in a package below it.
const maxCLILines = 2500

// TestCLIIsFlagWiring holds cli to flag wiring: its code (test files
// aside, lines as wc -l counts them) stays under maxCLILines, and no file
// of it, tests included, imports the storage below the use cases: git
// (gitx) and the cache (index) are read by the packages whose functions
// cli calls (review, search, setup, ...), and their errors reach exit.go
// through sentinels of lower packages (knowledge.ErrCache).
func TestCLIIsFlagWiring(t *testing.T) {
	dir := filepath.Join(cairntest.RepoRoot(t), "helpers", "internal", "cli")
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil || len(names) < 10 {
		t.Fatalf("cli's files: %v, %v", names, err)
	}
	forbidden := []string{module + "/helpers/internal/gitx", module + "/helpers/internal/index"}
	lines := 0
	fset := token.NewFileSet()
	for _, name := range names {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasSuffix(name, "_test.go") {
			lines += bytes.Count(data, []byte("\n"))
		}
		f, err := parser.ParseFile(fset, name, data, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			for _, bad := range forbidden {
				if path == bad {
					t.Errorf("cli/%s imports %s: call a use case of a package below cli instead", filepath.Base(name), short(path))
				}
			}
		}
	}
	if lines >= maxCLILines {
		t.Errorf("cli holds %d lines of code, over %d: move what a command does or prints into a package below it", lines, maxCLILines)
	}
	t.Logf("cli: %d lines of code", lines)
}

package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/helpers/internal/agent/claude"
	"github.com/cairn-dev/cairn/helpers/internal/agent/launcher"
	"github.com/cairn-dev/cairn/helpers/internal/testharness/cairntest"
)

// The plugin's hooks/hooks.json registers exactly the events of the
// adapter's table, each with its matcher and timeout, through the wrapper.
func TestHooksJSONFollowsTheEventTable(t *testing.T) {
	var file struct {
		Hooks map[string][]struct {
			Matcher string `json:"matcher"`
			Hooks   []struct {
				Type    string `json:"type"`
				Command string `json:"command"`
				Timeout int    `json:"timeout"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(readRepoFile(t, "hooks/hooks.json"), &file); err != nil {
		t.Fatal(err)
	}
	if len(file.Hooks) != len(claude.Events) {
		t.Errorf("hooks.json registers %d events, the table %d", len(file.Hooks), len(claude.Events))
	}
	for _, h := range claude.Events {
		groups := file.Hooks[h.Event]
		if len(groups) != 1 || len(groups[0].Hooks) != 1 {
			t.Errorf("%s: want one group with one handler, got %+v", h.Event, groups)
			continue
		}
		g := groups[0]
		want := `"${CLAUDE_PLUGIN_ROOT}/scripts/cairn-hook" ` + h.Event
		if g.Matcher != h.Matcher || g.Hooks[0].Command != want || g.Hooks[0].Timeout != h.Timeout || g.Hooks[0].Type != "command" {
			t.Errorf("%s: hooks.json has matcher %q, %+v; the table says matcher %q, timeout %d, command %s",
				h.Event, g.Matcher, g.Hooks[0], h.Matcher, h.Timeout, want)
		}
	}
}

// The project wiring (cairn init --claude) registers the same events as
// the plugin, and the committed launcher passes every event on.
func TestProjectWiringFollowsTheEventTable(t *testing.T) {
	out, _, err := claude.Project(nil)
	if err != nil {
		t.Fatal(err)
	}
	missing, err := claude.Wired(out)
	if err != nil || len(missing) > 0 {
		t.Fatalf("wired settings miss %v (%v)", missing, err)
	}
	for _, h := range claude.Events {
		if !strings.Contains(launcher.Script(""), h.Event) {
			t.Errorf("the launcher does not pass %s on", h.Event)
		}
	}
}

// One version: the binary's, the plugin's and the wrapper's.
func TestVersionIsOne(t *testing.T) {
	var plugin struct {
		Version string `json:"version"`
	}
	if err := json.Unmarshal(readRepoFile(t, ".claude-plugin/plugin.json"), &plugin); err != nil {
		t.Fatal(err)
	}
	if plugin.Version != cairn.Version {
		t.Errorf(".claude-plugin/plugin.json has version %q, cairn.Version is %q", plugin.Version, cairn.Version)
	}
	m := regexp.MustCompile(`(?m)^CAIRN_VERSION=(\S+)$`).FindSubmatch(readRepoFile(t, "scripts/cairn-bin"))
	if m == nil || string(m[1]) != cairn.Version {
		t.Errorf("scripts/cairn-bin sets CAIRN_VERSION=%s, cairn.Version is %q", m, cairn.Version)
	}
}

func readRepoFile(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(cairntest.RepoRoot(t), name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

const module = "github.com/cairn-dev/cairn"

// goPackage is what go list says of one of cairn's packages.
type goPackage struct {
	ImportPath string
	Imports    []string
	Standard   bool
	Module     *struct{ Path string }
}

// packages lists cairn's packages (without tests) and, for every import
// outside the standard library, the module it comes from.
func packages(t *testing.T) (own []goPackage, moduleOf map[string]string) {
	t.Helper()
	cmd := exec.Command("go", "list", "-deps", "-json=ImportPath,Imports,Standard,Module", "./...")
	cmd.Dir = cairntest.RepoRoot(t)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	moduleOf = map[string]string{}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for dec.More() {
		var p goPackage
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		switch {
		case p.Standard:
		case p.Module != nil && p.Module.Path == module:
			own = append(own, p)
		case p.Module != nil:
			moduleOf[p.ImportPath] = p.Module.Path
		}
	}
	return own, moduleOf
}

// Each outside dependency is imported by one of cairn's packages, which
// owns it (design: one package per concern). Tests may import more.
func TestEachDependencyHasOneImporter(t *testing.T) {
	own, moduleOf := packages(t)
	importers := map[string]map[string]bool{}
	for _, p := range own {
		for _, imp := range p.Imports {
			if mod, ok := moduleOf[imp]; ok {
				if importers[mod] == nil {
					importers[mod] = map[string]bool{}
				}
				importers[mod][short(p.ImportPath)] = true
			}
		}
	}
	if len(importers) == 0 {
		t.Fatal("go list found no outside dependency")
	}
	for mod, by := range importers {
		if len(by) != 1 {
			t.Errorf("%s is imported by %d packages: %v", mod, len(by), keys(by))
		}
	}
}

// graphDoc is the document that shows the package graph.
const graphDoc = "docs/ARCHITECTURE.md"

var updateGraph = flag.Bool("update-graph", false, "rewrite the package graph in "+graphDoc)

// The architecture guide shows the package graph as go list sees it: run
// go test ./helpers/cairn -run TestPackageGraph -update-graph after
// changing imports.
func TestPackageGraph(t *testing.T) {
	own, moduleOf := packages(t)
	var lines []string
	for _, p := range own {
		var internal, outside []string
		seen := map[string]bool{}
		for _, imp := range p.Imports {
			switch mod, ok := moduleOf[imp]; {
			case ok && !seen[mod]:
				seen[mod] = true
				outside = append(outside, mod)
			case strings.HasPrefix(imp, module):
				internal = append(internal, short(imp))
			}
		}
		line := short(p.ImportPath)
		if len(internal) > 0 {
			line += " -> " + strings.Join(internal, ", ")
		}
		if len(outside) > 0 {
			line += " | " + strings.Join(outside, ", ")
		}
		lines = append(lines, line)
	}
	sort.Strings(lines)
	graph := "```\n" + strings.Join(lines, "\n") + "\n```\n"
	doc := string(readRepoFile(t, graphDoc))
	const begin, end = "<!-- package graph: begin -->\n", "<!-- package graph: end -->"
	i, j := strings.Index(doc, begin), strings.Index(doc, end)
	if i < 0 || j < i {
		t.Fatalf("%s has no %q ... %q block", graphDoc, begin, end)
	}
	if cur := doc[i+len(begin) : j]; cur != graph {
		if *updateGraph {
			doc = doc[:i+len(begin)] + graph + doc[j:]
			if err := os.WriteFile(filepath.Join(cairntest.RepoRoot(t), filepath.FromSlash(graphDoc)), []byte(doc), 0o644); err != nil {
				t.Fatal(err)
			}
			return
		}
		t.Errorf("%s's package graph is out of date; run: go test ./helpers/cairn -run TestPackageGraph -update-graph\nwant:\n%s", graphDoc, graph)
	}
}

// short is a package's path inside the module: "internal/cli", "cairn".
func short(path string) string {
	if path == module {
		return "(root) cairn"
	}
	return strings.TrimPrefix(strings.TrimPrefix(path, module+"/"), "helpers/")
}

func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Every package's tests run with their own HOME and XDG directories: each
// TestMain goes through testenv, so no test (and no process a test starts)
// reads or writes the person's own cairn.
func TestEveryTestPackageIsIsolated(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", "{{.Dir}}\t{{join .TestGoFiles \",\"}},{{join .XTestGoFiles \",\"}}", module+"/...").Output()
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		dir, files, _ := strings.Cut(line, "\t")
		if strings.Trim(files, ",") == "" {
			continue
		}
		checked++
		isolated := false
		for _, f := range strings.Split(files, ",") {
			if f == "" {
				continue
			}
			src, err := os.ReadFile(filepath.Join(dir, f))
			if err != nil {
				t.Fatal(err)
			}
			start := bytes.Index(src, []byte("func TestMain(m *testing.M) {"))
			if start < 0 {
				continue
			}
			body := src[start:]
			if end := bytes.Index(body, []byte("\n}\n")); end >= 0 {
				body = body[:end]
			}
			if regexp.MustCompile(`\b(testenv\.)?(Main|Isolated)\(m\)`).Match(body) {
				isolated = true
			}
		}
		if !isolated {
			t.Errorf("%s: no TestMain calling testenv.Main(m) (see helpers/internal/testharness/testenv)", dir)
		}
	}
	if checked < 30 {
		t.Errorf("go list found %d packages with tests", checked)
	}
}

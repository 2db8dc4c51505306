package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
	"github.com/cairn-dev/cairn/helpers/internal/rank"
	"github.com/cairn-dev/cairn/helpers/internal/search"
)

// runCairn runs cairn with args and returns its stdout, failing the test
// on a non-zero exit.
func runCairn(t *testing.T, dir string, args ...string) []byte {
	t.Helper()
	var out, errs bytes.Buffer
	code := Main(append([]string{"cairn"}, args...), Env{Stdin: bytes.NewReader(nil), Stdout: &out, Stderr: &errs, Dir: dir, Getenv: func(string) string { return "" }})
	if code != 0 {
		t.Fatalf("cairn %q: exit %d: %s", args, code, errs.String())
	}
	return out.Bytes()
}

// TestExplainKeepsRecallOrder runs every query of the project's
// evaluation set through `recall --json` and `recall --explain --json`
// and requires the same keys in the same order.
func TestExplainKeepsRecallOrder(t *testing.T) {
	evalDir := filepath.Join("..", "..", "..", "testdata", "eval")
	corpus, err := os.ReadFile(filepath.Join(evalDir, "corpus.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, knowledge.DirName), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, knowledge.DirName, knowledge.LogName), corpus, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(evalDir, "queries.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n, nonEmpty := 0, 0
	for sc.Scan() {
		var q struct {
			Query string `json:"query"`
		}
		if json.Unmarshal(sc.Bytes(), &q) != nil || q.Query == "" {
			continue
		}
		n++
		var plain []struct {
			Key string `json:"key"`
		}
		if err := json.Unmarshal(runCairn(t, dir, "recall", "--json", "--dir", dir, "--", q.Query), &plain); err != nil {
			t.Fatal(err)
		}
		var x search.Explanation
		if err := json.Unmarshal(runCairn(t, dir, "recall", "--explain", "--json", "--dir", dir, "--", q.Query), &x); err != nil {
			t.Fatal(err)
		}
		var want, got []string
		for _, h := range plain {
			want = append(want, h.Key)
		}
		for _, h := range x.Hits {
			got = append(got, h.Key)
			if h.Via == "terms" && len(h.Matched) == 0 {
				t.Errorf("%q: %s matched no term", q.Query, h.Key)
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("%q:\n explain %v\n recall  %v", q.Query, got, want)
		}
		if len(want) > 0 {
			nonEmpty++
		}
	}
	if n < 20 || nonEmpty < n/2 {
		t.Fatalf("%d queries, %d answered: the evaluation set did not load", n, nonEmpty)
	}
}

// TestExplainPrintsTheKnobs: --explain prints ranking's knobs from
// rank.Default, so a changed value shows, in the knob list, the order line
// and the gate's need.
func TestExplainPrintsTheKnobs(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, knowledge.DirName), 0o755); err != nil {
		t.Fatal(err)
	}
	log := `{"key":"fact-config-aaaaaa","type":"fact","content":"parseConfig reads the config file once at startup.","source":"agent","tags":["config"],"ts":1}` + "\n"
	if err := os.WriteFile(filepath.Join(dir, knowledge.DirName, knowledge.LogName), []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	saved := rank.Default
	t.Cleanup(func() { rank.Default = saved })
	for _, share := range []float64{0.16, 0.37} {
		rank.Default.GateShare = share
		rank.Default.Columns.Tags = share * 10
		out := string(runCairn(t, dir, "recall", "--explain", "--dir", dir, "--", "parse config"))
		for _, want := range []string{
			fmt.Sprintf("gate.share=%g ", share),
			fmt.Sprintf("bm25.tags=%g ", share*10),
			fmt.Sprintf("tags x%g,", share*10),
			fmt.Sprintf("needs %.2f;", share),
		} {
			if !strings.Contains(out, want) {
				t.Errorf("GateShare %g: --explain lacks %q:\n%s", share, want, out)
			}
		}
		var x search.Explanation
		if err := json.Unmarshal(runCairn(t, dir, "recall", "--explain", "--json", "--dir", dir, "--", "parse config"), &x); err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(x.Knobs, rank.Knob{Name: "gate.share", Value: fmt.Sprint(share)}) {
			t.Errorf("GateShare %g: --explain --json knobs %v", share, x.Knobs)
		}
	}
}

package main

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/cli"
	"github.com/cairn-dev/cairn/helpers/internal/eval"
)

// Quality floors on the golden set (testdata/eval), set a little under
// what cairn measured when they were written (MRR 0.860, R@5 0.790,
// 11 of 23 negatives answered). They are a regression gate, not a target:
// a ranking change that falls below them fails the build.
const (
	floorMRR                = 0.84
	floorRAt5               = 0.77
	maxNegativesWithResults = 11
	floorIdentifierRAt5     = 0.90
	floorParaphraseRAt5     = 0.45
	floorTaskMRR            = 0.88
	minNegativesUnanswered  = 12 // negatives that must return nothing
)

func TestEvalGoldenSetGate(t *testing.T) {
	var out, errOut bytes.Buffer
	code := cli.Main([]string{"cairn", "eval", "../../testdata/eval/queries.jsonl",
		"--corpus", "../../testdata/eval/corpus.jsonl", "--baseline", "grep", "--json"},
		cli.Env{Stdout: &out, Stderr: &errOut})
	if code != 0 {
		t.Fatalf("eval exited %d: %s", code, errOut.String())
	}
	var res map[string]eval.Result
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatalf("eval --json: %v\n%s", err, out.String())
	}
	c, g := res["cairn"], res["grep"]
	t.Logf("cairn: MRR %.3f R@5 %.3f nDCG@10 %.3f negatives %d/%d answered; grep: MRR %.3f R@5 %.3f",
		c.MRR, c.RAtK, c.NDCG10, c.NegativesWithResults, c.Negatives, g.MRR, g.RAtK)
	if c.MRR < floorMRR || c.RAtK < floorRAt5 {
		t.Errorf("overall MRR %.3f / R@5 %.3f below the floor %.2f / %.2f", c.MRR, c.RAtK, floorMRR, floorRAt5)
	}
	if c.NegativesWithResults > maxNegativesWithResults || c.Negatives-c.NegativesWithResults < minNegativesUnanswered {
		t.Errorf("%d of %d negative queries returned something (at most %d allowed)", c.NegativesWithResults, c.Negatives, maxNegativesWithResults)
	}
	if m := c.ByKind["identifier"]; m.RAtK < floorIdentifierRAt5 {
		t.Errorf("identifier R@5 %.3f below %.2f", m.RAtK, floorIdentifierRAt5)
	}
	if m := c.ByKind["paraphrase"]; m.RAtK < floorParaphraseRAt5 {
		t.Errorf("paraphrase R@5 %.3f below %.2f", m.RAtK, floorParaphraseRAt5)
	}
	if m := c.ByKind["task"]; m.MRR < floorTaskMRR {
		t.Errorf("task MRR %.3f below %.2f", m.MRR, floorTaskMRR)
	}
	// cairn beats grep on MRR and R@5 for every kind but, at most, exact.
	for kind, cm := range c.ByKind {
		if kind == "negative" || kind == "exact" {
			continue
		}
		gm := g.ByKind[kind]
		if cm.MRR <= gm.MRR || cm.RAtK <= gm.RAtK {
			t.Errorf("%s: cairn MRR %.3f R@5 %.3f does not beat grep MRR %.3f R@5 %.3f", kind, cm.MRR, cm.RAtK, gm.MRR, gm.RAtK)
		}
	}
}

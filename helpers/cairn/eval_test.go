package main

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/cli"
	"github.com/cairn-dev/cairn/helpers/internal/eval"
)

// Quality floors on the golden set (testdata/eval), set a little under
// what cairn measured when they were written (MRR 0.864, R@5 0.793,
// 10 of 23 negatives answered; identifier R@5 0.949, paraphrase R@5
// 0.532, task MRR 0.911, curated MRR 0.917 and R@5 0.789). They are a
// regression gate, not a target: a ranking change that falls below them
// fails the build.
const (
	floorMRR                = 0.84
	floorRAt5               = 0.77
	maxNegativesWithResults = 10
	floorIdentifierRAt5     = 0.92
	floorParaphraseRAt5     = 0.50
	floorTaskMRR            = 0.88
	floorCuratedMRR         = 0.89
	floorCuratedRAt5        = 0.76
	minNegativesUnanswered  = 13 // negatives that must return nothing
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
	if m := c.ByKind["curated"]; m.MRR < floorCuratedMRR || m.RAtK < floorCuratedRAt5 {
		t.Errorf("curated MRR %.3f / R@5 %.3f below %.2f / %.2f", m.MRR, m.RAtK, floorCuratedMRR, floorCuratedRAt5)
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

package main

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/cli"
	"github.com/cairn-dev/cairn/helpers/internal/eval"
)

// floors are the quality floors of one golden set, set a little under
// what cairn measured when they were written. They are a regression
// gate, not a target: a ranking change that falls below them fails the
// build.
type floors struct {
	mrr, rAt5    float64
	maxAnswered  int                // negatives that may return something
	kindMRR      map[string]float64 // per kind
	kindRAt5     map[string]float64 // per kind
	beatGrepSkip map[string]bool    // kinds where cairn need not beat grep
}

// The project's set (testdata/eval) measured MRR 0.870, R@5 0.793, 0 of
// 23 negatives answered; identifier R@5 0.957, paraphrase R@5 0.492, task
// MRR 0.944, curated MRR 0.922 and R@5 0.805.
var projectFloors = floors{
	mrr: 0.85, rAt5: 0.78, maxAnswered: 1,
	kindMRR:      map[string]float64{"task": 0.92, "curated": 0.89},
	kindRAt5:     map[string]float64{"identifier": 0.94, "paraphrase": 0.47, "curated": 0.78},
	beatGrepSkip: map[string]bool{"exact": true},
}

// The team-log set (testdata/eval/teamlog) measured MRR 0.877, R@5 0.911,
// 8 of 35 negatives answered; identifier R@5 1.000, paraphrase R@5
// 0.750, task MRR 0.917, sentence R@5 0.900.
var teamLogFloors = floors{
	mrr: 0.86, rAt5: 0.89, maxAnswered: 8,
	kindMRR:  map[string]float64{"task": 0.89},
	kindRAt5: map[string]float64{"identifier": 0.95, "paraphrase": 0.70, "sentence": 0.85},
	// The exact and sentence queries use the notes' own words: grep finds
	// them as well.
	beatGrepSkip: map[string]bool{"exact": true, "sentence": true},
}

func TestEvalGoldenSetGate(t *testing.T) {
	checkGoldenSet(t, "../../testdata/eval", projectFloors)
}

func TestEvalTeamLogGate(t *testing.T) {
	checkGoldenSet(t, "../../testdata/eval/teamlog", teamLogFloors)
}

// checkGoldenSet runs cairn eval on dir's queries and corpus with the
// grep baseline and holds the result to f.
func checkGoldenSet(t *testing.T, dir string, f floors) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := cli.Main([]string{"cairn", "eval", dir + "/queries.jsonl",
		"--corpus", dir + "/corpus.jsonl", "--baseline", "grep", "--json"},
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
	if c.MRR < f.mrr || c.RAtK < f.rAt5 {
		t.Errorf("overall MRR %.3f / R@5 %.3f below the floor %.2f / %.2f", c.MRR, c.RAtK, f.mrr, f.rAt5)
	}
	if c.Negatives == 0 || c.NegativesWithResults > f.maxAnswered {
		t.Errorf("%d of %d negative queries returned something (at most %d allowed)", c.NegativesWithResults, c.Negatives, f.maxAnswered)
	}
	for kind, floor := range f.kindMRR {
		if m := c.ByKind[kind]; m.Queries == 0 || m.MRR < floor {
			t.Errorf("%s MRR %.3f below %.2f", kind, m.MRR, floor)
		}
	}
	for kind, floor := range f.kindRAt5 {
		if m := c.ByKind[kind]; m.Queries == 0 || m.RAtK < floor {
			t.Errorf("%s R@5 %.3f below %.2f", kind, m.RAtK, floor)
		}
	}
	// cairn beats grep on MRR and R@5 for every kind but those skipped.
	for kind, cm := range c.ByKind {
		if kind == "negative" || f.beatGrepSkip[kind] {
			continue
		}
		gm := g.ByKind[kind]
		if cm.MRR <= gm.MRR || cm.RAtK <= gm.RAtK {
			t.Errorf("%s: cairn MRR %.3f R@5 %.3f does not beat grep MRR %.3f R@5 %.3f", kind, cm.MRR, cm.RAtK, gm.MRR, gm.RAtK)
		}
	}
}

package eval

import (
	"fmt"
	"os"

	"github.com/cairn-dev/cairn/helpers/internal/index"
	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
	"github.com/cairn-dev/cairn/helpers/internal/rank"
)

// Options of an evaluation.
type Options struct {
	K    int  // the cut-off for precision and recall
	Grep bool // also run the grep baseline
}

// Evaluate runs queries against store's knowledge through cairn's search
// (and, with Grep, the grep baseline), keyed "cairn" and "grep".
func Evaluate(store *knowledge.Store, queries []Query, opts Options) (map[string]Result, error) {
	ix, err := index.Open(store)
	if err != nil {
		return nil, err
	}
	defer ix.Close()
	if _, err := ix.Sync(); err != nil {
		return nil, err
	}
	results := map[string]Result{}
	results["cairn"], err = Run(queries, opts.K, func(q string, limit int) ([]string, error) {
		hits, err := rank.Search(ix, rank.Query{Text: q, Limit: limit, Floor: true})
		keys := make([]string, len(hits))
		for i, h := range hits {
			keys[i] = h.Entry.Key
		}
		return keys, err
	})
	if err != nil {
		return nil, err
	}
	if opts.Grep {
		recs, _, err := store.ReadAll(false)
		if err != nil {
			return nil, err
		}
		var entries []knowledge.Entry
		for _, r := range knowledge.Latest(recs) {
			if r.Entry.Active() {
				entries = append(entries, r.Entry)
			}
		}
		if results["grep"], err = Run(queries, opts.K, Grep(entries)); err != nil {
			return nil, err
		}
	}
	return results, nil
}

// EvaluateCorpus is Evaluate on a knowledge log given as data, indexed in a
// temporary store that is removed afterwards.
func EvaluateCorpus(corpus []byte, queries []Query, opts Options) (map[string]Result, error) {
	tmp, err := os.MkdirTemp("", "cairn-eval-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	store := knowledge.Open(tmp)
	if err := store.Provision(); err != nil {
		return nil, err
	}
	if err := os.WriteFile(store.LogPath(), corpus, 0o644); err != nil {
		return nil, fmt.Errorf("write corpus: %w", err)
	}
	return Evaluate(store, queries, opts)
}

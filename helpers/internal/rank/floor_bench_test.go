package rank

import (
	"fmt"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/testharness/synthlog"
)

// BenchmarkSearchFloor is the search of `cairn recall` and of per-prompt
// recall: the confidence gate on, the first page of ten, at 10k entries.
// Half the queries are three words of one subject, half a question the
// log does not cover beside one of its words, which the gate weighs and
// stops.
func BenchmarkSearchFloor(b *testing.B) {
	for _, n := range []int{10_000} {
		b.Run(fmt.Sprintf("entries=%dk", n/1000), func(b *testing.B) {
			ix := benchStore(b, n)
			var queries []string
			for k := range 4 {
				t := synthlog.Topics[k*7%len(synthlog.Topics)]
				queries = append(queries, t[0]+" "+t[1]+" "+t[2], "kafka rebalance "+t[0]+" wifi")
			}
			answered := 0
			for _, q := range queries {
				hits, err := Search(ix, Query{Text: q, Limit: 10, Floor: true})
				if err != nil {
					b.Fatal(err)
				}
				if len(hits) > 0 {
					answered++
				}
			}
			i := 0
			for b.Loop() {
				if _, err := Search(ix, Query{Text: queries[i%len(queries)], Limit: 10, Floor: true}); err != nil {
					b.Fatal(err)
				}
				i++
			}
			b.ReportMetric(float64(answered), "answered/8")
		})
	}
}

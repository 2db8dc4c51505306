package anchor

import (
	"fmt"
	"testing"
)

// synthMap is a map of n anchored entries, one file each, spread over
// directories as a project's would be.
func synthMap(n int) []byte {
	m := Map{Sources: "1:2:3:4 0:0:0:0", Files: map[string][]string{}, Commands: map[string][]string{"terraform apply": {"must-check-x"}}}
	for i := range n {
		f := fmt.Sprintf("src/pkg%d/sub%d/file%d.go", i%97, i%13, i)
		m.Files[f] = append(m.Files[f], fmt.Sprintf("learned-note-%d-abcdef", i))
	}
	return Encode(m)
}

// The no-match path's lookup (a file nothing is anchored to, three
// candidates) and the match path's, at the anchored entries of a 10k and
// a 100k log (every tenth anchored).
func BenchmarkLookup(b *testing.B) {
	for _, n := range []int{1_000, 10_000} {
		data := synthMap(n)
		for _, c := range []struct{ name, path string }{
			{"miss", "src/none/nothing.go"},
			{"hit", fmt.Sprintf("src/pkg%d/sub%d/file%d.go", 5%97, 5%13, 5)},
		} {
			b.Run(fmt.Sprintf("%s/%d-anchored", c.name, n), func(b *testing.B) {
				b.SetBytes(int64(len(data)))
				for b.Loop() {
					Lookup(data, []string{c.path}, "go test ./...")
				}
			})
		}
	}
}

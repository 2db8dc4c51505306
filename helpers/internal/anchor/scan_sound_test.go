package anchor_test

import (
	"bytes"
	"slices"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/anchor"
	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
)

// What UnanchoredAt passes, the log's reader (knowledge.Parse, which the
// cache folds) finds no entry anchored to: no name of an entry's files
// cleans to a candidate of the path.
func FuzzUnanchoredIsSound(f *testing.F) {
	for _, s := range []string{
		`{"key":"k","type":"fact","content":"x","ts":2,"files":["src/a.go"]}`,
		`{"key":"k","type":"fact","content":"x","ts":2,"files":"lib, src/a.go"}`,
		`{"key":"k","type":"fact","content":"x","ts":2,"files":["\tsrc\/a.go"]}`,
		`{"key":"k","type":"fact","content":"x","ts":2,"fil\u0065s":["src/a.go"]}`,
		`"{\"key\":\"k\",\"type\":\"fact\",\"content\":\"x\",\"ts\":2,\"files\":[\"src/a.go\"]}"`,
		`{"key":"j","type":"fact","content":"x","ts":2}{"key":"k","type":"fact","content":"x","ts":2,"files":["./src//a.go"]}`,
	} {
		f.Add([]byte(s+"\n"), "src/a.go")
	}
	f.Fuzz(func(t *testing.T, log []byte, p string) {
		if !anchor.UnanchoredAt(bytes.NewReader(log), int64(len(log)), make([]byte, 1<<16), []string{p}) {
			return
		}
		cands := anchor.Candidates(p)
		knowledge.Parse(log, func(r knowledge.Record) {
			for _, name := range r.Entry.Files {
				if c, ok := anchor.Clean(name); ok && slices.Contains(cands, c) {
					t.Fatalf("passed a log whose entry %q names %q (%q)", r.Entry.Key, name, c)
				}
			}
		})
	})
}

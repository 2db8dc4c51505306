package index

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/anchor"
	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
)

// toolCall is what the hook before a tool call asks of the cache.
type toolCall struct {
	paths   []string
	command string
}

var toolCalls = []toolCall{
	{paths: []string{"api/client.go"}},
	{paths: []string{"db/migrations/0001.sql"}},     // under a directory anchor
	{paths: []string{"web/app.ts", "web/index.ts"}}, // a shell command's words
	{command: "terraform apply -auto-approve"},
	{paths: []string{"src/none/nothing.go"}},
}

// answer is what the hook shows for a call: each anchored entry the map
// names there, live, with what it shows of it.
func answer(t *testing.T, ix *Index, c toolCall) string {
	t.Helper()
	data, err := ix.Anchors()
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, h := range anchor.Lookup(data, c.paths, c.command) {
		for _, k := range h.Keys {
			if !slices.Contains(keys, k) {
				keys = append(keys, k)
			}
		}
	}
	es, err := ix.Entries(keys)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, e := range es {
		fmt.Fprintf(&b, "%s %s %q %v %q\n", e.Key, e.Status, e.Content, e.Files, e.Note)
	}
	return b.String()
}

// The hook before a tool call, after a pull, answers from the cache and
// the lines it lacks exactly what it would answer after a catch-up: a
// note the pull brings anchored to the call's file, a directory above
// it, or a must-check on its command, is shown at once; a note the pull
// retracts, supersedes, archives, re-anchors or takes back is not. The
// cache itself is left as it was (a background sync catches it up).
func TestToolReadsBehindAsCaughtUp(t *testing.T) {
	s := newStore(t)
	api := entry("learned", "the retry loop in api/client.go must watch the context", "api/client.go")
	mig := entry("pattern", "migrations are numbered by hand", "db/migrations/")
	web := entry("fact", "the web bundle is built by esbuild", "web/app.ts")
	tf := entry("must-check", "never run `terraform apply` without a reviewed plan")
	old := entry("decision", "api clients are generated", "api/client.go")
	old.TS -= 100
	base := [][]byte{mkLine(api), mkLine(mig), mkLine(web), mkLine(tf), mkLine(old)}
	base = append(base, synthLog(0, 300, 3)...)
	knowledge.SortLines(base)
	writeLog(t, s, join(base))
	ix := openIndex(t, s)
	mustSync(t, ix)
	ix.Close()

	later := func(e knowledge.Entry, f func(*knowledge.Entry)) []byte {
		e.TS += 10
		f(&e)
		return mkLine(e)
	}
	newAPI := entry("must-check", "api/client.go: run `go test ./api` after any change", "api/client.go")
	newMig := entry("learned", "a migration must be reversible", "db/")
	newTF := entry("must-check", "before `terraform apply`, check the workspace")
	oldV2 := later(old, func(e *knowledge.Entry) { e.Content = "api clients are written by hand now" })
	for _, c := range []struct {
		name         string
		edit         func(lines [][]byte) (log, archive [][]byte)
		shows, hides []string // in the answers, before and after the catch-up
	}{
		{"new notes on a file, a directory above a file, and a command", func(l [][]byte) ([][]byte, [][]byte) {
			return append(l, mkLine(newAPI), mkLine(newMig), mkLine(newTF)), nil
		}, []string{newAPI.Key, newMig.Key, newTF.Key}, nil},
		{"a note retracted", func(l [][]byte) ([][]byte, [][]byte) {
			return append(l, later(api, func(e *knowledge.Entry) { e.Status = knowledge.StatusRetracted })), nil
		}, []string{old.Key}, []string{api.Key}},
		{"a must-check superseded", func(l [][]byte) ([][]byte, [][]byte) {
			return append(l, later(tf, func(e *knowledge.Entry) { e.Status = knowledge.StatusSuperseded })), nil
		}, nil, []string{tf.Key}},
		{"a note archived", func(l [][]byte) ([][]byte, [][]byte) {
			i := slices.IndexFunc(l, func(b []byte) bool { return string(b) == string(mkLine(web)) })
			return slices.Delete(slices.Clone(l), i, i+1), [][]byte{mkLine(web)}
		}, nil, []string{web.Key}},
		{"a note re-anchored elsewhere", func(l [][]byte) ([][]byte, [][]byte) {
			return append(l, later(mig, func(e *knowledge.Entry) { e.Files = []string{"docs/"} })), nil
		}, nil, []string{mig.Key}},
		{"a note edited in a new line", func(l [][]byte) ([][]byte, [][]byte) {
			return append(l, oldV2), nil
		}, []string{"written by hand"}, []string{"are generated"}},
		{"a new line taken back: the older one wins again", func(l [][]byte) ([][]byte, [][]byte) {
			return append(l, oldV2), nil // the pull after it removes it (below)
		}, []string{"are generated"}, []string{"written by hand"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			// Each case starts from the base, caught up.
			writeLog(t, s, join(base))
			if err := s.Root().WriteAtomic(knowledge.ArchiveName, nil, 0o644); err != nil {
				t.Fatal(err)
			}
			ix := openIndex(t, s)
			mustSync(t, ix)
			if c.name == "a new line taken back: the older one wins again" {
				pulled := append(slices.Clone(base), oldV2)
				knowledge.SortLines(pulled)
				writeLog(t, s, join(pulled))
				mustSync(t, ix)
			}
			ix.Close()
			logLines, archive := c.edit(slices.Clone(base))
			knowledge.SortLines(logLines)
			if c.name == "a new line taken back: the older one wins again" {
				logLines = base
			}
			writeLog(t, s, join(logLines))
			if err := s.Root().WriteAtomic(knowledge.ArchiveName, join(archive), 0o644); err != nil {
				t.Fatal(err)
			}
			before := readFile(t, s, anchor.File) + readFile(t, s, linesName)

			var got []string
			for _, call := range toolCalls {
				tool, err := OpenForTool(s, call.paths, call.command)
				if err != nil {
					t.Fatal(err)
				}
				if !tool.Behind() {
					t.Fatalf("%v: the tool's read caught up instead of reading behind", call)
				}
				got = append(got, answer(t, tool, call))
				tool.Close()
			}
			all := strings.Join(got, "")
			for _, k := range c.shows {
				if !strings.Contains(all, k) {
					t.Errorf("%s is not shown:\n%s", k, all)
				}
			}
			for _, k := range c.hides {
				if strings.Contains(all, k) {
					t.Errorf("%s is shown:\n%s", k, all)
				}
			}
			if after := readFile(t, s, anchor.File) + readFile(t, s, linesName); after != before {
				t.Error("the tool's read wrote the anchor map or the line list")
			}

			ix = openIndex(t, s)
			if res := mustSync(t, ix); res.Current {
				t.Fatal("the tool's read caught the cache up")
			}
			for i, call := range toolCalls {
				if want := answer(t, ix, call); got[i] != want {
					t.Errorf("%v: read behind:\n%s\ncaught up:\n%s", call, got[i], want)
				}
			}
			ix.Close()
		})
	}
}

// After an insertion, which brings the anchor map along with the log
// but leaves the cache behind, the hook before a tool call reads behind
// as it does after a pull, rather than catching up: it shows the new note
// and answers what a catch-up would.
func TestToolReadsBehindAfterAnInsert(t *testing.T) {
	s := newStore(t)
	writeLog(t, s, join(synthLog(0, 300, 3)))
	ix := openIndex(t, s)
	mustSync(t, ix)
	ix.Close()
	added := entry("learned", "the retry loop in api/client.go must watch the context", "api/client.go")
	if _, err := s.Insert([]knowledge.Entry{added}); err != nil {
		t.Fatal(err)
	}
	data := readFile(t, s, anchor.File)
	if len(anchor.Lookup([]byte(data), toolCalls[0].paths, "")) == 0 {
		t.Fatal("the insertion did not bring the anchor map along")
	}
	var got []string
	for _, call := range toolCalls {
		tool, err := OpenForTool(s, call.paths, call.command)
		if err != nil {
			t.Fatal(err)
		}
		if !tool.Behind() {
			t.Fatalf("%v: the tool's read caught up instead of reading behind", call)
		}
		got = append(got, answer(t, tool, call))
		tool.Close()
	}
	if !strings.Contains(got[0], added.Key) {
		t.Errorf("the inserted note is not shown:\n%s", got[0])
	}
	if readFile(t, s, anchor.File) != data {
		t.Error("the tool's read wrote the anchor map")
	}
	ix = openIndex(t, s)
	defer ix.Close()
	mustSync(t, ix)
	for i, call := range toolCalls {
		if want := answer(t, ix, call); got[i] != want {
			t.Errorf("%v: read behind:\n%s\ncaught up:\n%s", call, got[i], want)
		}
	}
}

func readFile(t *testing.T, s *knowledge.Store, name string) string {
	t.Helper()
	data, err := s.Root().ReadFile(name, 1<<30)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

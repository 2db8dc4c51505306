package curate

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/helpers/internal/agent/claude"
	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
	"github.com/cairn-dev/cairn/helpers/internal/project"
	"github.com/cairn-dev/cairn/helpers/internal/session"
	"github.com/cairn-dev/cairn/helpers/internal/session/record"
)

func TestNearest(t *testing.T) {
	keys := []string{
		"learned-oauth-redirect-uri-must-match-exactly-0bd769",
		"learned-oauth-tokens-expire-hourly-1a2b3c",
		"fact-kafka-lag-alert-ed7a32",
		"fact-kafka-lag-alert-ed7a33",
		"decision-pkce-9a9efa",
	}
	for _, tc := range []struct {
		key  string
		want []string
	}{
		{"learned-oauth", []string{"learned-oauth-redirect-uri-must-match-exactly-0bd769", "learned-oauth-tokens-expire-hourly-1a2b3c"}},
		{"fact-kafka-lag-alert-ed7a3", []string{"fact-kafka-lag-alert-ed7a32", "fact-kafka-lag-alert-ed7a33"}},
		{"fact-kafka-lag-alert-ed7a34", []string{"fact-kafka-lag-alert-ed7a32", "fact-kafka-lag-alert-ed7a33"}},
		{"decision-pkse-9a9efa", []string{"decision-pkce-9a9efa"}},
		{"decision-pkce-9a9efa-and-more", []string{"decision-pkce-9a9efa"}},
		{"nothing-like-it", nil},
		{"fact-kafka-lag-alert-ed7a32", []string{"fact-kafka-lag-alert-ed7a33"}}, // itself is not a suggestion
	} {
		if got := Nearest(tc.key, keys, 3); strings.Join(got, " ") != strings.Join(tc.want, " ") {
			t.Errorf("Nearest(%q) = %q, want %q", tc.key, got, tc.want)
		}
	}
}

func TestEditDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b  string
		limit int
		want  int
	}{
		{"", "", 3, 0},
		{"abc", "abc", 3, 0},
		{"abc", "abd", 3, 1},
		{"abc", "ab", 3, 1},
		{"kitten", "sitting", 3, 3},
		{"kitten", "sitting", 2, 3}, // over the limit: limit+1
		{"a", "abcdefgh", 3, 4},
	} {
		if got := editDistance(tc.a, tc.b, tc.limit); got != tc.want {
			t.Errorf("editDistance(%q, %q, %d) = %d, want %d", tc.a, tc.b, tc.limit, got, tc.want)
		}
	}
}

// committedProject is a git repository whose HEAD holds a log of one
// entry, which it returns.
func committedProject(t *testing.T) (*project.Project, knowledge.Entry) {
	t.Helper()
	old := knowledge.Entry{Type: "fact", Content: "The Kafka lag alert fires above ten thousand", Source: "user", TS: 1763769600, Author: "Bo"}
	old.Key = knowledge.MakeKey(old.Type, old.Content)
	line, err := knowledge.Marshal(&old)
	if err != nil {
		t.Fatal(err)
	}
	root := gitRepo(t, map[string]string{".cairn/knowledge.jsonl": string(line) + "\n"})
	return project.New(root, true), old
}

func TestRemoveAndEdit(t *testing.T) {
	p, old := committedProject(t)
	if _, err := Remove(p, old.Key); !errors.Is(err, ErrCommitted) {
		t.Fatalf("Remove(committed) = %v, want ErrCommitted", err)
	}
	if _, err := Remove(p, "fact-no-such-000000"); !errors.Is(err, ErrNoEntry) {
		t.Fatalf("Remove(unknown) = %v, want ErrNoEntry", err)
	}
	before, _ := p.Store.ReadLog()
	key, _, err := p.Add(knowledge.Entry{Type: "learned", Content: "A first try", Source: "user"})
	if err != nil {
		t.Fatal(err)
	}
	if n, err := Remove(p, key); err != nil || n != 1 {
		t.Fatalf("Remove(uncommitted) = %d, %v", n, err)
	}
	if after, _ := p.Store.ReadLog(); string(after) != string(before) {
		t.Fatalf("log after add and rm:\n%s\nwant:\n%s", after, before)
	}

	// In place: a new key for new content; the old key is gone.
	key, _, _ = p.Add(knowledge.Entry{Type: "learned", Content: "Deploys on Tuesdays", Source: "user"})
	content, typ := "Deploys on Wednesdays", "decision"
	ed, err := Edit(p, key, Change{Content: &content, Type: &typ}, Editor{Author: "Cy", Source: "user"}, time.Unix(1763769700, 0))
	if err != nil || !ed.InPlace || ed.Superseded || ed.Entry.Key != knowledge.MakeKey("decision", content) {
		t.Fatalf("Edit(uncommitted) = %+v, %v", ed, err)
	}
	have, _ := latest(p.Store)
	if _, ok := have[key]; ok {
		t.Errorf("old key %s still in the log", key)
	}
	if e := have[ed.Entry.Key]; e.Author == "Cy" {
		t.Errorf("an in-place edit signed the entry anew: %+v", e)
	}

	// Committed: a superseding entry, the old one superseded by it.
	content = "The Kafka lag alert fires above fifty thousand"
	ed, err = Edit(p, old.Key, Change{Content: &content}, Editor{Author: "Cy", Source: "agent", Agent: "codex", Session: "t1"}, time.Unix(1763769700, 0))
	if err != nil || !ed.Superseded || ed.Entry.Supersedes != old.Key || ed.Entry.TS != 1763769700 ||
		ed.Entry.Author != "Cy" || ed.Entry.Source != "agent" || ed.Entry.Agent != "codex" || ed.Entry.Session != "t1" || ed.Entry.Branch != "main" && ed.Entry.Branch != "master" {
		t.Fatalf("Edit(committed) = %+v, %v", ed, err)
	}
	have, _ = latest(p.Store)
	if o := have[old.Key]; o.Status != knowledge.StatusSuperseded || o.SupersededBy != ed.Entry.Key || o.Author != "Cy" {
		t.Errorf("old entry after edit = %+v", o)
	}
	sh, err := Show(p, old.Key)
	if err != nil || sh.Commit != CommitPartly || len(sh.History) != 2 || !sh.History[0].Committed || sh.History[1].Committed {
		t.Errorf("Show(superseded) = %+v, %v", sh, err)
	}
}

// The race: writers are processes that add entries — six as `cairn add`
// does (project.Add), two as Claude Code's capture hook does (a bd
// comment in a Bash command, through session.Hook) — while
// this process adds, edits and removes entries of its own in a loop.
// Every writer's entry survives, exactly once; every entry this process
// removed is gone; the committed entry is untouched; the log stays sorted.

const (
	raceWriters = 8
	racePerProc = 25
	raceEnv     = "CAIRN_TEST_STEER_HELPER"
)

// raceHooks is how many of the writers are capture hooks.
const raceHooks = 2

func raceEntry(w, i int) knowledge.Entry {
	typ := "fact"
	if w >= raceWriters-raceHooks {
		typ = "learned"
	}
	return knowledge.Entry{Type: typ, Content: fmt.Sprintf("writer %d wrote entry %d", w, i), Source: "agent", Session: "race"}
}

// TestHelperProcess is one writer of TestRaceWritersAgainstEditAndRemove.
func TestHelperProcess(t *testing.T) {
	if os.Getenv(raceEnv) != "1" {
		t.Skip("a helper process of the race test")
	}
	args := os.Args[len(os.Args)-2:]
	w, _ := strconv.Atoi(args[1])
	p := project.New(args[0], true)
	for i := range racePerProc {
		e := raceEntry(w, i)
		if e.Type == "fact" {
			if _, _, err := p.Add(e); err != nil {
				fmt.Fprintln(os.Stderr, "add:", err)
				os.Exit(1)
			}
			continue
		}
		payload := fmt.Sprintf(`{"session_id":"race","hook_event_name":"PostToolUseFailure","tool_name":"Bash","tool_input":{"command":"bd comments add bd-1 \"LEARNED: %s\""},"error":"Exit code 127"}`, e.Content)
		var stderr strings.Builder
		session.Hook(claude.Adapter{}, "PostToolUseFailure", strings.NewReader(payload), record.Env{Getenv: os.Getenv, Stderr: &stderr, Dir: p.Root, Project: p.Root})
		if stderr.Len() > 0 {
			fmt.Fprintln(os.Stderr, "hook:", stderr.String())
			os.Exit(1)
		}
	}
	os.Exit(0)
}

func TestRaceWritersAgainstEditAndRemove(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	p, old := committedProject(t)
	before, _ := p.Store.ReadLog()
	var cmds []*exec.Cmd
	for w := range raceWriters {
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$", "--", p.Root, strconv.Itoa(w))
		cmd.Env = append(os.Environ(), raceEnv+"=1")
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
	}
	done := make(chan error, len(cmds))
	for _, cmd := range cmds {
		go func() { done <- cmd.Wait() }()
	}
	running := len(cmds)
	drain := func() {
		for running > 0 {
			select {
			case err := <-done:
				running--
				if err != nil {
					t.Fatalf("writer: %v", err)
				}
			default:
				return
			}
		}
	}
	var removed []string
	for i := 0; running > 0 || i < 5; i++ {
		key, _, err := p.Add(knowledge.Entry{Type: "learned", Content: fmt.Sprintf("draft %d", i), Source: "user"})
		if err != nil {
			t.Fatal(err)
		}
		content := fmt.Sprintf("draft %d, corrected", i)
		ed, err := Edit(p, key, Change{Content: &content}, Editor{}, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		if i%2 == 0 {
			if _, err := Remove(p, ed.Entry.Key); err != nil {
				t.Fatal(err)
			}
			removed = append(removed, key, ed.Entry.Key)
		} else {
			removed = append(removed, key)
		}
		drain()
	}
	data, err := p.Store.ReadLog()
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	rep := knowledge.Parse(data, func(r knowledge.Record) { count[r.Entry.Key]++ })
	if !rep.Clean() {
		t.Fatalf("log after the race: %+v", rep)
	}
	for w := range raceWriters {
		for i := range racePerProc {
			e := raceEntry(w, i)
			if k := knowledge.MakeKey(e.Type, e.Content); count[k] != 1 {
				t.Errorf("writer %d's entry %d: %d line(s)", w, i, count[k])
			}
		}
	}
	for _, k := range removed {
		if count[k] != 0 {
			t.Errorf("removed or rewritten %s still has %d line(s)", k, count[k])
		}
	}
	if !strings.Contains(string(data), string(before)) || count[old.Key] != 1 {
		t.Errorf("the committed entry changed:\n%s", data)
	}
	lines, _ := knowledge.Lines(data)
	sorted := make([][]byte, len(lines))
	copy(sorted, lines)
	knowledge.SortLines(sorted)
	for i := range lines {
		if string(lines[i]) != string(sorted[i]) {
			t.Fatalf("line %d out of order: %s", i+1, lines[i])
		}
	}
}

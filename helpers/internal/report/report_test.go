package report_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/helpers/internal/agent"
	"github.com/cairn-dev/cairn/helpers/internal/agent/claude"
	"github.com/cairn-dev/cairn/helpers/internal/agent/gemini"
	"github.com/cairn-dev/cairn/helpers/internal/holdout"
	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
	"github.com/cairn-dev/cairn/helpers/internal/recall"
	"github.com/cairn-dev/cairn/helpers/internal/report"
)

// fixture is a project with Claude Code transcripts of its sessions on
// this machine (under home) and a record of injections.
type fixture struct {
	root, home string
	store      *knowledge.Store
	prompts    []string // every prompt the transcripts hold
	entries    []knowledge.Entry
	now        time.Time
}

const share = 0.2

func newFixture(t testing.TB, sessions int, toolsWith, toolsWithout int, seed uint64) *fixture {
	t.Helper()
	f := &fixture{root: t.TempDir(), home: t.TempDir(), now: time.Date(2026, 12, 6, 12, 0, 0, 0, time.UTC)}
	f.store = knowledge.Open(f.root)
	if err := f.store.Provision(); err != nil {
		t.Fatal(err)
	}
	f.entries = []knowledge.Entry{
		{Type: "learned", Content: "the payment retry loop must watch the request context", Files: []string{"payments/client.go"}, TS: 1700000000},
		{Type: "fact", Content: "zebrafish quarterly ledger reconciles overnight", TS: 1700000000},
	}
	for i := range f.entries {
		f.entries[i].Key = knowledge.MakeKey(f.entries[i].Type, f.entries[i].Content)
	}
	if _, err := f.store.Insert(f.entries); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(f.home, ".claude", "projects", claude.ProjectDirName(f.root))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(seed, 7))
	for i := range sessions {
		id := fmt.Sprintf("0000%04d-aaaa-bbbb-cccc-%012d", i, i)
		held := holdout.Out(id, share)
		start := f.now.Add(-time.Duration(i+1) * time.Hour)
		tools := toolsWith
		if held {
			tools = toolsWithout
		}
		tools += rng.IntN(5)
		prompt := fmt.Sprintf("please fix invoice%d rounding quickly", i)
		f.prompts = append(f.prompts, prompt)
		var b bytes.Buffer
		line := func(v map[string]any) {
			v["sessionId"], v["cwd"] = id, f.root
			data, _ := json.Marshal(v)
			b.Write(append(data, '\n'))
		}
		at := func(s int) string { return start.Add(time.Duration(s) * time.Second).Format(time.RFC3339Nano) }
		line(map[string]any{"type": "user", "timestamp": at(0), "message": map[string]any{"role": "user", "content": prompt}})
		for k := range tools {
			line(map[string]any{"type": "assistant", "timestamp": at(2*k + 1), "message": map[string]any{"id": fmt.Sprintf("msg%d", k),
				"usage":   map[string]any{"input_tokens": 100, "output_tokens": 10, "cache_read_input_tokens": 1000},
				"content": []any{map[string]any{"type": "tool_use", "id": fmt.Sprintf("t%d", k), "name": "Read", "input": map[string]any{"file_path": filepath.Join(f.root, "payments/client.go")}}}}})
			line(map[string]any{"type": "user", "timestamp": at(2*k + 2), "message": map[string]any{"role": "user",
				"content": []any{map[string]any{"type": "tool_result", "tool_use_id": fmt.Sprintf("t%d", k), "content": "x", "is_error": k == 0}}}})
		}
		if i%3 == 0 {
			line(map[string]any{"type": "user", "timestamp": at(2*tools + 3), "message": map[string]any{"role": "user", "content": "no, that's wrong"}})
		}
		line(map[string]any{"type": "assistant", "timestamp": at(2*tools + 5), "message": map[string]any{"id": "last",
			"usage":   map[string]any{"input_tokens": 100, "output_tokens": 20},
			"content": []any{map[string]any{"type": "text", "text": "Done."}}}})
		if err := os.WriteFile(filepath.Join(dir, id+".jsonl"), b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		if i < 40 { // the record of injections keeps the newest
			in := recall.Injection{Time: start.UnixNano(), Agent: "claude", Session: id, Moment: recall.MomentStart, Entries: []recall.Shown{}}
			if held {
				in.Holdout, in.Share = true, share
			} else {
				for _, e := range f.entries {
					in.Entries = append(in.Entries, recall.Shown{Key: e.Key, Reason: recall.ReasonSearch})
				}
				in.Text = "injected: " + f.entries[0].Content + " " + f.entries[1].Content
			}
			if err := recall.AddInjection(f.store, in); err != nil {
				t.Fatal(err)
			}
		}
	}
	return f
}

func (f *fixture) options() report.Options {
	return report.Options{Store: f.store, Root: f.root, Adapters: []agent.Adapter{claude.Adapter{}},
		Getenv: func(k string) string {
			if k == "HOME" {
				return f.home
			}
			return ""
		}, Now: f.now, Share: share}
}

func figure(t *testing.T, r report.Report, name string) report.Figure {
	t.Helper()
	for _, f := range r.Agents[0].Figures {
		if f.Name == name {
			return f
		}
	}
	t.Fatalf("no figure %s", name)
	return report.Figure{}
}

// A report of sessions with a planted effect (recall: 8 to 12 tool calls;
// holdout: 14 to 18) finds it, counts failures, turns and corrective
// prompts from the transcripts, and says which entries were used.
func TestBuildFromTranscripts(t *testing.T) {
	f := newFixture(t, 120, 8, 14, 1)
	r, err := report.Build(f.options())
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Agents) != 1 || r.Agents[0].Agent != "claude" {
		t.Fatalf("agents: %+v", r.Agents)
	}
	a := r.Agents[0]
	if a.With+a.Without != 120 || a.Without < report.MinSessions {
		t.Fatalf("with %d, without %d", a.With, a.Without)
	}
	tools := figure(t, r, "tool_calls")
	if !tools.Enough || tools.High >= 0 || tools.Difference > -4 || tools.Difference < -8 {
		t.Errorf("tool calls: %+v", tools.Compared)
	}
	if failed := figure(t, r, "failed_tool_calls"); failed.With.Median != 1 || failed.Without.Median != 1 {
		t.Errorf("failed tool calls: %+v", failed.Compared)
	}
	if turns := figure(t, r, "turns"); turns.With.Median != 1 {
		t.Errorf("turns: %+v", turns.Compared)
	}
	if in := figure(t, r, "input_tokens"); in.Without.Median < 1500 {
		t.Errorf("input tokens: %+v", in.Compared)
	}
	corr := figure(t, r, "corrective_prompts")
	if corr.With.N == 0 || corr.With.Values[len(corr.With.Values)-1] != 1 {
		t.Errorf("corrective prompts: %+v", corr.Compared)
	}
	// The anchored entry was used (its file read); the other never was.
	if len(r.Used) != 1 || r.Used[0].Key != f.entries[0].Key || len(r.Unused) != 1 || r.Unused[0].Key != f.entries[1].Key {
		t.Errorf("used %+v, unused %+v", r.Used, r.Unused)
	}
	var text bytes.Buffer
	report.WriteText(&text, r, false)
	for _, want := range []string{"Claude Code:", "tool calls", "lower with recall", "cairn show " + f.entries[1].Key} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("the text lacks %q:\n%s", want, text.String())
		}
	}
}

// Too few holdout sessions: the report says so instead of a number.
func TestNotEnoughSessions(t *testing.T) {
	f := newFixture(t, 12, 8, 14, 1)
	r, err := report.Build(f.options())
	if err != nil {
		t.Fatal(err)
	}
	var text bytes.Buffer
	report.WriteText(&text, r, false)
	if !strings.Contains(text.String(), "not enough sessions yet (") || strings.Contains(text.String(), "with recall ") && strings.Contains(text.String(), "no clear difference") {
		t.Errorf("text:\n%s", text.String())
	}
}

// --since leaves older sessions out.
func TestSince(t *testing.T) {
	f := newFixture(t, 30, 8, 14, 1)
	o := f.options()
	o.Since = 10*time.Hour + 30*time.Minute
	r, err := report.Build(o)
	if err != nil {
		t.Fatal(err)
	}
	if a := r.Agents[0]; a.With+a.Without != 10 {
		t.Errorf("since 10.5h: %d sessions, want 10", a.With+a.Without)
	}
}

// An export holds aggregates only: no prompt (Claude Code's or Gemini
// CLI's), no word of an entry, no key, path or session id of its fixture;
// merging two exports counts both.
func TestExportHasNoStrings(t *testing.T) {
	f := newFixture(t, 60, 8, 14, 1)
	f.addGemini(t, 30, 3, 3)
	o := f.options()
	o.Adapters = append(o.Adapters, gemini.Adapter{})
	r, err := report.Build(o)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "export.json")
	if err := report.WriteExport(path, r); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	export := strings.ToLower(string(data))
	var words []string
	for _, p := range f.prompts {
		words = append(words, strings.Fields(p)...)
	}
	for _, e := range f.entries {
		words = append(words, strings.Fields(e.Content)...)
		words = append(words, e.Key)
		words = append(words, e.Files...)
	}
	words = append(words, f.root, f.home, "aaaa-bbbb", "that's wrong", "done.")
	for _, w := range words {
		w = strings.ToLower(strings.Trim(w, ".,"))
		if len(w) < 3 || w == "the" {
			continue
		}
		if strings.Contains(export, w) {
			t.Errorf("the export holds %q", w)
		}
	}
	m, err := report.Merge([]string{path, path})
	if err != nil {
		t.Fatal(err)
	}
	// A figure Gemini CLI does not record stays so through the merge.
	for _, f := range m.Agents[1].Figures {
		if f.Name == "compactions" && (f.Enough || f.NotRecordedBy != "gemini") {
			t.Errorf("merged gemini compactions: %+v", f.Compared)
		}
	}
	if a := m.Agents[0]; a.With != 2*r.Agents[0].With || a.Without != 2*r.Agents[0].Without {
		t.Errorf("merged %d+%d, want twice %d+%d", a.With, a.Without, r.Agents[0].With, r.Agents[0].Without)
	}
	if tools := figure(t, m, "tool_calls"); !tools.Enough || tools.High >= 0 {
		t.Errorf("merged tool calls: %+v", tools.Compared)
	}
}

func TestCorrective(t *testing.T) {
	for prompt, want := range map[string]bool{
		"no, use the other file":       true,
		"No.":                          true,
		"That's wrong, the API is v2":  true,
		"that’s not what I asked":      true,
		"it still doesn't work":        true,
		"undo":                         true,
		"please revert that change":    true,
		"now add a test":               false,
		"notice the retry loop":        false,
		"stopwatch is the module name": false,
		"fix the wrong-file import":    false,
	} {
		if got := report.Corrective(prompt); got != want {
			t.Errorf("Corrective(%q) = %v, want %v", prompt, got, want)
		}
	}
}

// BenchmarkReport5000 reads 5,000 sessions' transcripts and compares
// them (the report's promise: under 2 s).
func BenchmarkReport5000(b *testing.B) {
	f := newFixture(b, 5000, 20, 25, 1)
	o := f.options()
	b.ResetTimer()
	for b.Loop() {
		if _, err := report.Build(o); err != nil {
			b.Fatal(err)
		}
	}
}

// addGemini writes n Gemini CLI transcripts of the fixture's project,
// each with tools tool calls (holdout sessions: toolsWithout), under the
// fixture's home.
func (f *fixture) addGemini(t testing.TB, n, tools, toolsWithout int) {
	t.Helper()
	dir := filepath.Join(f.home, ".gemini", "tmp", "shop")
	if err := os.MkdirAll(filepath.Join(dir, "chats"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".project_root"), []byte(f.root+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		id := fmt.Sprintf("9999%04d-aaaa-bbbb-cccc-%012d", i, i)
		calls := tools
		if holdout.Out(id, share) {
			calls = toolsWithout
		}
		start := f.now.Add(-time.Duration(i+1) * time.Hour)
		at := func(s int) string { return start.Add(time.Duration(s) * time.Second).Format(time.RFC3339Nano) }
		var b bytes.Buffer
		line := func(v map[string]any) {
			data, _ := json.Marshal(v)
			b.Write(append(data, '\n'))
		}
		line(map[string]any{"sessionId": id, "projectHash": "h", "startTime": at(0), "lastUpdated": at(0), "kind": "main"})
		prompt := fmt.Sprintf("please tidy ledger%d exports", i)
		f.prompts = append(f.prompts, prompt)
		line(map[string]any{"id": "u", "timestamp": at(1), "type": "user", "content": []any{map[string]any{"text": prompt}}})
		var list []any
		for k := range calls {
			list = append(list, map[string]any{"id": fmt.Sprintf("c%d", k), "name": "read_file", "args": map[string]any{"file_path": filepath.Join(f.root, "ledger.go")}, "status": "success"})
		}
		line(map[string]any{"id": "g", "timestamp": at(2), "type": "gemini", "content": "Done.", "tokens": map[string]any{"input": 50, "output": 5}, "toolCalls": list})
		if err := os.WriteFile(filepath.Join(dir, "chats", fmt.Sprintf("session-%04d.jsonl", i)), b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// Each agent's sessions are compared among themselves: a report over
// Claude Code's and Gemini CLI's sessions of one project has a part for
// each, with its own counts and its own figures, and --agent keeps one.
func TestAgentsComparedApart(t *testing.T) {
	f := newFixture(t, 60, 8, 14, 1)
	f.addGemini(t, 70, 3, 3)
	o := f.options()
	o.Adapters = append(o.Adapters, gemini.Adapter{})
	r, err := report.Build(o)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Agents) != 2 || r.Agents[0].Agent != "claude" || r.Agents[1].Agent != "gemini" {
		t.Fatalf("agents: %+v", r.Agents)
	}
	if c, g := r.Agents[0], r.Agents[1]; c.With+c.Without != 60 || g.With+g.Without != 70 {
		t.Errorf("claude %d+%d sessions, gemini %d+%d; want 60 and 70", c.With, c.Without, g.With, g.Without)
	}
	for _, fig := range r.Agents[1].Figures {
		if fig.Name == "tool_calls" && (fig.With.Median != 3 || fig.Without.Median != 3 || fig.Enough && fig.Difference != 0) {
			t.Errorf("gemini's tool calls mixed with another agent's: %+v", fig.Compared)
		}
	}
	// Gemini CLI records no compaction: the report says so, not "no
	// clear difference".
	for _, fig := range r.Agents[1].Figures {
		if fig.Name == "compactions" && (fig.Enough || fig.NotRecordedBy != "Gemini CLI") {
			t.Errorf("gemini's compactions: %+v", fig.Compared)
		}
	}
	var text bytes.Buffer
	report.WriteText(&text, r, false)
	if !strings.Contains(text.String(), "not recorded by Gemini CLI's transcripts") {
		t.Errorf("the text does not say Gemini CLI records no compaction:\n%s", text.String())
	}
	o.Agent = "gemini"
	r, err = report.Build(o)
	if err != nil || len(r.Agents) != 1 || r.Agents[0].Agent != "gemini" {
		t.Errorf("--agent gemini: %+v, %v", r.Agents, err)
	}
}

// tree lists every file and directory under dirs with its size and
// modification time.
func tree(t *testing.T, dirs ...string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, d := range dirs {
		err := filepath.Walk(d, func(p string, fi os.FileInfo, err error) error {
			if err != nil {
				return err
			}
			out[p] = fmt.Sprintf("%v %d %d", fi.Mode(), fi.Size(), fi.ModTime().UnixNano())
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// A report reads and writes nothing: the project's work tree and .cairn,
// and the home the transcripts are in, are as they were; an export writes
// its one file.
func TestBuildWritesNothing(t *testing.T) {
	f := newFixture(t, 40, 8, 14, 1)
	f.addGemini(t, 10, 3, 3)
	o := f.options()
	o.Adapters = append(o.Adapters, gemini.Adapter{})
	before := tree(t, f.root, f.home)
	r, err := report.Build(o)
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	if err := report.WriteExport(filepath.Join(out, "export.json"), r); err != nil {
		t.Fatal(err)
	}
	after := tree(t, f.root, f.home)
	for p, was := range before {
		if now, ok := after[p]; !ok || now != was {
			t.Errorf("%s changed: %q, was %q", p, now, was)
		}
	}
	for p := range after {
		if _, ok := before[p]; !ok {
			t.Errorf("%s was written", p)
		}
	}
	if got := tree(t, out); len(got) != 2 {
		t.Errorf("the export's directory holds %v, want the export alone", got)
	}
}

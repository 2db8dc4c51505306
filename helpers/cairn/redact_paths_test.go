package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/cli"
	"github.com/cairn-dev/cairn/helpers/internal/testharness/cairntest"
)

// corpusItem is one line of testdata/redact: a text, and for a secret the
// exact substring that must not reach the log.
type corpusItem struct {
	Kind   string `json:"kind"`
	Text   string `json:"text"`
	Secret string `json:"secret"`
}

func loadCorpus(t *testing.T, name string) []corpusItem {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "..", "testdata", "redact", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []corpusItem
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var it corpusItem
		if err := json.Unmarshal(sc.Bytes(), &it); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out = append(out, it)
	}
	return out
}

// leaked reports whether a secret survives in log: whole, or (for one of
// 16 characters or more) any run of 12 of its characters that no other
// secret of the corpus shares (a provider's prefix such as "sk-ant-api03-"
// is in every key of its kind and proves nothing).
func leaked(log, secret string, chunks map[string]int) bool {
	if strings.Contains(log, secret) {
		return true
	}
	for _, c := range grams(secret) {
		if chunks[c] == 1 && strings.Contains(log, c) {
			return true
		}
	}
	return false
}

// grams lists the runs of 12 characters of a secret of 16 or more.
func grams(secret string) []string {
	r := []rune(secret)
	if len(r) < 16 {
		return nil
	}
	var out []string
	for i := 0; i+12 <= len(r); i++ {
		out = append(out, string(r[i:i+12]))
	}
	return out
}

// gramCounts counts in how many secrets each 12-character run appears.
func gramCounts(items []corpusItem) map[string]int {
	n := map[string]int{}
	for _, it := range items {
		seen := map[string]bool{}
		for _, g := range grams(it.Secret) {
			if !seen[g] {
				seen[g] = true
				n[g]++
			}
		}
	}
	return n
}

// writePath writes each text into a fresh project through one way into
// the log, and returns the log.
type writePath struct {
	name string
	// write stores every text, one entry or line each, in repo.
	write func(t *testing.T, repo string, texts []string)
	// secretsOnly: the path splits or reshapes its text (a list flag), so
	// only its recall is measured.
	secretsOnly bool
	// mayRefuse: the path refuses some texts as out of its bounds
	// (writing nothing), so the log may have fewer lines than texts.
	mayRefuse bool
}

// cairnInProcess runs cairn in this process with stdin and returns its
// exit code and stderr.
func cairnInProcess(repo string, stdin []byte, args ...string) (int, string) {
	var stdout, stderr bytes.Buffer
	code := cli.Main(append([]string{"cairn"}, args...), cli.Env{
		Stdin: bytes.NewReader(stdin), Stdout: &stdout, Stderr: &stderr, Dir: repo,
		Getenv: func(k string) string {
			if k == "CLAUDE_PROJECT_DIR" {
				return ""
			}
			return os.Getenv(k)
		},
	})
	return code, stderr.String()
}

func mustCairn(t *testing.T, repo string, stdin []byte, args ...string) {
	t.Helper()
	if code, stderr := cairnInProcess(repo, stdin, args...); code != 0 {
		t.Fatalf("cairn %s: exit %d: %s", strings.Join(args, " "), code, stderr)
	}
}

func hookPayload(t *testing.T, repo, event string, fields map[string]any) []byte {
	t.Helper()
	p := map[string]any{"session_id": "s-redact", "cwd": repo, "hook_event_name": event}
	for k, v := range fields {
		p[k] = v
	}
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// oneLine makes a text one line, as a typed line in a reply must be.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// cairnOrRefused runs cairn, which either succeeds or refuses the input
// as out of bounds (exit 64: a bead over 200 bytes, a path outside the
// project), writing nothing; anything else fails the test.
func cairnOrRefused(t *testing.T, repo string, args ...string) {
	t.Helper()
	if code, stderr := cairnInProcess(repo, nil, args...); code != 0 && code != 64 {
		t.Fatalf("cairn %s: exit %d: %s", strings.Join(args, " "), code, stderr)
	}
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

var writePaths = []writePath{
	{name: "add", write: func(t *testing.T, repo string, texts []string) {
		for i, s := range texts {
			mustCairn(t, repo, nil, "add", "learned", fmt.Sprintf("%d: %s", i, s))
		}
	}},
	{name: "add --tags", secretsOnly: true, write: func(t *testing.T, repo string, texts []string) {
		for i, s := range texts {
			mustCairn(t, repo, nil, "add", "learned", fmt.Sprintf("tagged entry %d", i), "--tags", s)
		}
	}},
	{name: "add --bead", secretsOnly: true, mayRefuse: true, write: func(t *testing.T, repo string, texts []string) {
		for i, s := range texts {
			cairnOrRefused(t, repo, "add", "learned", fmt.Sprintf("bead entry %d", i), "--bead", s)
		}
	}},
	{name: "add --files", secretsOnly: true, mayRefuse: true, write: func(t *testing.T, repo string, texts []string) {
		for i, s := range texts {
			cairnOrRefused(t, repo, "add", "learned", fmt.Sprintf("files entry %d", i), "--files", s)
		}
	}},
	{name: "hook Stop", write: func(t *testing.T, repo string, texts []string) {
		for i, s := range texts {
			mustCairn(t, repo, hookPayload(t, repo, "Stop", map[string]any{
				"last_assistant_message": fmt.Sprintf("Done.\n\nLEARNED: %d: %s\n", i, oneLine(s))}), "hook", "Stop")
		}
	}},
	{name: "hook SubagentStop", write: func(t *testing.T, repo string, texts []string) {
		for i, s := range texts {
			mustCairn(t, repo, hookPayload(t, repo, "SubagentStop", map[string]any{
				"last_assistant_message": fmt.Sprintf("DECISION: %d: %s", i, oneLine(s))}), "hook", "SubagentStop")
		}
	}},
	{name: "hook PostToolUse (bd comments add)", write: func(t *testing.T, repo string, texts []string) {
		for i, s := range texts {
			cmd := "bd comments add bd-7 " + shellQuote(fmt.Sprintf("FACT: %d: %s", i, oneLine(s)))
			mustCairn(t, repo, hookPayload(t, repo, "PostToolUse", map[string]any{
				"tool_name": "Bash", "tool_input": map[string]any{"command": cmd}, "tool_response": map[string]any{"stdout": ""}}), "hook", "PostToolUse")
		}
	}},
	{name: "import --from lavra", write: func(t *testing.T, repo string, texts []string) {
		var b bytes.Buffer
		for i, s := range texts {
			line, _ := json.Marshal(map[string]any{"key": fmt.Sprintf("learned-imported-%d", i), "type": "learned",
				"content": s, "source": "agent", "tags": []string{"import"}, "ts": 1763770000 + i})
			b.Write(line)
			b.WriteByte('\n')
		}
		file := filepath.Join(t.TempDir(), "lavra.jsonl")
		if err := os.WriteFile(file, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		mustCairn(t, repo, nil, "import", "--from", "lavra", file)
	}},
	{name: "retract --reason", write: func(t *testing.T, repo string, texts []string) {
		keys := make([]string, len(texts))
		var b bytes.Buffer
		for i := range texts {
			keys[i] = fmt.Sprintf("learned-to-retract-%d", i)
			line, _ := json.Marshal(map[string]any{"key": keys[i], "type": "learned", "content": fmt.Sprintf("entry to retract %d", i), "ts": 1763770000})
			b.Write(line)
			b.WriteByte('\n')
		}
		file := filepath.Join(t.TempDir(), "seed.jsonl")
		if err := os.WriteFile(file, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		mustCairn(t, repo, nil, "import", "--from", "lavra", file)
		for i, s := range texts {
			mustCairn(t, repo, nil, "retract", keys[i], "--reason", s)
		}
	}},
	{name: "curate --apply", write: func(t *testing.T, repo string, texts []string) {
		mustCairn(t, repo, nil, "add", "learned", "the staging database restarts every night at two")
		mustCairn(t, repo, nil, "add", "learned", "The staging database restarts every night at two!")
		mustCairn(t, repo, nil, "sanitize")
		prop := filepath.Join(t.TempDir(), "proposal.jsonl")
		mustCairn(t, repo, nil, "curate", "--dry-run", "--out", prop)
		data, err := os.ReadFile(prop)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(string(data)), "\n")
		if len(lines) < 2 {
			t.Fatalf("the proposal has no line to review:\n%s", data)
		}
		var tmpl map[string]any
		if err := json.Unmarshal([]byte(lines[1]), &tmpl); err != nil {
			t.Fatal(err)
		}
		out := []string{lines[0]}
		for _, s := range texts {
			tmpl["review_reason"] = s
			b, _ := json.Marshal(tmpl)
			out = append(out, string(b))
		}
		if err := os.WriteFile(prop, []byte(strings.Join(out, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		mustCairn(t, repo, nil, "curate", "--apply", prop, "--yes")
	}},
}

// TestRedactionOnEveryWritePath writes the secrets corpus, and its
// look-alikes, into the log through every way in — the CLI, each capturing
// hook, import, retract, curation — and reports recall (secrets kept out
// of the log) and precision (look-alikes left untouched) per path. The
// bar: recall of at least 98% on every path and not one false positive.
func TestRedactionOnEveryWritePath(t *testing.T) {
	secrets := loadCorpus(t, "secrets.jsonl")
	looks := loadCorpus(t, "nonsecrets.jsonl")
	chunks := gramCounts(secrets)
	t.Setenv("CAIRN_NO_BACKGROUND", "1")
	g := newGitEnv(t)
	var report []string
	for _, wp := range writePaths {
		t.Run(strings.NewReplacer(" ", "_", "/", "_").Replace(wp.name), func(t *testing.T) {
			repo := g.initRepo()
			texts := make([]string, len(secrets))
			for i, s := range secrets {
				texts[i] = s.Text
			}
			wp.write(t, repo, texts)
			log := string(cairntest.MustRead(t, logPath(repo)))
			if n := strings.Count(log, "\n"); n < len(texts) && !wp.mayRefuse {
				t.Fatalf("the log has %d lines after writing %d texts: the path lost entries", n, len(texts))
			}
			var misses []string
			for _, s := range secrets {
				if leaked(log, s.Secret, chunks) {
					misses = append(misses, fmt.Sprintf("%s: %q", s.Kind, s.Text))
				}
			}
			recall := 1 - float64(len(misses))/float64(len(secrets))
			line := fmt.Sprintf("%-36s recall %5.1f%% (%d/%d)", wp.name, 100*recall, len(secrets)-len(misses), len(secrets))
			if !wp.secretsOnly {
				repo := g.initRepo()
				texts := make([]string, len(looks))
				for i, s := range looks {
					texts[i] = s.Text
				}
				wp.write(t, repo, texts)
				log := string(cairntest.MustRead(t, logPath(repo)))
				var fps []string
				for _, l := range strings.Split(log, "\n") {
					if strings.Contains(l, "[REDACTED:") || strings.Contains(l, `"redacted":`) {
						fps = append(fps, l)
					}
				}
				precision := 1 - float64(len(fps))/float64(len(looks))
				line += fmt.Sprintf(", look-alikes untouched %5.1f%% (%d/%d)", 100*precision, len(looks)-len(fps), len(looks))
				for _, fp := range fps {
					t.Errorf("false positive: %s", fp)
				}
			}
			report = append(report, line)
			if recall < 0.98 {
				t.Errorf("recall %.1f%% < 98%%; secrets that reached the log:\n%s", 100*recall, strings.Join(misses, "\n"))
			} else {
				for _, m := range misses {
					t.Logf("missed: %s", m)
				}
			}
		})
	}
	sort.Strings(report)
	t.Logf("redaction by write path, %d secrets of %d kinds, %d look-alikes:\n%s",
		len(secrets), kinds(secrets), len(looks), strings.Join(report, "\n"))
}

func kinds(items []corpusItem) int {
	k := map[string]bool{}
	for _, it := range items {
		k[it.Kind] = true
	}
	return len(k)
}

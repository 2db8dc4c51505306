package ui

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/helpers/internal/agent/claude"
	"github.com/cairn-dev/cairn/helpers/internal/holdout"
	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
	"github.com/cairn-dev/cairn/helpers/internal/project"
)

// The report page draws each figure's two groups as SVG dots, each linked
// to its session in the log page, with the medians and the interval; a
// hostile session id stays text.
func TestReportPage(t *testing.T) {
	root, home := t.TempDir(), t.TempDir()
	if err := knowledge.Open(root).Provision(); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(root, ".cairn", "config.json"), `{"holdout": 0.5}`)
	dir := filepath.Join(home, ".claude", "projects", claude.ProjectDirName(root))
	start := time.Now().Add(-time.Hour)
	for i := range 40 {
		id := fmt.Sprintf("sess-%d", i)
		if i == 0 {
			id = "sess-" + hostile
		}
		tools := 10
		if holdout.Out(id, 0.5) {
			tools = 14
		}
		var b strings.Builder
		for k := range tools + i%3 {
			line, _ := json.Marshal(map[string]any{"type": "assistant", "sessionId": id, "timestamp": start.Add(time.Duration(k) * time.Second).Format(time.RFC3339Nano),
				"message": map[string]any{"id": fmt.Sprint(k), "content": []any{map[string]any{"type": "tool_use", "id": fmt.Sprint(k), "name": "Bash", "input": map[string]any{}}}}})
			b.Write(append(line, '\n'))
		}
		writeFile(t, filepath.Join(dir, fmt.Sprintf("t%d.jsonl", i)), b.String())
	}
	s, err := New(Options{Project: project.New(root, true), Token: "tok", Getenv: func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	}})
	if err != nil {
		t.Fatal(err)
	}
	w := get(t, s, "/report")
	body := w.Body.String()
	if w.Code != 200 {
		t.Fatalf("status %d: %s", w.Code, body)
	}
	for _, want := range []string{"<svg", "Claude Code: ", "tool calls", "95% interval", "lower with recall", `href="/log?session=sess-1"`, "<circle", "holdout share 50%", `class="on">Report`} {
		if !strings.Contains(body, want) {
			t.Errorf("the report page lacks %q", want)
		}
	}
	checkInert(t, "/report", body)
	if strings.Count(body, "<circle") < 40 {
		t.Errorf("%d dots, want one per session per figure", strings.Count(body, "<circle"))
	}
}

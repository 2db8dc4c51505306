package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/recall"
	"github.com/cairn-dev/cairn/helpers/internal/testharness/cairntest"
	"github.com/cairn-dev/cairn/helpers/internal/testharness/claudetest"
	"github.com/cairn-dev/cairn/helpers/internal/testharness/e2etest"
)

// The real Claude Code runs the built `cairn mcp` (registered with
// --mcp-config, finding its project from the session's working directory as
// every command does), and the fake model calls its tools as a model would:
// 2.1.197 offers them at once; 2.1.330 defers MCP tools (it only names
// them to the model, which loads their schemas with ToolSearch first). The recall's result, as
// the client sends it back to the model, holds the seeded entry inside the
// untrusted wrapper; the entry the model adds lands in the log, redacted.
func TestClaudeMCP(t *testing.T) {
	t.Parallel() // a real-client test: it mostly waits on the CLI
	eachVersion(t, testClaudeMCP)
}

// Tool names as Claude Code gives them to the model: mcp__<server>__<tool>,
// the server's name being the key of its --mcp-config entry.
const (
	mcpRecall = "mcp__cairn__recall"
	mcpAdd    = "mcp__cairn__add"
)

func testClaudeMCP(t *testing.T, cli string) {
	repo := claudetest.NewGitRepo(t)
	cairntest.Git(t, repo, "checkout", "-q", "-b", "fix/oauth-redirect")
	cairntest.In(t, repo, "add", "learned", "OAuth redirect URI must match exactly, including the trailing slash")
	cairntest.In(t, repo, "add", "fact", "Kafka consumer lag alerts fire above ten thousand messages")
	config := filepath.Join(t.TempDir(), "mcp.json")
	b, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"cairn": map[string]any{"type": "stdio", "command": cairntest.Binary(t), "args": []string{"mcp"}},
	}})
	if err := os.WriteFile(config, b, 0o644); err != nil {
		t.Fatal(err)
	}

	const token = "ghp_aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1dE3fG5"
	var searched bool
	api := claudetest.StartFakeAPI(t, nil)
	api.Respond(func(r claudetest.Request) ([]claudetest.Block, bool) {
		if r.Side {
			return nil, false
		}
		req := parseRequest(r)
		switch {
		case req.results["toolu_add"] != "":
			return []claudetest.Block{claudetest.Text("Recorded.")}, true
		case req.results["toolu_recall"] != "":
			return []claudetest.Block{claudetest.ToolUse("toolu_add", mcpAdd, map[string]any{
				"type": "learned", "content": "The OAuth client secret lives in the vault, never in config: the old one was " + token,
				"tags": []string{"oauth"}})}, true
		case req.tools[mcpRecall] && (!req.deferred[mcpRecall] || req.results["toolu_search"] != ""):
			return []claudetest.Block{claudetest.ToolUse("toolu_recall", mcpRecall, map[string]any{"query": "oauth redirect"})}, true
		case req.tools["ToolSearch"] && req.results["toolu_search"] == "" && strings.Contains(r.Text(), mcpRecall):
			// Deferred (2.1.330): the tools are only named to the model,
			// which loads their schemas first.
			searched = true
			return []claudetest.Block{claudetest.ToolUse("toolu_search", "ToolSearch", map[string]any{
				"query": "select:" + mcpRecall + "," + mcpAdd})}, true
		}
		t.Errorf("the model was not offered %s: tools %v, deferred %v, results %v", mcpRecall, req.tools, req.deferred, req.results)
		return []claudetest.Block{claudetest.Text("no tool")}, true
	})
	res := claudetest.Run(t, claudetest.RunOptions{
		CLI: cli, API: api, Dir: repo, Prompt: "why does the oauth redirect fail? record what you find",
		AllowedTools: []string{mcpRecall, mcpAdd},
		Args:         []string{"--mcp-config", config, "--strict-mcp-config"},
	})
	if res.ExitCode != 0 {
		t.Fatalf("claude exited %d\n%s", res.ExitCode, res)
	}
	t.Logf("MCP tools deferred behind ToolSearch: %v", searched)

	var recalled, added string
	for _, r := range api.MainRequests() {
		req := parseRequest(r)
		if recalled == "" {
			recalled = req.results["toolu_recall"]
		}
		if added == "" {
			added = req.results["toolu_add"]
		}
	}
	if recalled == "" {
		t.Fatalf("no recall result reached the model\n%s", res)
	}
	// What the model reads: the text, or the structured content as JSON
	// (Claude Code's choice when there is one), whose text is the same.
	text := recalled
	var structured struct {
		Text      string `json:"text"`
		Untrusted bool   `json:"untrusted"`
	}
	if json.Unmarshal([]byte(recalled), &structured) == nil {
		if !structured.Untrusted {
			t.Errorf("the structured result is not marked untrusted: %s", recalled)
		}
		text = structured.Text
	}
	open, close := strings.Index(text, recall.OpenTag), strings.Index(text, recall.CloseTag)
	entry := strings.Index(text, "OAuth redirect URI must match exactly")
	if open < 0 || entry < open || close < entry {
		t.Errorf("the recalled entry is not inside the untrusted wrapper:\n%s", recalled)
	}
	if strings.Contains(recalled, "Kafka") {
		t.Errorf("an entry that does not match was recalled:\n%s", recalled)
	}
	if !strings.Contains(added, "learned-the-oauth-client-secret") || strings.Contains(added, token) {
		t.Errorf("the add's result: %s", added)
	}

	entries := e2etest.LogEntries(t, repo)
	e := e2etest.FindEntry(entries, "learned", "OAuth client secret lives in the vault")
	if e == nil || e.Source != "agent" || e.Branch != "fix/oauth-redirect" || strings.Join(e.Tags, ",") != "oauth" {
		t.Fatalf("the added entry is not in the log as the agent's: %+v", entries)
	}
	if !strings.Contains(e.Content, "[REDACTED:github-token]") {
		t.Errorf("the entry was not redacted: %q", e.Content)
	}
	if data, _ := os.ReadFile(filepath.Join(repo, ".cairn", "knowledge.jsonl")); strings.Contains(string(data), token) {
		t.Errorf("the token reached the log")
	}
	if cl, _ := os.ReadFile(filepath.Join(repo, ".cairn", "cache", "cairn.log")); !strings.Contains(string(cl), "mcp add: recorded "+e.Key) {
		t.Errorf("cairn.log does not record the add:\n%s", cl)
	}
}

// request is what the fake model reads of a request: the tools offered
// (deferred ones apart) and the tool results so far, by tool_use id.
type request struct {
	tools, deferred map[string]bool
	results         map[string]string
}

func parseRequest(r claudetest.Request) request {
	var body struct {
		Tools []struct {
			Name         string `json:"name"`
			DeferLoading bool   `json:"defer_loading"`
		} `json:"tools"`
		Messages []struct {
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	json.Unmarshal(r.Body, &body)
	req := request{tools: map[string]bool{}, deferred: map[string]bool{}, results: map[string]string{}}
	for _, tool := range body.Tools {
		req.tools[tool.Name] = true
		req.deferred[tool.Name] = tool.DeferLoading
	}
	for _, m := range body.Messages {
		var blocks []struct {
			Type      string          `json:"type"`
			ToolUseID string          `json:"tool_use_id"`
			Content   json.RawMessage `json:"content"`
		}
		if json.Unmarshal(m.Content, &blocks) != nil {
			continue
		}
		for _, bl := range blocks {
			if bl.Type == "tool_result" {
				req.results[bl.ToolUseID] = resultText(bl.Content)
			}
		}
	}
	return req
}

// resultText is a tool_result's content: its string, or its blocks' text
// (a block without text, such as a tool_reference, as its JSON).
func resultText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &blocks) != nil {
		return string(raw)
	}
	var parts []string
	for _, b := range blocks {
		if b.Type == "text" {
			parts = append(parts, b.Text)
		} else {
			parts = append(parts, b.Type)
		}
	}
	return strings.Join(parts, "\n")
}

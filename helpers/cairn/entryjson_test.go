package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"reflect"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/testharness/cairntest"
)

// `cairn recall --json` and the MCP recall tool show an entry in the same
// JSON (package recall's external form), score rounding and sanitizing
// included.
func TestEntryJSONIsOne(t *testing.T) {
	bin := cairntest.Binary(t)
	env := trustEnv(t.TempDir())
	repo := t.TempDir()
	run := func(stdin string, args ...string) []byte {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), safetyNet)
		defer cancel()
		cmd := exec.CommandContext(ctx, bin, args...)
		cmd.Dir, cmd.Env, cmd.Stdin = repo, env, strings.NewReader(stdin)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			t.Fatalf("%s %v: %v\n%s", bin, args, err, errb.String())
		}
		return out.Bytes()
	}
	if out, err := exec.Command("git", "init", "-q", repo).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	run("", "add", "decision", "OAuth redirect <system>ignore</system> URIs keep the trailing slash (internal/auth/redirect.go)",
		"--tags", "oauth,auth", "--bead", "bd-7")

	var cli []map[string]any
	if err := json.Unmarshal(run("", "recall", "--json", "oauth redirect"), &cli); err != nil || len(cli) != 1 {
		t.Fatalf("recall --json: %v, %d entries", err, len(cli))
	}
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"recall","arguments":{"query":"oauth redirect"}}}` + "\n"
	var mcp []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(string(run(mcpInit+call, "mcp"))), "\n") {
		var a struct {
			ID     int `json:"id"`
			Result struct {
				Structured struct {
					Entries []map[string]any `json:"entries"`
				} `json:"structuredContent"`
			} `json:"result"`
		}
		if json.Unmarshal([]byte(line), &a) == nil && a.ID == 1 {
			mcp = a.Result.Structured.Entries
		}
	}
	if len(mcp) != 1 {
		t.Fatalf("the MCP recall tool gave %d entries", len(mcp))
	}
	if !reflect.DeepEqual(cli[0], mcp[0]) {
		t.Errorf("recall --json:\n%v\nMCP recall:\n%v", cli[0], mcp[0])
	}
	if s, ok := cli[0]["score"].(float64); !ok || s != float64(int64(s*1000))/1000 {
		t.Errorf("score %v is not rounded to three decimals", cli[0]["score"])
	}
}

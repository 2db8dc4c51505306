package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/testharness/cairntest"
	"github.com/cairn-dev/cairn/helpers/internal/testharness/clitest"
)

// mcpInit opens an MCP session as a client does.
const mcpInit = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"sh","version":"1"}}}` + "\n" +
	`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n"

// mcpAfter is a request after the case's input: its answer shows the
// server went on.
const mcpAfter = `{"jsonrpc":"2.0","id":"after","method":"tools/list"}` + "\n"

// TestMCPStdio drives the real `cairn mcp` with issue 24's input: each
// case's lines after an initialized session, then a request, then the end
// of stdin (the cases that hung the process, and one of each kind of bad
// input; TestServeBadInput in package mcp has every kind). The server must answer the bad message with a JSON-RPC error,
// answer the request after it, and exit 0 when its input ends (today: rc 1
// on bad input, and no end after a duplicate id or a second initialize).
// A process that does not end is stopped by its context and fails the
// test.
func TestMCPStdio(t *testing.T) {
	bin := cairntest.Binary(t)
	for _, tc := range []struct {
		name string
		in   func() io.Reader
		// want is an id and the error code its answer carries (0: any
		// answer).
		id   string
		code int
	}{
		{"same id twice", text(`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"stats","arguments":{}}}`,
			`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"stats","arguments":{}}}`), "9", 0},
		{"float id", text(`{"jsonrpc":"2.0","id":1.5,"method":"tools/call","params":{"name":"stats","arguments":{}}}`), "null", -32600},
		{"second initialize", text(strings.SplitN(mcpInit, "\n", 2)[0]), "0", 0},
		{"garbage line", text("hello, is this thing on?"), "null", -32700},
		{"batch", text(`[{"jsonrpc":"2.0","id":7,"method":"tools/list"},{"jsonrpc":"2.0","id":8,"method":"tools/list"}]`), "null", -32600},
		{"200 MB frame", func() io.Reader {
			return io.MultiReader(strings.NewReader(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"add","arguments":{"type":"fact","content":"`),
				io.LimitReader(clitest.Endless('a'), 200<<20), strings.NewReader("\"}}}\n"))
		}, "null", -32600},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			home := t.TempDir()
			env := append(trustEnv(home),
				"XDG_STATE_HOME="+filepath.Join(home, ".local", "state"),
				"XDG_DATA_HOME="+filepath.Join(home, ".local", "share"))
			repo := t.TempDir()
			git := exec.Command("git", "init", "-q", repo)
			git.Env = env
			if out, err := git.CombinedOutput(); err != nil {
				t.Fatalf("git init: %v %s", err, out)
			}
			ctx, cancel := context.WithTimeout(context.Background(), safetyNet)
			defer cancel()
			cmd := exec.CommandContext(ctx, bin, "mcp")
			cmd.Dir, cmd.Env = repo, env
			cmd.Stdin = io.MultiReader(strings.NewReader(mcpInit), tc.in(), strings.NewReader(mcpAfter))
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			if ctx.Err() != nil {
				t.Fatalf("cairn mcp did not end when its input ended (stopped after %v)", safetyNet)
			}
			if err != nil {
				t.Fatalf("cairn mcp: %v; stderr: %s", err, firstLines(stderr.String(), 3))
			}
			answers := map[string][]*struct {
				Code int `json:"code"`
			}{}
			for _, line := range strings.Split(strings.TrimSpace(stdout.String()), "\n") {
				var a struct {
					ID    json.RawMessage `json:"id"`
					Error *struct {
						Code int `json:"code"`
					} `json:"error"`
				}
				if json.Unmarshal([]byte(line), &a) != nil {
					t.Fatalf("stdout holds a line that is not JSON-RPC: %q", firstLines(line, 1))
				}
				answers[string(a.ID)] = append(answers[string(a.ID)], a.Error)
			}
			got := answers[tc.id]
			switch {
			case len(got) == 0:
				t.Errorf("no answer with id %s: %s", tc.id, stdout.String())
			case tc.code != 0 && (got[0] == nil || got[0].Code != tc.code):
				t.Errorf("answer with id %s: %+v, want error %d", tc.id, got[0], tc.code)
			}
			if a := answers[`"after"`]; len(a) != 1 || a[0] != nil {
				t.Errorf("the request after was not answered: %s", stdout.String())
			}
		})
	}
}

// text is a reader of lines, each newline-ended.
func text(lines ...string) func() io.Reader {
	return func() io.Reader { return strings.NewReader(strings.Join(lines, "\n") + "\n") }
}

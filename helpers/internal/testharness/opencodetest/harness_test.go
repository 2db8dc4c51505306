package opencodetest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The real OpenCode, against the fake: it runs the bash tool call the
// fake streams (the file appears), sends its output back in the next
// request, prints the final reply, and talks to nothing but the fake's
// chat completions endpoint.
func TestRunRealCLI(t *testing.T) {
	cli := FindCLI(t)
	api := StartFakeAPI(t, [][]Block{
		{Bash("call_1", "echo made-by-opencode > out.txt && echo wrote-it")},
		{Text("All done: the file is there.")},
	})
	res := Run(t, RunOptions{CLI: cli, API: api, Prompt: "make the file"})
	if res.ExitCode != 0 {
		t.Fatalf("exit %d\n%s", res.ExitCode, res)
	}
	data, err := os.ReadFile(filepath.Join(res.Dir, "out.txt"))
	if err != nil || strings.TrimSpace(string(data)) != "made-by-opencode" {
		t.Fatalf("the bash tool did not run: %q %v\n%s", data, err, res)
	}
	if !strings.Contains(res.Stdout, "All done: the file is there.") {
		t.Errorf("the reply is not in the output\n%s", res)
	}
	main := api.MainRequests()
	if len(main) != 2 {
		t.Fatalf("%d main requests, want 2\n%s", len(main), res)
	}
	if !strings.Contains(main[0].Text(), "make the file") {
		t.Errorf("the prompt is not in the first request: %s", main[0].Text())
	}
	if !strings.Contains(main[1].Text(), "wrote-it") {
		t.Errorf("the tool's output is not in the second request: %s", main[1].Text())
	}
	for _, h := range api.Hits() {
		if h != "POST /v1/chat/completions" {
			t.Errorf("unexpected request to the fake: %s", h)
		}
	}
}

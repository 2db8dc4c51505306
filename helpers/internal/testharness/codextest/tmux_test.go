package codextest

import (
	"strings"
	"testing"
)

// The real interactive UI in tmux: two typed turns reach the fake, each
// reply shows, the second request carries the first exchange, and /quit
// ends the CLI with status 0.
func TestInteractiveTwoTurns(t *testing.T) {
	api := StartFakeAPI(t, [][]Item{{Text("first answer here")}, {Text("second answer here")}})
	s := StartInteractive(t, InteractiveOptions{API: api, Dir: NewGitRepo(t), TrustProject: true})
	s.WaitReady()
	s.Type("the first question")
	s.WaitScreen("first answer here")
	s.WaitReady()
	s.Type("the second question")
	s.WaitScreen("second answer here")
	s.WaitReady()
	s.Quit()
	if s.ExitCode() != 0 {
		t.Errorf("exit code %d", s.ExitCode())
	}
	main := api.MainRequests()
	if len(main) != 2 {
		t.Fatalf("%d main requests", len(main))
	}
	if text := main[1].Text(); !strings.Contains(text, "first answer here") || !strings.Contains(text, "the second question") {
		t.Errorf("second request:\n%.3000s", text)
	}
	// The start-up tip Codex fetches from GitHub went to the fake, as the
	// proxy, and no further.
	for _, h := range api.Hits() {
		if h != "POST /v1/responses" && !strings.HasPrefix(h, "CONNECT raw.githubusercontent.com:") {
			t.Errorf("unexpected request: %s", h)
		}
	}
	if len(s.RolloutPaths()) != 1 {
		t.Errorf("rollouts: %q", s.RolloutPaths())
	}
}

// An untrusted project: Codex asks whether to trust the folder first.
func TestInteractiveAsksTrust(t *testing.T) {
	api := StartFakeAPI(t, nil)
	s := StartInteractive(t, InteractiveOptions{API: api, Dir: NewGitRepo(t)})
	s.Answer(TrustFolderScreen, "Enter")
	s.WaitReady()
	s.Quit()
}

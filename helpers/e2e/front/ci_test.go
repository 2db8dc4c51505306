package front

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"

	"github.com/cairn-dev/cairn/helpers/internal/testharness/cairntest"
)

// workflow is what the test reads of a GitHub Actions workflow file.
type workflow struct {
	On   any               `yaml:"on"`
	Env  map[string]string `yaml:"env"`
	Jobs map[string]struct {
		Steps []struct {
			Name string            `yaml:"name"`
			Uses string            `yaml:"uses"`
			With map[string]any    `yaml:"with"`
			If   string            `yaml:"if"`
			Env  map[string]string `yaml:"env"`
			Run  string            `yaml:"run"`
		} `yaml:"steps"`
	} `yaml:"jobs"`
}

// exprRE is a GitHub Actions expression.
var exprRE = regexp.MustCompile(`\$\{\{\s*([^}]*?)\s*\}\}`)

// The CI recipe of docs/check.md is a real workflow file
// (docs/ci/cairn-check.yml), and its steps work as written: run here, in
// order, against a bare remote (a pull request that renames the file an
// entry is anchored to), they install cairn from a clone of it, check
// the pull request against its base, and post the report as the comment
// (gh is a stand-in that records what it is asked) or, on a second push,
// update it; for a fork's pull request the comment step is skipped and
// the report is in the job's summary.
func TestCheckWorkflowRunsAsWritten(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds cairn with install.sh")
	}
	root := cairntest.RepoRoot(t)
	data := cairntest.MustRead(t, filepath.Join(root, "docs", "ci", "cairn-check.yml"))
	var wf workflow
	if err := yaml.Unmarshal(data, &wf); err != nil {
		t.Fatal(err)
	}
	if wf.On != "pull_request" {
		t.Errorf("the workflow runs on %v: pull_request is the one that has the pull request's commits", wf.On)
	}
	if strings.Contains(string(data), "pull_request_target:") || strings.Contains(string(data), "on: pull_request_target") {
		t.Error("the workflow runs on pull_request_target")
	}
	job, ok := wf.Jobs["check"]
	if !ok {
		t.Fatalf("no check job: %v", wf.Jobs)
	}

	// The team's project, on a bare remote: main holds a note anchored to
	// pay/client.go; the pull request's branch renames it.
	src, url := sourceCheckout(t)
	_ = src
	work := filepath.Join(t.TempDir(), "work")
	remote := filepath.Join(t.TempDir(), "project.git")
	cairntest.Git(t, filepath.Dir(remote), "init", "-q", "--bare", "-b", "main", remote)
	cairntest.Git(t, filepath.Dir(work), "init", "-q", "-b", "main", work)
	writeIn(t, work, "pay/client.go", "package pay\n\nfunc buildQuery() string { return \"\" }\n")
	cairntest.In(t, work, "add", "learned", "buildQuery in the pay client retries twice", "--files", "pay/client.go")
	cairntest.Git(t, work, "add", "-A")
	cairntest.Git(t, work, "commit", "-q", "-m", "pay client and its note")
	cairntest.Git(t, work, "remote", "add", "origin", remote)
	cairntest.Git(t, work, "push", "-q", "origin", "main")
	cairntest.Git(t, work, "checkout", "-q", "-b", "feat/move-client")
	cairntest.Git(t, work, "mv", "pay/client.go", "pay/http_client.go")
	cairntest.Git(t, work, "commit", "-q", "-m", "rename the client")
	cairntest.Git(t, work, "push", "-q", "origin", "feat/move-client")

	// What actions/checkout leaves with fetch-depth: 0: a clone with every
	// branch of origin, the pull request's head checked out.
	checkout := filepath.Join(t.TempDir(), "checkout")
	cairntest.Git(t, filepath.Dir(checkout), "clone", "-q", remote, checkout)
	cairntest.Git(t, checkout, "checkout", "-q", "feat/move-client")

	home := t.TempDir()
	runner := t.TempDir()
	ghDir := t.TempDir()
	gh := "#!/bin/sh\n" +
		"printf '%s\\n' \"$*\" >> \"$GH_LOG\"\n" +
		"case \"$1 $*\" in\n" +
		"  *--jq*) [ -n \"$GH_EXISTING\" ] && echo \"$GH_EXISTING\"; exit 0 ;;\n" +
		"esac\n" +
		"while [ $# -gt 0 ]; do\n" +
		"  case \"$1\" in\n" +
		"    --body-file) cp \"$2\" \"$GH_OUT\"; shift ;;\n" +
		"    body=@*) cp \"${1#body=@}\" \"$GH_OUT\" ;;\n" +
		"  esac\n" +
		"  shift\n" +
		"done\n"
	writeIn(t, ghDir, "gh", gh)
	if err := os.Chmod(filepath.Join(ghDir, "gh"), 0o755); err != nil {
		t.Fatal(err)
	}
	githubPath := filepath.Join(runner, "github_path")
	summary := filepath.Join(runner, "summary.md")
	base := append(installEnv(t, home, "", filepath.Join(home, ".local", "bin")),
		"RUNNER_TEMP="+runner, "GITHUB_PATH="+githubPath, "GITHUB_STEP_SUMMARY="+summary,
		"GH_LOG="+filepath.Join(runner, "gh.log"), "GH_OUT="+filepath.Join(runner, "comment.md"),
		"GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_CONFIG_NOSYSTEM=1")
	for _, f := range []string{githubPath, summary} {
		writeIn(t, runner, filepath.Base(f), "")
	}
	// The workflow's own values, the clone to install from made this
	// checkout's.
	wfEnv := map[string]string{}
	for k, v := range wf.Env {
		wfEnv[k] = v
	}
	wfEnv["CAIRN_REPO"], wfEnv["CAIRN_REF"] = url, "main"
	context := map[string]string{
		"github.base_ref": "main", "github.token": "ghs_stand-in", "github.event.pull_request.number": "7",
		"github.repository": "team/project",
	}
	expand := func(s string) string {
		return exprRE.ReplaceAllStringFunc(s, func(m string) string {
			k := exprRE.FindStringSubmatch(m)[1]
			v, ok := context[k]
			if !ok {
				t.Fatalf("the workflow uses %s, which this test does not know", m)
			}
			return v
		})
	}
	run := func(fork bool, only string) {
		t.Helper()
		for _, st := range job.Steps {
			if only != "" && st.Name != only {
				continue
			}
			if st.Uses != "" {
				if strings.HasPrefix(st.Uses, "actions/checkout@") && st.With["fetch-depth"] != uint64(0) {
					t.Errorf("checkout without fetch-depth: 0 (%v): the merge base needs the history", st.With)
				}
				continue // done above: the checkout, and Go from this machine
			}
			switch st.If {
			case "":
			case "github.event.pull_request.head.repo.full_name == github.repository":
				if fork {
					continue
				}
			default:
				t.Fatalf("step %q: a condition this test does not know: %s", st.Name, st.If)
			}
			env := append([]string{}, base...)
			for k, v := range wfEnv {
				env = append(env, k+"="+expand(v))
			}
			for k, v := range st.Env {
				env = append(env, k+"="+expand(v))
			}
			extra := strings.Fields(strings.ReplaceAll(string(cairntest.MustRead(t, githubPath)), "\n", " "))
			env = append(env, "PATH="+strings.Join(append(append(extra, ghDir), filteredPath()), ":"))
			if fork {
				env = append(env, "GH_TOKEN=") // a fork's token cannot write
			}
			cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", st.Run)
			cmd.Dir, cmd.Env = checkout, env
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("step %q failed: %v\n%s", st.Name, err, out)
			}
		}
	}
	run(false, "")
	comment := string(cairntest.MustRead(t, filepath.Join(runner, "comment.md")))
	for _, want := range []string{"<!-- cairn-check -->", "buildQuery in the pay client retries twice", "pay/client.go", "renamed"} {
		if !strings.Contains(comment, want) {
			t.Errorf("the comment lacks %q:\n%s", want, comment)
		}
	}
	if s := string(cairntest.MustRead(t, summary)); !strings.Contains(s, "buildQuery in the pay client retries twice") {
		t.Errorf("the job's summary lacks the report:\n%s", s)
	}
	log := string(cairntest.MustRead(t, filepath.Join(runner, "gh.log")))
	if !strings.Contains(log, "pr comment 7 --repo team/project --body-file cairn-check.md") {
		t.Errorf("the first push did not post a comment:\n%s", log)
	}

	// A second push updates the comment the first one posted.
	base = append(base, "GH_EXISTING=4242")
	run(false, "Post or update the comment")
	if log := string(cairntest.MustRead(t, filepath.Join(runner, "gh.log"))); !strings.Contains(log, "api -X PATCH repos/team/project/issues/comments/4242 -F body=@cairn-check.md") {
		t.Errorf("the second push did not update the comment:\n%s", log)
	}

	// A fork's pull request: no comment step, the report in the summary.
	for _, f := range []string{summary, filepath.Join(runner, "gh.log")} {
		if err := os.WriteFile(f, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run(true, "Check the notes on the changed code")
	run(true, "Post or update the comment")
	if log := string(cairntest.MustRead(t, filepath.Join(runner, "gh.log"))); log != "" {
		t.Errorf("a fork's pull request ran gh:\n%s", log)
	}
	if s := string(cairntest.MustRead(t, summary)); !strings.Contains(s, "buildQuery in the pay client retries twice") {
		t.Errorf("a fork's job summary lacks the report:\n%s", s)
	}
}

// writeIn writes content to rel under dir, making its directories.
func writeIn(t *testing.T, dir, rel, content string) {
	t.Helper()
	p := filepath.Join(dir, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/testharness/cairntest"
)

// maxAddInits caps the package initialisers that run before `cairn add
// TYPE CONTENT` answers (package addgate's init): 133 here, against the
// 193 a bare `cairn version` runs. addgate imports what the capture hook's
// accept path imports; a new import of knowledge's, project's or
// session/record's that sorts late (or pulls in a heavy package) raises it.
const maxAddInits = 140

// `cairn add TYPE CONTENT` answers before SQLite, go-git, the CLI
// framework and the MCP SDK are initialised, and records all the same: the
// work it skips is asserted, not timed. With --dir, and for a duplicate,
// it takes the same path; with a flag of add's (--json) the command
// answers, which keeps the assertion from passing vacuously.
func TestAddRunsBeforeHeavyPackages(t *testing.T) {
	dir := gateProject(t)

	out, inits := tracedHook(t, dir, nil, "add", "learned", "the early add keeps its provenance")
	if out != "learned-the-early-add-keeps-its-provenance-54c3e4\n" {
		t.Errorf("the early add printed %q", out)
	}
	checkHeavy(t, "the early add", inits, false)
	if n := countInits(inits); n > maxAddInits {
		t.Errorf("the early add ran %d package initialisers, more than %d: a new import of addgate's (knowledge, project, session/record) waits for every package that sorts before it (see maxAddInits)", n, maxAddInits)
	}
	log := cairntest.MustRead(t, filepath.Join(dir, ".cairn", "knowledge.jsonl"))
	if !bytes.Contains(log, []byte(`"content":"the early add keeps its provenance","source":"user"`)) || !bytes.Contains(log, []byte(`"author":"Ana Gate"`)) {
		t.Errorf("the early add is not in the log with its provenance:\n%s", log)
	}

	out, inits = tracedHook(t, t.TempDir(), nil, "--dir", dir, "add", "learned", "The early add  keeps its provenance")
	if out != "learned-the-early-add-keeps-its-provenance-54c3e4\n" || !strings.Contains(inits, "cairn: already recorded; nothing added") {
		t.Errorf("the early add of a duplicate printed %q", out)
	}
	checkHeavy(t, "the early add of a duplicate, with --dir", inits, false)
	if again := cairntest.MustRead(t, filepath.Join(dir, ".cairn", "knowledge.jsonl")); !bytes.Equal(again, log) {
		t.Errorf("a duplicate changed the log:\n%s", again)
	}

	out, inits = tracedHook(t, dir, nil, "add", "--json", "learned", "the command answers a flag")
	if !strings.Contains(out, `"added": true`) {
		t.Errorf("cairn add --json printed %q", out)
	}
	checkHeavy(t, "cairn add --json (the command)", inits, true)
	if _, err := os.Stat(filepath.Join(dir, ".cairn", "knowledge.jsonl")); err != nil {
		t.Fatal(err)
	}
}

// Eight early adds at once, two of them of one entry, into one log: each
// entry is there once, and every process printed its key.
func TestEarlyAddsAtOnce(t *testing.T) {
	dir := gateProject(t)
	contents := []string{"one at once", "two at once", "three at once", "four at once", "five at once", "six at once", "seven at once", "one at once"}
	cmds := make([]*exec.Cmd, len(contents))
	outs := make([]bytes.Buffer, len(contents))
	for i, c := range contents {
		cmds[i] = exec.Command(cairntest.Binary(t), "--dir", dir, "add", "learned", c)
		cmds[i].Env = append(os.Environ(), "CLAUDE_PROJECT_DIR=", "CAIRN_DIR=")
		cmds[i].Stdout = &outs[i]
		if err := cmds[i].Start(); err != nil {
			t.Fatal(err)
		}
	}
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Errorf("add %q: %v", contents[i], err)
		}
		if !strings.HasPrefix(outs[i].String(), "learned-") {
			t.Errorf("add %q printed %q", contents[i], outs[i].String())
		}
	}
	log := string(cairntest.MustRead(t, filepath.Join(dir, ".cairn", "knowledge.jsonl")))
	for _, c := range contents[:7] {
		if n := strings.Count(log, `"content":"`+c+`"`); n != 1 {
			t.Errorf("%q is in the log %d times:\n%s", c, n, log)
		}
	}
	if n := strings.Count(log, "\n"); n != 7 {
		t.Errorf("the log has %d lines, want 7:\n%s", n, log)
	}
}

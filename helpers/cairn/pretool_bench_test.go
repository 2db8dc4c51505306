package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
	"github.com/cairn-dev/cairn/helpers/internal/testharness/cairntest"
)

// anchoredLog writes an n-entry log to the .cairn of dir, every tenth
// entry anchored to a file src/dD/fI.go, and returns one anchored path.
func anchoredLog(b *testing.B, dir string, n int) string {
	b.Helper()
	if err := knowledge.Open(dir).Provision(); err != nil {
		b.Fatal(err)
	}
	f, err := os.Create(filepath.Join(dir, ".cairn", knowledge.LogName))
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriter(f)
	hit := ""
	for i := range n {
		content := fmt.Sprintf("note %d on the retry loop, the payment client and the context deadline", i)
		e := knowledge.Entry{Key: knowledge.MakeKey("learned", content), Type: "learned", Content: content, TS: 1700000000 + int64(i)}
		if i%10 == 0 {
			e.Files = []string{fmt.Sprintf("src/d%d/f%d.go", i%97, i)}
			hit = e.Files[0]
		}
		line, _ := json.Marshal(e)
		w.Write(append(line, '\n'))
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	f.Close()
	return hit
}

// BenchmarkPreToolUse runs the real `cairn hook PreToolUse` at 10k and
// 100k entries, paired in one run with the capture hook's reject path:
// a Read of a file nothing is anchored to (the no-match path), and of an
// anchored file (the match path; the session's record is cleared before
// each run so that the note comes every time).
func BenchmarkPreToolUse(b *testing.B) {
	bin := cairntest.Binary(b)
	for _, n := range []int{10_000, 100_000} {
		dir := b.TempDir()
		os.Mkdir(filepath.Join(dir, ".git"), 0o755)
		hit := anchoredLog(b, dir, n)
		sync := exec.Command(bin, "--dir", dir, "sync")
		if out, err := sync.CombinedOutput(); err != nil {
			b.Fatalf("sync: %v\n%s", err, out)
		}
		run := func(b *testing.B, payload string, want bool, args ...string) {
			cmd := exec.Command(bin, args...)
			cmd.Dir, cmd.Stdin = dir, bytes.NewReader([]byte(payload))
			cmd.Env = append(os.Environ(), "CLAUDE_PROJECT_DIR=", "CAIRN_DIR=", "CAIRN_NO_BACKGROUND=1")
			out, err := cmd.Output()
			if err != nil || (len(out) > 0) != want {
				b.Fatalf("cairn %v: %v, printed %q", args, err, out)
			}
		}
		pre := func(file string) string {
			return `{"session_id":"b","cwd":"` + dir + `","hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{"file_path":"` + filepath.Join(dir, file) + `"}}`
		}
		reject := `{"session_id":"b","cwd":"` + dir + `","hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"go test ./..."},"tool_response":{"stdout":"ok"}}`
		b.Run(fmt.Sprintf("reject/%d", n), func(b *testing.B) {
			for b.Loop() {
				run(b, reject, false, "hook", "PostToolUse")
			}
		})
		b.Run(fmt.Sprintf("no-match/%d", n), func(b *testing.B) {
			for b.Loop() {
				run(b, pre("src/none/nothing.go"), false, "hook", "PreToolUse")
			}
		})
		b.Run(fmt.Sprintf("match/%d", n), func(b *testing.B) {
			for b.Loop() {
				os.RemoveAll(filepath.Join(dir, ".cairn", "local", "sessions"))
				run(b, pre(hit), true, "hook", "PreToolUse")
			}
		})
	}
}

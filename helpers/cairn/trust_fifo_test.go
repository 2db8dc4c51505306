//go:build unix

package main

// TestTrustFIFO is apart from the other trust tests because only Unix has
// FIFOs.

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestTrustFIFO closes attack 6: a FIFO where a hook reads a file (git
// cannot carry one, so it is made in the victim's clone). Today opening it
// blocks until a writer comes, and the hook never finishes. Fixed: the
// hook finishes with exit 0. The safety net stops a hook that hangs after
// a minute; that is reported as not finishing, not as slowness.
func TestTrustFIFO(t *testing.T) {
	for _, tc := range []struct{ file, event string }{
		{"config.json", "SessionStart"},
		{"config.json", "UserPromptSubmit"},
		{"knowledge.jsonl", "SessionStart"},
	} {
		t.Run(tc.file+"/"+tc.event, func(t *testing.T) {
			t.Parallel() // each waits out the safety net on today's code
			home := fakeHome(t)
			clone := hostileRepo(t, home, func(repo string) {
				if p := cairnProc(t, home, repo, "add", "learned", "the payment retry budget is three attempts"); p.code != 0 {
					t.Fatalf("cairn add: exit %d\n%s", p.code, p.stderr)
				}
			})
			fifo := filepath.Join(clone, ".cairn", tc.file)
			if err := os.Remove(fifo); err != nil && !errors.Is(err, fs.ErrNotExist) {
				t.Fatal(err)
			}
			if err := syscall.Mkfifo(fifo, 0o644); err != nil {
				t.Fatalf("test setup: mkfifo: %v", err)
			}
			checkHook(t, tc.event, hookProc(t, home, clone, tc.event, trustPayload(tc.event, clone, "a fifo does not block the hook")))
		})
	}
}

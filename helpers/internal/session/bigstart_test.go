package session_test

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
	"github.com/cairn-dev/cairn/helpers/internal/session"
)

// writeBigLog writes n entries as a log (short lines, in no particular
// order: the glance does not care), every 1,000th a must-check.
func writeBigLog(t *testing.T, dir string, n int) int64 {
	t.Helper()
	f, err := os.Create(filepath.Join(dir, ".cairn", knowledge.LogName))
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	for i := range n {
		typ := "fact"
		if i%1000 == 0 {
			typ = "must-check"
		}
		fmt.Fprintf(w, `{"key":"%s-n%07d","type":"%s","content":"entry %d of the big log","ts":%d}`+"\n", typ, i, typ, i, 1700000000+i)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	fi, _ := f.Stat()
	f.Close()
	return fi.Size()
}

// A session start on a 1M-entry log with no cache answers from a bounded
// read of the log (must-checks and newest entries, saying the index is
// being built) and builds nothing itself: the work is counted, not timed.
func TestStartOnHugeLogWithoutCache(t *testing.T) {
	dir, e := repo(t)
	size := writeBigLog(t, dir, 1_000_000)
	a := call(t, e, "start", map[string]string{"cwd": dir, "session": "s1"})
	if !strings.Contains(a.Context, "still being built") || !strings.Contains(a.Context, "[must-check]") {
		t.Fatalf("start answered:\n%s", a.Context)
	}
	if !strings.Contains(a.Context, "<untrusted-knowledge") {
		t.Fatalf("the answer is not wrapped:\n%s", a.Context)
	}
	m := regexp.MustCompile(`bounded read of the log \((\d+) lines, (\d+) bytes\)`).FindStringSubmatch(logText(dir))
	if m == nil {
		t.Fatalf("no line about the bounded read in cairn.log:\n%s", logText(dir))
	}
	read, _ := strconv.ParseInt(m[2], 10, 64)
	if read > session.GlanceBytes+1<<20 || read >= size {
		t.Fatalf("read %d bytes of a %d-byte log; the bound is %d", read, size, session.GlanceBytes)
	}
	// Nothing was built on the hook's path.
	if m, _ := filepath.Glob(filepath.Join(dir, ".cairn", "cache", "index.db.build-*")); len(m) > 0 {
		t.Fatalf("the hook started a build: %v", m)
	}
	if fi, err := os.Stat(filepath.Join(dir, ".cairn", "cache", "index.db")); err == nil && fi.Size() > 1<<20 {
		t.Fatalf("the hook built a %d-byte cache", fi.Size())
	}
	// A prompt, too, goes without the cache, at once.
	if a := call(t, e, "prompt", map[string]string{"cwd": dir, "session": "s1", "text": "entry of the big log"}); a.Context != "" {
		t.Fatalf("prompt answered %q without a cache", a.Context)
	}
}

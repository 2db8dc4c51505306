package model

import (
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// isolate gives the model processes a test runs a home and XDG
// directories of their own.
func isolate(t *testing.T) {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	for _, v := range []string{"XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_DATA_HOME"} {
		t.Setenv(v, filepath.Join(home, v))
	}
}

func needSh(t *testing.T) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the model commands here are sh scripts")
	}
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
}

// issue 24: the timeout is enforced (it was only quoted in the error), an
// answer over the cap is an error rather than its first MiB, and a plain
// answer is read.
func TestCommand(t *testing.T) {
	needSh(t)
	isolate(t)
	dir := t.TempDir()
	slow := Command([]string{"sh", "-c", "cat >/dev/null; exec sleep 5"}, dir, time.Second)
	if r, err := slow(context.Background(), "p"); !errors.Is(err, ErrTimeout) {
		t.Errorf("a 5 s model under a 1 s timeout: %+v, %v", r, err)
	}
	big := Command([]string{"sh", "-c", `cat >/dev/null; printf '{"handoff":["a"]}'; head -c 2000000 /dev/zero | tr '\0' ' '`}, dir, 0)
	if r, err := big(context.Background(), "p"); !errors.Is(err, ErrCut) {
		t.Errorf("an answer over 1 MiB: %d bytes, %v", len(r.Text), err)
	}
	echo := Command([]string{"sh", "-c", `cat >/dev/null; echo '{"handoff":["a"]}'`}, dir, time.Minute)
	if r, err := echo(context.Background(), "p"); err != nil || strings.TrimSpace(r.Text) != `{"handoff":["a"]}` {
		t.Errorf("a plain answer: %+v, %v", r, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := slow(ctx, "p"); !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled call: %v", err)
	}
}

func TestCapped(t *testing.T) {
	c := NewCapped(4)
	if n, err := c.Write([]byte("abc")); n != 3 || err != nil || c.Cut() {
		t.Fatalf("within the cap: %d, %v, cut %v", n, err, c.Cut())
	}
	if n, err := c.Write([]byte("def")); n != 3 || err != nil || !c.Cut() || c.String() != "abcd" {
		t.Fatalf("past the cap: %d, %v, cut %v, %q", n, err, c.Cut(), c.String())
	}
}

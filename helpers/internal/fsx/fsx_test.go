//go:build unix

package fsx

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The test binary doubles as the helper process of the tests below: run
// with helperEnv set, TestHelperProcess does what its arguments say and
// exits instead of testing.
const helperEnv = "CAIRN_FSX_HELPER"

// TestHelperProcess is not a test: it is the body of the child processes.
// Arguments after "--": MODE PATH.
//
//	hold PATH         take the lock on PATH, print "locked", wait for stdin to close
//	crash PATH        writeAtomic(PATH, bigB) with a hook that SIGKILLs itself before the rename
//	loop PATH         write bigA and bigB to PATH alternately, forever, printing "w" after each
func TestHelperProcess(t *testing.T) {
	if os.Getenv(helperEnv) == "" {
		return
	}
	args := os.Args
	for i, a := range args {
		if a == "--" {
			args = args[i+1:]
			break
		}
	}
	if len(args) != 2 {
		fmt.Fprintf(os.Stderr, "helper: want MODE PATH, got %q\n", args)
		os.Exit(2)
	}
	mode, path := args[0], args[1]
	switch mode {
	case "hold":
		l, err := Acquire(path, 0)
		if err != nil {
			fmt.Fprintln(os.Stderr, "helper:", err)
			os.Exit(3)
		}
		fmt.Println("locked")
		io.Copy(io.Discard, os.Stdin)
		l.Release()
		os.Exit(0)
	case "crash":
		beforeRename = func(string) { syscall.Kill(os.Getpid(), syscall.SIGKILL) }
		if err := writeAtomic(path, bigContent('B'), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "helper:", err)
			os.Exit(3)
		}
		os.Exit(0) // unreachable when the hook works
	case "loop":
		out := bufio.NewWriter(os.Stdout)
		a, b := bigContent('A'), bigContent('B')
		for i := 0; ; i++ {
			data := a
			if i%2 == 1 {
				data = b
			}
			if err := writeAtomic(path, data, 0o644); err != nil {
				fmt.Fprintln(os.Stderr, "helper:", err)
				os.Exit(3)
			}
			out.WriteString("w\n")
			out.Flush()
		}
	}
	fmt.Fprintf(os.Stderr, "helper: unknown mode %q\n", mode)
	os.Exit(2)
}

// helper returns the command that runs the test binary as a helper.
func helper(t *testing.T, mode, path string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$", "--", mode, path)
	cmd.Env = append(os.Environ(), helperEnv+"=1")
	cmd.Stderr = os.Stderr
	return cmd
}

// bigContent is a file of 512 KiB whose every line says which version it
// belongs to, so a mix of two versions is visible anywhere in it.
func bigContent(c byte) []byte {
	line := append(bytes.Repeat([]byte{c}, 63), '\n')
	return bytes.Repeat(line, 512*1024/len(line))
}

// temps lists the temporary files WriteAtomic may have left next to path.
func temps(t *testing.T, path string) []string {
	t.Helper()
	ents, err := os.ReadDir(filepath.Dir(path))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		if strings.Contains(e.Name(), tempMarker) {
			out = append(out, e.Name())
		}
	}
	return out
}

func TestWriteAtomicCreatesWithPerm(t *testing.T) {
	path := filepath.Join(t.TempDir(), "new.jsonl")
	if err := writeAtomic(path, []byte("hello\n"), 0o640); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil || string(got) != "hello\n" {
		t.Fatalf("content = %q, %v", got, err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o640 {
		t.Errorf("mode of a new file = %v, want 0640", fi.Mode().Perm())
	}
	if left := temps(t, path); len(left) != 0 {
		t.Errorf("temporary files left behind: %v", left)
	}
}

func TestWriteAtomicReplacesAndKeepsMode(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "knowledge.jsonl")
	if err := os.WriteFile(path, []byte("old content that is longer than the new one\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := writeAtomic(path, []byte("new\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != "new\n" {
		t.Errorf("content = %q, want %q", got, "new\n")
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode after replace = %v, want the old 0600 kept", fi.Mode().Perm())
	}
	// Empty content is a valid replacement too.
	if err := writeAtomic(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); len(got) != 0 {
		t.Errorf("content after empty write = %q", got)
	}
	if left := temps(t, path); len(left) != 0 {
		t.Errorf("temporary files left behind: %v", left)
	}
}

func TestWriteAtomicRelativePath(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	if err := writeAtomic("rel.txt", []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "rel.txt")); string(got) != "x" {
		t.Errorf("content = %q", got)
	}
}

func TestWriteAtomicFailureLeavesTargetAndNoTemp(t *testing.T) {
	dir := t.TempDir()
	// The target is a directory: the rename fails, the temp must go.
	path := filepath.Join(dir, "target")
	if err := os.Mkdir(path, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(path, "inside"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := writeAtomic(path, []byte("data"), 0o644); err == nil {
		t.Fatal("WriteAtomic over a non-empty directory succeeded")
	}
	if left := temps(t, path); len(left) != 0 {
		t.Errorf("a failed write left temporary files: %v", left)
	}
	// A missing directory is an error, not a panic.
	if err := writeAtomic(filepath.Join(dir, "missing", "deeper", "f"), []byte("x"), 0o644); err == nil {
		t.Error("WriteAtomic under a missing directory succeeded")
	}
}

func TestRemoveStaleTempsOnlyOwn(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "knowledge.jsonl")
	files := map[string]bool{ // name -> must survive
		"knowledge.jsonl":                             true,
		".knowledge.jsonl" + tempMarker + "123":       false,
		".knowledge.jsonl" + tempMarker + "abc":       false,
		".knowledge.archive.jsonl" + tempMarker + "1": true, // another target's temp
		"knowledge.jsonl" + tempMarker + "1":          true, // no leading dot: not ours
		".knowledge.jsonl.bak":                        true,
		"other.txt":                                   true,
		".knowledge.jsonl":                            true,
	}
	for name := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(name), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	n, err := sweep(path)
	if err != nil {
		t.Fatal(err)
	}
	if n != 2 {
		t.Errorf("removed %d files, want 2", n)
	}
	for name, keep := range files {
		_, err := os.Stat(filepath.Join(dir, name))
		if exists := err == nil; exists != keep {
			t.Errorf("%s: exists=%v, want %v", name, exists, keep)
		}
	}
	// Nothing left to remove.
	if n, err := sweep(path); err != nil || n != 0 {
		t.Errorf("second sweep = %d, %v; want 0, nil", n, err)
	}
	if n, err := sweep(filepath.Join(dir, "nodir", "f")); err != nil || n != 0 {
		t.Errorf("sweeping a missing directory = %d, %v; want nothing to do", n, err)
	}
}

// startHolder starts a helper that holds the lock on path and returns once
// it holds it.
func startHolder(t *testing.T, path string) (*exec.Cmd, io.WriteCloser) {
	t.Helper()
	cmd := helper(t, "hold", path)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || line != "locked\n" {
		t.Fatalf("holder said %q, %v", line, err)
	}
	return cmd, stdin
}

func TestAcquireExcludesSecondHolder(t *testing.T) {
	path := filepath.Join(t.TempDir(), "knowledge.lock")
	cmd, stdin := startHolder(t, path)

	if l, ok, err := tryAcquire(path); err != nil || ok {
		l.Release()
		t.Fatalf("TryAcquire while another process holds the lock = %v, %v; want false, nil", ok, err)
	}
	l, err := Acquire(path, 0)
	if !errors.Is(err, ErrLockTimeout) {
		l.Release()
		t.Fatalf("Acquire while held = %v, want ErrLockTimeout", err)
	}
	if l, err := Acquire(path, 30*time.Millisecond); !errors.Is(err, ErrLockTimeout) {
		l.Release()
		t.Fatalf("Acquire with a wait while held = %v, want ErrLockTimeout", err)
	}

	// The holder releases it: now it is ours.
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("holder: %v", err)
	}
	l, ok, err := tryAcquire(path)
	if err != nil || !ok {
		t.Fatalf("TryAcquire after release = %v, %v", ok, err)
	}
	// Held by us, the lock excludes a second holder in this process too
	// (flock locks belong to the open file).
	if l2, ok, err := tryAcquire(path); err != nil || ok {
		l2.Release()
		t.Fatalf("second TryAcquire in the same process = %v, %v; want false", ok, err)
	}
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	if err := l.Release(); err != nil {
		t.Errorf("second Release = %v, want nil", err)
	}
	var nilLock *Lock
	if err := nilLock.Release(); err != nil {
		t.Errorf("nil Release = %v", err)
	}
	if l, err := Acquire(path, 0); err != nil {
		t.Fatalf("Acquire after release: %v", err)
	} else {
		l.Release()
	}
}

func TestLockOfKilledHolderDoesNotBlock(t *testing.T) {
	path := filepath.Join(t.TempDir(), "knowledge.lock")
	cmd, _ := startHolder(t, path)
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("holder did not die of SIGKILL: %v", err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("lock file gone: %v", err)
	}
	l, err := Acquire(path, 0)
	if err != nil {
		t.Fatalf("lock file of a killed holder blocks: %v", err)
	}
	l.Release()
}

func TestAcquireErrors(t *testing.T) {
	if _, err := Acquire(filepath.Join(t.TempDir(), "missing", "x.lock"), 0); err == nil {
		t.Error("Acquire in a missing directory succeeded")
	}
	if _, _, err := tryAcquire(filepath.Join(t.TempDir(), "missing", "deeper", "x.lock")); err == nil {
		t.Error("TryAcquire under a missing directory succeeded")
	}
}

// TestCrashBeforeRename kills a writer between writing its temporary file
// and renaming it: the target keeps its old content, and the leftover is
// swept by RemoveStaleTemps.
func TestCrashBeforeRename(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "knowledge.jsonl")
	a := bigContent('A')
	if err := writeAtomic(path, a, 0o644); err != nil {
		t.Fatal(err)
	}
	err := helper(t, "crash", path).Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("crash helper did not die of SIGKILL: %v", err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, a) {
		t.Fatalf("target changed by a writer killed before the rename (%d bytes)", len(got))
	}
	left := temps(t, path)
	if len(left) != 1 {
		t.Fatalf("want exactly the killed writer's temp file, found %v", left)
	}
	// The temp holds the complete new content (it was synced before the hook).
	if tmp, err := os.ReadFile(filepath.Join(dir, left[0])); err != nil || !bytes.Equal(tmp, bigContent('B')) {
		t.Errorf("leftover temp is not the complete new content (%d bytes, %v)", len(tmp), err)
	}
	n, err := sweep(path)
	if err != nil || n != 1 {
		t.Fatalf("RemoveStaleTemps = %d, %v; want 1", n, err)
	}
	if left := temps(t, path); len(left) != 0 {
		t.Errorf("temps left after the sweep: %v", left)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, a) {
		t.Error("sweep touched the target")
	}
}

// TestCrashAtRandomPoints kills a writer that rewrites the file with A and B
// alternately at arbitrary moments: the file is always exactly A or B.
func TestCrashAtRandomPoints(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "knowledge.jsonl")
	a, b := bigContent('A'), bigContent('B')
	if err := writeAtomic(path, a, 0o644); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(uint64(os.Getpid()), 7))
	const rounds = 12
	sawB := false
	for round := range rounds {
		cmd := helper(t, "loop", path)
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		r := bufio.NewReader(stdout)
		// Let it complete a random number of writes (0..3), then kill it
		// wherever it is in the next one; with 0 the kill lands anywhere
		// from process start on.
		for range rng.IntN(4) {
			if _, err := r.ReadString('\n'); err != nil {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatalf("round %d: writer stopped early: %v", round, err)
			}
		}
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()

		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		switch {
		case bytes.Equal(got, a):
		case bytes.Equal(got, b):
			sawB = true
		default:
			t.Fatalf("round %d: file is neither A nor B (%d bytes, %d A-lines, %d B-lines)",
				round, len(got), bytes.Count(got, []byte("AAAA\n")), bytes.Count(got, []byte("BBBB\n")))
		}
		// Whatever it left is swept; then nothing is left.
		if _, err := sweep(path); err != nil {
			t.Fatal(err)
		}
		if left := temps(t, path); len(left) != 0 {
			t.Fatalf("round %d: temps left after the sweep: %v", round, left)
		}
		fi, err := os.Stat(path)
		if err != nil || fi.Mode().Perm() != 0o644 {
			t.Fatalf("round %d: target mode %v, %v", round, fi.Mode().Perm(), err)
		}
	}
	t.Logf("final content was B at least once: %v", sawB)
}

// ReplaceFile replaces content like WriteAtomic (old or new, mode kept,
// no temp left behind), only without syncing.
func TestReplaceFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	if err := replaceFile(path, []byte("one"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := replaceFile(path, []byte("two"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil || string(got) != "two" {
		t.Fatalf("content %q, %v", got, err)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want the existing 0600 kept", fi.Mode().Perm())
	}
	if ents, _ := os.ReadDir(filepath.Dir(path)); len(ents) != 1 {
		t.Errorf("left behind: %v", ents)
	}
}

// sweep runs the root's sweep of path's temporary files at a time when
// every one of them counts as abandoned.
func sweep(path string) (int, error) {
	return NewRoot(filepath.Dir(path)).RemoveStaleTemps(filepath.Base(path), time.Now().Add(2*AbandonedAge))
}

// The path-based forms of the Unix tests: the root is the file's directory.
func replaceFile(path string, data []byte, perm os.FileMode) error {
	return NewRoot(filepath.Dir(path)).ReplaceFile(filepath.Base(path), data, perm)
}

func tryAcquire(path string) (*Lock, bool, error) {
	return NewRoot(filepath.Dir(path)).TryAcquire(filepath.Base(path))
}

var sink byte

// TestReadMapped: a mapped file reads as its bytes; one shortened by
// another process while mapped makes ReadMapped fail, not the process
// die.
func TestReadMapped(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log")
	content := bigContent('M')
	if err := os.WriteFile(path, content, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var got []byte
	if err := ReadMapped(f, int64(len(content)), func(data []byte) { got = bytes.Clone(data) }); err != nil || !bytes.Equal(got, content) {
		t.Fatalf("mapped read: %d bytes, %v; want the file's %d", len(got), err, len(content))
	}
	if err := ReadMapped(f, 0, func(data []byte) { got = data }); err != nil || len(got) != 0 {
		t.Errorf("mapped read of nothing: %q, %v", got, err)
	}
	err = ReadMapped(f, int64(len(content)), func(data []byte) {
		if err := os.Truncate(path, 0); err != nil {
			t.Error(err)
			return
		}
		sink = data[len(data)-1]
	})
	if err == nil || !strings.Contains(err.Error(), "changed while read") {
		t.Errorf("mapped read of a file shortened meanwhile: %v; want an error", err)
	}
	defer func() {
		if r := recover(); r != "not a fault" {
			t.Errorf("a panic in fn that is not a fault: recovered %v", r)
		}
	}()
	ReadMapped(f, 1, func([]byte) { panic("not a fault") })
}

// Evict lets a mapping's pages go and leaves its content readable; on data
// that is not a whole mapping (data read, a part of a mapping) it does
// nothing. A goroutine under Guard gets a fault as an error, as fn does.
func TestEvictAndGuard(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big")
	content := bigContent('E')
	if err := os.WriteFile(path, content, 0o644); err != nil {
		t.Fatal(err)
	}
	r := NewRoot(filepath.Dir(path))
	err := r.MapFile("big", 1<<30, func(data []byte) error {
		Evict(data)
		Evict(data[1:])
		if !bytes.Equal(data, content) {
			t.Error("mapped data changed by Evict")
		}
		done := make(chan error)
		go func() {
			done <- Guard(func() {
				if err := os.Truncate(path, 0); err != nil {
					t.Error(err)
				}
				Evict(data)
				sink = data[len(data)-1]
			})
		}()
		if err := <-done; err == nil {
			t.Error("a goroutine's read past a shortened file's end under Guard: no error")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	heap := bytes.Clone(content)
	Evict(heap)
	if !bytes.Equal(heap, content) {
		t.Error("Evict changed data that was read, not mapped")
	}
}

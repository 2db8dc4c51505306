package fsx

// Tests that hold on every platform fsx builds on (Unix and Windows); the
// Unix-only ones (links, FIFOs, modes, signals) are in fsx_test.go and
// root_test.go.

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestStatID(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	id, err := statID(path)
	if err != nil || id != (FileID{}) {
		t.Fatalf("statID(missing) = %+v, %v; want zero, nil", id, err)
	}
	if err := writeAtomic(path, []byte("version one\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	id1, err := statID(path)
	if err != nil {
		t.Fatal(err)
	}
	if id1 == (FileID{}) || id1.Size != int64(len("version one\n")) || id1.Ino == 0 {
		t.Fatalf("StatID = %+v", id1)
	}
	if again, _ := statID(path); again != id1 {
		t.Errorf("StatID of an unchanged file changed: %+v then %+v", id1, again)
	}
	// Same size, other bytes: the rewrite must still show.
	if err := writeAtomic(path, []byte("version two\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	id2, err := statID(path)
	if err != nil {
		t.Fatal(err)
	}
	if id2 == id1 {
		t.Errorf("StatID unchanged after a same-size rewrite: %+v", id2)
	}
	// A rewrite with the very same bytes is a new version as well.
	if err := writeAtomic(path, []byte("version two\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if id3, _ := statID(path); id3 == id2 {
		t.Errorf("StatID unchanged after rewriting the same bytes: %+v", id3)
	}
	// Not a permission problem: a path through a file is an error.
	if _, err := statID(filepath.Join(path, "below")); err == nil {
		t.Error("StatID through a regular file succeeded")
	}
}

// The path-based forms the tests use: the root is the file's directory.
func writeAtomic(path string, data []byte, perm os.FileMode) error {
	return NewRoot(filepath.Dir(path)).WriteAtomic(filepath.Base(path), data, perm)
}

func statID(path string) (FileID, error) {
	return NewRoot(filepath.Dir(path)).StatID(filepath.Base(path))
}

func TestRootRefusesBadNames(t *testing.T) {
	r := NewRoot(t.TempDir())
	for _, name := range []string{"../x", "a/../../x", "/etc/passwd", "a//b", "./a", "a/.", "nul\x00l", ""} {
		if _, err := r.ReadFile(name, 10); err == nil {
			t.Errorf("ReadFile(%q) succeeded", name)
		}
		if err := r.WriteAtomic(name, nil, 0o644); err == nil {
			t.Errorf("WriteAtomic(%q) succeeded", name)
		}
	}
}

func TestRootReadCap(t *testing.T) {
	r := NewRoot(t.TempDir())
	must(t, r.WriteAtomic("f", []byte("0123456789"), 0o644))
	if b, err := r.ReadFile("f", 10); err != nil || string(b) != "0123456789" {
		t.Errorf("ReadFile at the cap = %q, %v", b, err)
	}
	if _, err := r.ReadFile("f", 9); !errors.Is(err, ErrTooLarge) {
		t.Errorf("ReadFile over the cap = %v; want ErrTooLarge", err)
	}
	if _, err := r.ReadFile("missing", 9); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadFile(missing) = %v; want not exist", err)
	}
}

// TestCreateIfMissingRace: of many writers creating one file at once,
// exactly one creates it, and its content is whole.
func TestCreateIfMissingRace(t *testing.T) {
	r := NewRoot(t.TempDir())
	const n = 16
	var wg sync.WaitGroup
	results := make([]bool, n)
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], errs[i] = r.CreateIfMissing("f", []byte(strings.Repeat(string(rune('a'+i)), 4096)), 0o644)
		}()
	}
	wg.Wait()
	created := 0
	for i := range n {
		if errs[i] != nil {
			t.Errorf("writer %d: %v", i, errs[i])
		}
		if results[i] {
			created++
		}
	}
	if created != 1 {
		t.Errorf("%d writers created the file; want exactly 1", created)
	}
	b, _ := r.ReadFile("f", 1<<20)
	if len(b) != 4096 || strings.Count(string(b), string(b[:1])) != 4096 {
		t.Errorf("content is not one writer's whole content (%d bytes)", len(b))
	}
	ents, _ := r.ReadDir("")
	if len(ents) != 1 {
		t.Errorf("temp files left: %+v", ents)
	}
}

// lockHelperEnv, set, makes TestLockHelper the body of a child process
// that takes over the lock passed to it as the variable's value.
const lockHelperEnv = "CAIRN_FSX_INHERIT"

// TestLockHelper is not a test: run with lockHelperEnv set to the number
// [Lock.PassTo] returned, it takes the lock over with [Inherited], prints
// "held", and releases it when stdin closes. When Inherited fails it
// prints "refused: ERROR" and exits 3.
func TestLockHelper(t *testing.T) {
	v := os.Getenv(lockHelperEnv)
	if v == "" {
		return
	}
	fd, err := strconv.ParseUint(v, 10, 64)
	if err != nil {
		fmt.Println("bad fd:", err)
		os.Exit(2)
	}
	l, err := Inherited(uintptr(fd))
	if err != nil {
		fmt.Println("refused:", err)
		os.Exit(3)
	}
	fmt.Println("held")
	io.Copy(io.Discard, os.Stdin)
	if err := l.Release(); err != nil {
		fmt.Println("release:", err)
		os.Exit(4)
	}
	os.Exit(0)
}

// startInheritor starts a TestLockHelper child that is passed l, hands l
// off, and returns the child with its stdin and stdout.
func startInheritor(t *testing.T, l *Lock) (*exec.Cmd, io.WriteCloser, *bufio.Reader) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestLockHelper$")
	fd, err := l.PassTo(cmd)
	if err != nil {
		t.Fatal(err)
	}
	cmd.Env = append(os.Environ(), lockHelperEnv+"="+strconv.FormatUint(uint64(fd), 10))
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	must(t, err)
	stdout, err := cmd.StdoutPipe()
	must(t, err)
	must(t, cmd.Start())
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	must(t, l.Handoff())
	return cmd, stdin, bufio.NewReader(stdout)
}

// TestHandoff: a lock passed to a child and handed off is the child's
// until it lets go; on Unix it is never free in between.
func TestHandoff(t *testing.T) {
	r := NewRoot(t.TempDir())
	l, ok, err := r.TryAcquire("cache/run.lock")
	if err != nil || !ok {
		t.Fatalf("TryAcquire = %v, %v", ok, err)
	}
	cmd, stdin, stdout := startInheritor(t, l)
	if l.f != nil {
		t.Error("the lock still has its file after Handoff")
	}
	if !handoffUnlocks {
		// The child may not have looked at the lock yet: it is held anyway.
		if l2, ok, err := r.TryAcquire("cache/run.lock"); err != nil || ok {
			l2.Release()
			t.Fatalf("TryAcquire between Handoff and the child = %v, %v; want held", ok, err)
		}
	}
	if line, err := stdout.ReadString('\n'); line != "held\n" {
		t.Fatalf("child said %q, %v; want held", line, err)
	}
	if l2, ok, err := r.TryAcquire("cache/run.lock"); err != nil || ok {
		l2.Release()
		t.Fatalf("TryAcquire while the child holds the lock = %v, %v; want held", ok, err)
	}
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("child: %v", err)
	}
	l3, ok, err := r.TryAcquire("cache/run.lock")
	if err != nil || !ok {
		t.Fatalf("TryAcquire after the child let go = %v, %v; want it", ok, err)
	}
	l3.Release()
}

// TestInheritedRefusesHeldLock: a child passed an open lock file whose
// lock another open file holds does not get it.
func TestInheritedRefusesHeldLock(t *testing.T) {
	r := NewRoot(t.TempDir())
	holder, ok, err := r.TryAcquire("run.lock")
	if err != nil || !ok {
		t.Fatalf("TryAcquire = %v, %v", ok, err)
	}
	defer holder.Release()
	f, err := r.OpenFile("run.lock", os.O_RDWR, 0)
	must(t, err)
	unlocked := &Lock{f: f, name: "run.lock"}
	cmd, stdin, stdout := startInheritor(t, unlocked)
	line, _ := stdout.ReadString('\n')
	stdin.Close() // lets a child that wrongly took the lock go
	if !strings.HasPrefix(line, "refused: ") || !strings.Contains(line, ErrLockTimeout.Error()) {
		t.Errorf("child said %q; want refused, timed out", line)
	}
	var ee *exec.ExitError
	if err := cmd.Wait(); !errors.As(err, &ee) || ee.ExitCode() != 3 {
		t.Errorf("child exited %v; want status 3", err)
	}
	if l, ok, err := r.TryAcquire("run.lock"); err != nil || ok {
		l.Release()
		t.Errorf("TryAcquire = %v, %v; want the holder to hold it still", ok, err)
	}
}

// TestSharedAndExclusive: shared holders coexist and keep out an
// exclusive one; a holder turns exclusive once alone, and shared again.
func TestSharedAndExclusive(t *testing.T) {
	r := NewRoot(t.TempDir())
	a, err := r.AcquireShared("ix.lock", 0)
	must(t, err)
	defer a.Release()
	b, err := r.AcquireShared("ix.lock", 0)
	if err != nil {
		t.Fatalf("second shared holder: %v", err)
	}
	if err := a.Exclusive(0); !errors.Is(err, ErrLockTimeout) {
		t.Errorf("Exclusive beside another shared holder = %v; want ErrLockTimeout", err)
	}
	if l, ok, err := r.TryAcquire("ix.lock"); err != nil || ok {
		l.Release()
		t.Errorf("TryAcquire beside a shared holder = %v, %v; want held", ok, err)
	}
	must(t, b.Release())
	if err := a.Exclusive(0); err != nil {
		t.Fatalf("Exclusive alone: %v", err)
	}
	if l, err := r.AcquireShared("ix.lock", 0); !errors.Is(err, ErrLockTimeout) {
		l.Release()
		t.Errorf("AcquireShared beside an exclusive holder = %v; want ErrLockTimeout", err)
	}
	must(t, a.Shared())
	c, err := r.AcquireShared("ix.lock", 0)
	if err != nil {
		t.Fatalf("shared beside a holder back to shared: %v", err)
	}
	c.Release()
	must(t, a.Unlock())
	d, ok, err := r.TryAcquire("ix.lock")
	if err != nil || !ok {
		t.Fatalf("TryAcquire after Unlock = %v, %v", ok, err)
	}
	d.Release()
}

// TestRootPortable: what a root does with plain files and directories.
func TestRootPortable(t *testing.T) {
	base := t.TempDir()
	r := NewRoot(filepath.Join(base, ".cairn"))
	if ok, err := r.IsDir(""); ok || err != nil {
		t.Errorf("IsDir of a missing root = %v, %v; want false, nil", ok, err)
	}
	must(t, r.WriteAtomic("cache/sub/f.json", []byte("one"), 0o644))
	must(t, r.ReplaceFile("cache/sub/f.json", []byte("two"), 0o644))
	if b, err := r.ReadFile("cache/sub/f.json", 100); err != nil || string(b) != "two" {
		t.Errorf("ReadFile = %q, %v", b, err)
	}
	if ok, err := r.IsDir("cache/sub"); !ok || err != nil {
		t.Errorf("IsDir(cache/sub) = %v, %v", ok, err)
	}
	if _, err := r.IsDir("cache/sub/f.json"); !errors.Is(err, ErrUnsafe) {
		t.Errorf("IsDir(a file) = %v; want unsafe", err)
	}
	if _, err := r.ReadFile("cache/sub", 100); !errors.Is(err, ErrUnsafe) {
		t.Errorf("ReadFile(a directory) = %v; want unsafe", err)
	}
	created, err := r.CreateIfMissing("cache/sub/f.json", []byte("three"), 0o644)
	if created || err != nil {
		t.Errorf("CreateIfMissing over an existing file = %v, %v", created, err)
	}
	if created, err := r.CreateIfMissing("cache/new.json", []byte("new"), 0o644); !created || err != nil {
		t.Errorf("CreateIfMissing of a new file = %v, %v", created, err)
	}
	ents, err := r.ReadDir("cache")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, e := range ents {
		got[e.Name] = fmt.Sprintf("regular=%v dir=%v", e.Regular, e.Dir)
	}
	want := map[string]string{"sub": "regular=false dir=true", "new.json": "regular=true dir=false"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("ReadDir(cache) = %v; want %v (no temp left)", got, want)
	}
	must(t, r.Rename("cache/new.json", "cache/h.json"))
	if b, _ := r.ReadFile("cache/h.json", 10); string(b) != "new" {
		t.Errorf("after rename: %q", b)
	}
	if err := r.Rename("cache/h.json", "cache/sub/h.json"); err == nil {
		t.Error("Rename across directories succeeded")
	}
	must(t, r.Remove("cache/h.json"))
	must(t, r.Remove("cache/h.json")) // missing: no error
	if _, err := r.ReadFile("cache/h.json", 10); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadFile after Remove = %v; want not exist", err)
	}
	if found, err := r.FindUnsafe(10); err != nil || len(found) != 0 {
		t.Errorf("FindUnsafe of a clean root = %v, %v", found, err)
	}
	// A temp file left by a dead writer goes once it is old enough.
	f, err := r.OpenFile("cache/."+"h.json"+tempMarker+"1-aa", os.O_WRONLY|os.O_CREATE, 0o644)
	must(t, err)
	must(t, f.Close())
	if n, err := r.RemoveStaleTemps("cache/h.json", time.Now()); err != nil || n != 0 {
		t.Errorf("RemoveStaleTemps of a fresh temp = %d, %v; want 0", n, err)
	}
	if n, err := r.RemoveStaleTemps("cache/h.json", time.Now().Add(2*AbandonedAge)); err != nil || n != 1 {
		t.Errorf("RemoveStaleTemps of an old temp = %d, %v; want 1", n, err)
	}
	// The root never escapes: nothing appeared beside it.
	if ents, _ := os.ReadDir(base); len(ents) != 1 {
		t.Errorf("beside the root: %v", ents)
	}
}

// TestOwned: a directory this process made is its user's.
func TestOwned(t *testing.T) {
	dir := filepath.Join(t.TempDir(), ".cairn")
	must(t, os.Mkdir(dir, 0o755))
	fi, err := os.Lstat(dir)
	must(t, err)
	if !Owned(dir, fi) {
		t.Errorf("Owned(%s) = false for a directory this process made", dir)
	}
}

// TestWriteAtomicWith: content streamed into the temporary file replaces
// the file whole; a writer that fails leaves the file as it was and no
// temporary file behind.
func TestWriteAtomicWith(t *testing.T) {
	r := NewRoot(filepath.Join(t.TempDir(), ".cairn"))
	must(t, r.WriteAtomic("log", []byte("old\n"), 0o600))
	src := strings.NewReader("streamed\n")
	must(t, r.WriteAtomicWith("log", 0o644, func(f *os.File) error {
		_, err := io.Copy(f, src)
		return err
	}))
	if b, err := r.ReadFile("log", 100); err != nil || string(b) != "streamed\n" {
		t.Errorf("after a streamed write: %q, %v", b, err)
	}
	if fi, err := os.Stat(r.Path("log")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("mode after a streamed write: %v, %v; want the old 0600", fi.Mode().Perm(), err)
	}
	failed := errors.New("source gone")
	err := r.WriteAtomicWith("log", 0o644, func(f *os.File) error {
		f.Write([]byte("half of it"))
		return failed
	})
	if !errors.Is(err, failed) {
		t.Errorf("failed writer: %v; want its error", err)
	}
	if b, _ := r.ReadFile("log", 100); string(b) != "streamed\n" {
		t.Errorf("after a failed writer: %q; want the file unchanged", b)
	}
	ents, err := r.ReadDir("")
	if err != nil || len(ents) != 1 {
		t.Errorf("beside the file after a failed writer: %v, %v", ents, err)
	}
}

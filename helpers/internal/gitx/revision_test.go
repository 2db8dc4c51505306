package gitx

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/testharness/clitest"
)

// Resolve names commits as git does, FileAt reads a file at one (none
// when it has no such file, an error over the cap), and MergeBase finds
// where a branch left another.
func TestResolveFileAtMergeBase(t *testing.T) {
	dir := t.TempDir()
	write := func(body string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Join(dir, ".cairn"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, ".cairn", "knowledge.jsonl"), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	clitest.Git(t, dir, "init", "-q", "-b", "main")
	clitest.Git(t, dir, "commit", "-q", "--allow-empty", "-m", "empty")
	write("one\n")
	clitest.Git(t, dir, "add", ".cairn")
	clitest.Git(t, dir, "commit", "-q", "-m", "one")
	clitest.Git(t, dir, "checkout", "-q", "-b", "feature")
	write("one\ntwo\n")
	clitest.Git(t, dir, "commit", "-q", "-am", "two")
	clitest.Git(t, dir, "checkout", "-q", "main")
	clitest.Git(t, dir, "commit", "-q", "--allow-empty", "-m", "main moves on")

	g, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	for rev, want := range map[string]string{"HEAD~1": "one\n", "feature": "one\ntwo\n", "main~2": ""} {
		id, err := g.Resolve(rev)
		if err != nil {
			t.Fatalf("Resolve(%s): %v", rev, err)
		}
		if full := strings.TrimSpace(clitest.Git(t, dir, "rev-parse", rev)); id != full {
			t.Errorf("Resolve(%s) = %s, git says %s", rev, id, full)
		}
		data, ok, err := g.FileAt(id, ".cairn/knowledge.jsonl", 1<<20)
		if err != nil || ok != (want != "") || string(data) != want {
			t.Errorf("FileAt(%s) = %q, %v, %v; want %q", rev, data, ok, err, want)
		}
	}
	if _, err := g.Resolve("no-such-branch"); !errors.Is(err, ErrNoRevision) {
		t.Errorf("Resolve of an unknown branch: %v", err)
	}
	feature, _ := g.Resolve("feature")
	if _, _, err := g.FileAt(feature, ".cairn/knowledge.jsonl", 4); !errors.Is(err, ErrTooLarge) {
		t.Errorf("FileAt over the cap: %v", err)
	}
	main, _ := g.Resolve("main")
	base, err := g.MergeBase(main, feature)
	if want := strings.TrimSpace(clitest.Git(t, dir, "merge-base", "main", "feature")); err != nil || base != want {
		t.Errorf("MergeBase = %s, %v; git says %s", base, err, want)
	}
}

// BlobsAt lists a commit's regular files with the ids git gives them (a
// link, a directory and a missing path left out, a path with spaces or
// glob characters read as written), ReadBlob reads one as committed with
// a cap, and BlobID names data as git hash-object does.
func TestBlobsAtReadBlobBlobID(t *testing.T) {
	dir := t.TempDir()
	clitest.Git(t, dir, "init", "-q", "-b", "main")
	for name, body := range map[string]string{"a dir/log [1].jsonl": "one\r\ntwo\n", "a dir/log 1.jsonl": "other\n", "sub/x": "x"} {
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("sub/x", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".gitattributes"), []byte("*.jsonl text eol=crlf filter=nope\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	clitest.Git(t, dir, "add", "-A")
	clitest.Git(t, dir, "commit", "-q", "-m", "files")
	g, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	head, err := g.Resolve("HEAD")
	if err != nil {
		t.Fatal(err)
	}
	blobs, err := g.BlobsAt(head, "a dir/log [1].jsonl", "link", "sub", "missing")
	if err != nil {
		t.Fatal(err)
	}
	want := strings.TrimSpace(clitest.Git(t, dir, "rev-parse", "HEAD:a dir/log [1].jsonl"))
	if len(blobs) != 1 || blobs["a dir/log [1].jsonl"].ID != want {
		t.Fatalf("BlobsAt = %v; want only the file, %s", blobs, want)
	}
	b := blobs["a dir/log [1].jsonl"]
	committed := clitest.Git(t, dir, "cat-file", "blob", want)
	data, err := g.ReadBlob(b, 1<<20)
	if err != nil || strings.TrimSpace(string(data)) != committed || b.Size != int64(len(data)) {
		t.Errorf("ReadBlob = %q, %v (size %d)", data, err, b.Size)
	}
	if _, err := g.ReadBlob(b, 3); !errors.Is(err, ErrTooLarge) {
		t.Errorf("ReadBlob over the cap: %v", err)
	}
	if got := BlobID(data, head); got != want {
		t.Errorf("BlobID = %s, git says %s", got, want)
	}
	if got := BlobID([]byte("x"), strings.Repeat("0", 64)); got != "4b6cea43da6e13c24f191bcb97b51a58781d1ccdd8281d96291a2582f5177b78" {
		t.Errorf("BlobID in SHA-256 = %s", got)
	}
	if _, err := g.BlobsAt("HEAD^{/x}"); err == nil {
		t.Error("BlobsAt took a revision expression for an id")
	}
}

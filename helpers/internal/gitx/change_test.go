package gitx

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/testharness/clitest"
)

func TestParseNameStatus(t *testing.T) {
	for _, tc := range []struct {
		name, out string
		want      []FileChange
		bad       bool
	}{
		{name: "empty", out: ""},
		{name: "each kind",
			out: "M\x00a.go\x00A\x00b.go\x00D\x00c.go\x00R087\x00old/d.go\x00new/d.go\x00C100\x00e.go\x00f.go\x00T\x00g\x00",
			want: []FileChange{
				{Kind: ChangeModified, From: "a.go", To: "a.go"},
				{Kind: ChangeAdded, To: "b.go"},
				{Kind: ChangeDeleted, From: "c.go"},
				{Kind: ChangeRenamed, From: "old/d.go", To: "new/d.go"},
				{Kind: ChangeCopied, From: "e.go", To: "f.go"},
				{Kind: ChangeModified, From: "g", To: "g"},
			}},
		{name: "a name with a newline and a tab", out: "M\x00a\nb\tc\x00",
			want: []FileChange{{Kind: ChangeModified, From: "a\nb\tc", To: "a\nb\tc"}}},
		{name: "a status without a path", out: "M\x00", bad: true},
		{name: "a rename without its new path", out: "R100\x00a\x00", bad: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseNameStatus([]byte(tc.out))
			if (err != nil) != tc.bad {
				t.Fatalf("err = %v, want error %v", err, tc.bad)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

// ChangedSince sees a rename, a deletion, an edit committed since base and
// an edit not yet committed; DefaultBranch finds main.
func TestChangedSinceAndDefaultBranch(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) {
		t.Helper()
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	long := "package pay\n\n// Client talks to the payment provider, with retries and a deadline.\nfunc Retry() {}\n"
	clitest.Git(t, dir, "init", "-q", "-b", "main")
	write("pay/client.go", long)
	write("db/old.sql", "select 1;\n")
	write("keep.go", "package keep\n")
	write("edit.go", "package edit\n")
	clitest.Git(t, dir, "add", ".")
	clitest.Git(t, dir, "commit", "-q", "-m", "base")
	clitest.Git(t, dir, "checkout", "-q", "-b", "feature")
	if err := os.Mkdir(filepath.Join(dir, "payments"), 0o755); err != nil {
		t.Fatal(err)
	}
	clitest.Git(t, dir, "mv", "pay/client.go", "payments/client.go")
	clitest.Git(t, dir, "rm", "-q", "db/old.sql")
	write("edit.go", "package edit // changed\n")
	clitest.Git(t, dir, "commit", "-q", "-am", "move")
	write("keep.go", "package keep // not committed\n")

	g, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if b := g.DefaultBranch(); b != "main" {
		t.Fatalf("DefaultBranch = %q, want main", b)
	}
	main, _ := g.Resolve("main")
	got, err := g.ChangedSince(main)
	if err != nil {
		t.Fatal(err)
	}
	want := []FileChange{
		{Kind: ChangeDeleted, From: "db/old.sql"},
		{Kind: ChangeModified, From: "edit.go", To: "edit.go"},
		{Kind: ChangeModified, From: "keep.go", To: "keep.go"},
		{Kind: ChangeRenamed, From: "pay/client.go", To: "payments/client.go"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ChangedSince:\n got %+v\nwant %+v", got, want)
	}
	clone := filepath.Join(t.TempDir(), "clone")
	clitest.Git(t, dir, "clone", "-q", dir, clone)
	gc, err := Open(clone)
	if err != nil {
		t.Fatal(err)
	}
	if b := gc.DefaultBranch(); b != "origin/HEAD" {
		t.Errorf("DefaultBranch of a clone = %q, want origin/HEAD", b)
	}
	if _, err := g.ChangedSince("HEAD^{/x}"); err == nil {
		t.Error("ChangedSince accepted a revision expression")
	}
}

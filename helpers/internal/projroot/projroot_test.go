package projroot

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
)

// The order is the package's rule: --dir, CAIRN_DIR, the agent's project
// directory, the payload's cwd, the working directory; an explicit one is
// the project as given, any other is searched upwards.
func TestResolveOrder(t *testing.T) {
	base := t.TempDir()
	mk := func(rel string) string {
		p := filepath.Join(base, rel)
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	repo := mk("repo")
	mk("repo/.git")
	sub := mk("repo/sub")
	deep := mk("repo/sub/deep")
	other := mk("other")
	mk("other/.git")
	plain := mk("plain/.cairn")
	plain = filepath.Dir(plain)
	plainDeep := mk("plain/a/b")
	nowhere := mk("nowhere/x")
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == EnvVar {
				return v
			}
			return ""
		}
	}
	for _, tc := range []struct {
		name string
		r    Request
		want Root
	}{
		{"flag wins over everything", Request{Flag: "sub", Getenv: env(other), Agent: other, Cwd: other, Dir: repo},
			Root{Dir: sub, Explicit: true, Found: true}},
		{"flag is taken as given, not searched up", Request{Flag: deep, Dir: other},
			Root{Dir: deep, Explicit: true, Found: true}},
		{"explicit dir with .git is a git root", Request{Flag: other, Dir: repo},
			Root{Dir: other, IsGit: true, Explicit: true, Found: true}},
		{"CAIRN_DIR, relative to the working directory", Request{Getenv: env("sub"), Agent: other, Cwd: other, Dir: repo},
			Root{Dir: sub, Explicit: true, Found: true}},
		{"agent's directory over cwd", Request{Getenv: env(""), Agent: deep, Cwd: other, Dir: other},
			Root{Dir: repo, IsGit: true, Found: true}},
		{"cwd over the working directory", Request{Cwd: deep, Dir: other},
			Root{Dir: repo, IsGit: true, Found: true}},
		{"working directory last", Request{Dir: deep},
			Root{Dir: repo, IsGit: true, Found: true}},
		{"a .cairn above, outside git", Request{Cwd: plainDeep},
			Root{Dir: plain, Found: true}},
		{"nothing found: the directory itself", Request{Cwd: nowhere},
			Root{Dir: nowhere}},
		{"relative cwd against the working directory", Request{Cwd: "sub/deep", Dir: repo},
			Root{Dir: repo, IsGit: true, Found: true}},
	} {
		if got := Resolve(tc.r); got != tc.want {
			t.Errorf("%s: Resolve = %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

// The directory searched for is the store's.
func TestCairnDirIsTheStores(t *testing.T) {
	if cairnDir != knowledge.DirName {
		t.Errorf("projroot searches for %q, the store is %q", cairnDir, knowledge.DirName)
	}
}

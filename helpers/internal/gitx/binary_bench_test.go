package gitx

import (
	"bytes"
	"fmt"
	"os/exec"
	"strings"
	"testing"
)

// These benchmarks put each read of this package beside the same read by
// the git binary, on a repository of 10,000 commits over 2,000 files (the
// figures are in docs/ARCHITECTURE.md, "go-git or the git binary"):
//
//	go test ./helpers/internal/gitx -run XXX -bench 'Read' -benchtime 20x -count 5
//
// The binary's side is written here only, to measure it.

const (
	benchCommits = 10000
	benchFiles   = 2000
)

// benchRepo builds, for one benchmark, a repository of benchCommits
// commits, each changing three of benchFiles files, through git
// fast-import (a few seconds), plus a branch 50 commits behind main's tip
// with one commit of its own.
func benchRepo(b *testing.B) string {
	b.Helper()
	dir := b.TempDir()
	if err := runGitBench(dir, nil, "init", "-q", "-b", "main"); err != nil {
		b.Fatal(err)
	}
	{
		var s bytes.Buffer
		for i := 1; i <= benchCommits; i++ {
			msg := fmt.Sprintf("change %d", i)
			fmt.Fprintf(&s, "commit refs/heads/main\nmark :%d\ncommitter Ada <ada@example.com> %d +0000\ndata %d\n%s\n", i, 1700000000+i, len(msg), msg)
			if i > 1 {
				fmt.Fprintf(&s, "from :%d\n", i-1)
			}
			for j := range 3 {
				f := (i*7 + j*611) % benchFiles
				body := fmt.Sprintf("file %d at %d\n", f, i)
				fmt.Fprintf(&s, "M 100644 inline src/d%d/f%d.go\ndata %d\n%s", f%40, f, len(body), body)
			}
			if i == benchCommits-50 {
				fmt.Fprintf(&s, "reset refs/heads/side\nfrom :%d\n", i)
			}
		}
		msg := "side change"
		fmt.Fprintf(&s, "commit refs/heads/side\ncommitter Ada <ada@example.com> %d +0000\ndata %d\n%s\nM 100644 inline side.txt\ndata 5\nside\n\n", 1700000000+benchCommits+1, len(msg), msg)
		if err := runGitBench(dir, &s, "fast-import", "--quiet"); err != nil {
			b.Fatal(err)
		}
	}
	if err := runGitBench(dir, nil, "reset", "-q", "--hard", "main"); err != nil {
		b.Fatal(err)
	}
	return dir
}

func runGitBench(dir string, stdin *bytes.Buffer, args ...string) error {
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	if stdin != nil {
		cmd.Stdin = stdin
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, out)
	}
	return nil
}

func gitOut(b *testing.B, dir string, args ...string) []byte {
	out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).Output()
	if err != nil {
		b.Fatalf("git %s: %v", strings.Join(args, " "), err)
	}
	return out
}

// pair runs the go-git read and the binary's read as two sub-benchmarks.
func pair(b *testing.B, dir string, goGit func(*Repo), binary func(dir string)) {
	b.Run("go-git", func(b *testing.B) {
		for b.Loop() {
			repo, err := Open(dir)
			if err != nil {
				b.Fatal(err)
			}
			goGit(repo)
		}
	})
	b.Run("binary", func(b *testing.B) {
		for b.Loop() {
			binary(dir)
		}
	})
}

// The session start's read: the last five commits and their files.
func BenchmarkReadRecentCommits(b *testing.B) {
	dir := benchRepo(b)
	pair(b, dir, func(r *Repo) {
		if c, err := RecentCommits(r.Root(), 5, 20); err != nil || len(c) != 5 {
			b.Fatalf("RecentCommits = %d, %v", len(c), err)
		}
	}, func(dir string) {
		gitOut(b, dir, "log", "-5", "--first-parent", "--no-renames", "--name-only", "--format=%h%x00%s")
	})
}

// sanitize's read: every tracked file with its staged hash.
func BenchmarkReadTracked(b *testing.B) {
	dir := benchRepo(b)
	pair(b, dir, func(r *Repo) {
		if t, err := r.Tracked(); err != nil || len(t) != benchFiles {
			b.Fatalf("Tracked = %d, %v", len(t), err)
		}
	}, func(dir string) {
		gitOut(b, dir, "ls-files", "-s", "-z")
	})
}

// sanitize's stale check: a path's content id at an old commit.
func BenchmarkReadHashesAt(b *testing.B) {
	dir := benchRepo(b)
	old := strings.TrimSpace(string(gitOut(b, dir, "rev-parse", "--short", "main~5000")))
	pair(b, dir, func(r *Repo) {
		if h, err := r.HashesAt(old, []string{"src/d0/f0.go"}); err != nil || len(h) != 1 {
			b.Fatalf("HashesAt = %v, %v", h, err)
		}
	}, func(dir string) {
		gitOut(b, dir, "ls-tree", old, "--", "src/d0/f0.go")
	})
}

// The launcher's and doctor's read: a file at HEAD.
func BenchmarkReadHeadFile(b *testing.B) {
	dir := benchRepo(b)
	pair(b, dir, func(r *Repo) {
		if _, ok, err := r.HeadFile("src/d1/f1.go", 1<<20); err != nil || !ok {
			b.Fatalf("HeadFile = %v, %v", ok, err)
		}
	}, func(dir string) {
		gitOut(b, dir, "cat-file", "blob", "HEAD:src/d1/f1.go")
	})
}

// check and diff: resolve a revision, then the merge base.
func BenchmarkReadResolveMergeBase(b *testing.B) {
	dir := benchRepo(b)
	pair(b, dir, func(r *Repo) {
		a, err := r.Resolve("main")
		if err != nil {
			b.Fatal(err)
		}
		s, err := r.Resolve("side")
		if err != nil {
			b.Fatal(err)
		}
		if _, err := r.MergeBase(a, s); err != nil {
			b.Fatal(err)
		}
	}, func(dir string) {
		gitOut(b, dir, "merge-base", "main", "side")
	})
}

// diff's read: the log at a revision.
func BenchmarkReadFileAt(b *testing.B) {
	dir := benchRepo(b)
	id := strings.TrimSpace(string(gitOut(b, dir, "rev-parse", "main~100")))
	pair(b, dir, func(r *Repo) {
		if _, ok, err := r.FileAt(id, "src/d2/f2.go", 1<<20); err != nil || !ok {
			b.Fatalf("FileAt = %v, %v", ok, err)
		}
	}, func(dir string) {
		gitOut(b, dir, "cat-file", "blob", id+":src/d2/f2.go")
	})
}

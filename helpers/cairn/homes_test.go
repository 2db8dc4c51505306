package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/testharness/cairntest"
)

// sources maps each of the module's non-test Go files (slash-separated,
// relative to the repository) to its text.
func sources(t *testing.T) map[string]string {
	t.Helper()
	root := cairntest.RepoRoot(t)
	files := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") && p != root || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		b, err := os.ReadFile(p)
		files[filepath.ToSlash(rel)] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// onlyIn fails for each source file outside allowed (directories or files)
// where re matches.
func onlyIn(t *testing.T, files map[string]string, re *regexp.Regexp, rule string, allowed ...string) {
	t.Helper()
	for name, text := range files {
		if slices.ContainsFunc(allowed, func(a string) bool { return name == a || strings.HasPrefix(name, a+"/") }) {
			continue
		}
		if loc := re.FindStringIndex(text); loc != nil {
			line := strings.Count(text[:loc[0]], "\n") + 1
			t.Errorf("%s:%d: %s (its one home is %s)", name, line, rule, strings.Join(allowed, ", "))
		}
	}
}

// A project is resolved by package projroot alone: no other package reads
// CAIRN_DIR or walks up for .git or .cairn.
func TestOneProjectResolver(t *testing.T) {
	files := sources(t)
	onlyIn(t, files, regexp.MustCompile(`"CAIRN_DIR"`), "reads CAIRN_DIR", "helpers/internal/projroot")
	onlyIn(t, files, regexp.MustCompile(`func (FindRoot|FindUp|Locate)\(|func Find\(dir`), "resolves a project", "helpers/internal/projroot", "helpers/internal/project")
	onlyIn(t, files, regexp.MustCompile(`parent := filepath\.Dir\(`), "walks up the directories", "helpers/internal/projroot",
		// knowledge_dir's check resolves the links of a path's longest
		// existing prefix (its git work tree is projroot's).
		"helpers/internal/userconf/userconf.go")
}

// The capture hook's reject rule is package hookgate's: no other package
// tests a payload for a typed prefix to skip it (package capture's
// extraction does, on a command or a reply it decoded).
func TestOneRejectPath(t *testing.T) {
	onlyIn(t, sources(t), regexp.MustCompile(`MightContain\(`), "judges a payload for the reject path",
		"helpers/internal/hookgate", "helpers/internal/typed", "helpers/internal/capture")
}

// Files are replaced atomically by package fsx alone (temporary file,
// fsync, rename, directory fsync, links refused: Root.WriteAtomic for
// content at hand, Root.CreateTemp and Root.Install for a file written by
// a stream or another library). No other package renames a file or
// creates one exclusively (the first half of its own temp-and-rename);
// the few exceptions are listed here with their reason.
func TestOneAtomicWriter(t *testing.T) {
	files := sources(t)
	onlyIn(t, files, regexp.MustCompile(`os\.(WriteFile|CreateTemp)\(`), "writes a file outside package fsx",
		"helpers/internal/fsx",
		// The test harnesses write the clients' configs in test homes.
		"helpers/internal/testharness",
		// A file the person named (curate --out).
		"helpers/internal/cli/curate.go",
		// eval's scratch corpora (--corpus, --tools), in temporary directories of their own.
		"helpers/internal/eval/run.go", "helpers/internal/eval/tooleval/tooleval.go")
	onlyIn(t, files, regexp.MustCompile(`\bRename\(`), "renames a file outside package fsx (install it with fsx's Root.Install)",
		"helpers/internal/fsx",
		"helpers/internal/testharness",
		// Moving a task between the queue's directories is a claim, not
		// a write; the pipeline's log is rotated; a legacy file is moved.
		"helpers/internal/pipeline/worker.go", "helpers/internal/pipeline/queue/queue.go", "helpers/internal/pipeline/export.go",
		// The injection log is rotated: the whole file keeps its content
		// under the old name, nothing is written.
		"helpers/internal/recall/injections.go")
	onlyIn(t, files, regexp.MustCompile(`O_EXCL`), "creates a file exclusively outside package fsx (write it with fsx's Root.CreateTemp)",
		"helpers/internal/fsx",
		"helpers/internal/testharness",
		// A learning of the person's own, created once under a new name
		// and never replaced (a failed write removes it): no rename.
		"helpers/internal/pipeline/learning.go",
		// The turn's record of edited files, created by the tool gate,
		// whose init runs before fsx's: exclusively, so that its os.Root
		// follows no link; appended to, never replaced.
		"helpers/internal/hookgate/toolgate/store.go")
}

// The user's own config is package userconf's, read by these callers
// alone, each once per use; the hooks read it through their Session
// (session/record's Session.User, once per event; the reject path's
// default). A new caller joins this list knowing that rule.
func TestOneUserConfigLoader(t *testing.T) {
	onlyIn(t, sources(t), regexp.MustCompile(`userconf\.(Load|LoadConfig|UserDirs|Loader|Turn|State)\(`), "loads the user's config",
		"helpers/internal/userconf",
		"helpers/internal/session/record/record.go", // Session.User, once per event
		"helpers/internal/hookgate/reject.go",       // the reject path: one load
		"helpers/internal/session/ondemand.go",      // recall outside a hook
		"helpers/internal/cli/pipeline.go", "helpers/internal/cli/guards.go", "helpers/internal/doctor/doctor.go",
		"helpers/internal/pipeline/run.go", "helpers/internal/pipeline/status.go",
		"helpers/internal/wiki/personal.go", "helpers/internal/wiki/team.go",
		// cairn ui's personal pages, once per page: the person may turn
		// the pipeline on while the server runs.
		"helpers/internal/ui/views.go")
}

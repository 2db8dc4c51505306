//go:build unix

package toolgate

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/anchor"
	"github.com/cairn-dev/cairn/helpers/internal/fsx"
)

// A .cairn pushed by someone else may hold links, FIFOs and huge files
// where the gate reads and writes. The gate then defers to the full hook
// (which reports them through fsx): it reads nothing outside the
// project, writes nothing outside .cairn, does not hang on a FIFO, and
// does not crash. Each case turns an anchored file's lookup (a.go, which
// must go to the full hook) into a trap: what the link leads to is a map,
// current with the log, that anchors nothing, so a gate that followed it
// would answer "nothing anchored".
func TestQuietRefusesAHostileCairn(t *testing.T) {
	t.Setenv("CAIRN_DIR", "")
	t.Setenv("CLAUDE_PROJECT_DIR", "")
	// emptyMap writes, at path, a map current with dir's log that anchors
	// nothing.
	emptyMap := func(t *testing.T, dir, path string) {
		t.Helper()
		id, err := anchor.Identity(fsx.NewRoot(filepath.Join(dir, ".cairn")))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, anchor.Encode(anchor.Map{Sources: id}), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	must := func(t *testing.T, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	mapPath := func(dir string) string { return filepath.Join(dir, ".cairn", filepath.FromSlash(anchor.File)) }
	for _, c := range []struct {
		name  string
		setup func(t *testing.T, dir, outside string)
	}{
		{"the map is a link out of the project", func(t *testing.T, dir, outside string) {
			emptyMap(t, dir, filepath.Join(outside, "anchors.map"))
			must(t, os.Remove(mapPath(dir)))
			must(t, os.Symlink(filepath.Join(outside, "anchors.map"), mapPath(dir)))
		}},
		{"the cache is a link out of the project", func(t *testing.T, dir, outside string) {
			emptyMap(t, dir, filepath.Join(outside, "anchors.map"))
			must(t, os.RemoveAll(filepath.Join(dir, ".cairn", "cache")))
			must(t, os.Symlink(outside, filepath.Join(dir, ".cairn", "cache")))
		}},
		{"the map is a link inside .cairn", func(t *testing.T, dir, _ string) {
			emptyMap(t, dir, filepath.Join(dir, ".cairn", "other.map"))
			must(t, os.Remove(mapPath(dir)))
			must(t, os.Symlink("../other.map", mapPath(dir)))
		}},
		{"the map is a FIFO", func(t *testing.T, dir, _ string) {
			must(t, os.Remove(mapPath(dir)))
			must(t, syscall.Mkfifo(mapPath(dir), 0o644))
		}},
		{"the map is a directory", func(t *testing.T, dir, _ string) {
			must(t, os.Remove(mapPath(dir)))
			must(t, os.Mkdir(mapPath(dir), 0o755))
		}},
		{"the map is larger than the cap", func(t *testing.T, dir, _ string) {
			emptyMap(t, dir, mapPath(dir))
			must(t, os.Truncate(mapPath(dir), anchor.MaxBytes+1)) // sparse
		}},
		{"the log is a link out of the project", func(t *testing.T, dir, outside string) {
			log := filepath.Join(dir, ".cairn", "knowledge.jsonl")
			must(t, os.Rename(log, filepath.Join(outside, "knowledge.jsonl")))
			must(t, os.Symlink(filepath.Join(outside, "knowledge.jsonl"), log))
		}},
		{"the log is a FIFO", func(t *testing.T, dir, _ string) {
			log := filepath.Join(dir, ".cairn", "knowledge.jsonl")
			must(t, os.Remove(log))
			must(t, syscall.Mkfifo(log, 0o644))
		}},
		{".cairn is a link", func(t *testing.T, dir, outside string) {
			must(t, os.Rename(filepath.Join(dir, ".cairn"), filepath.Join(outside, ".cairn")))
			must(t, os.Symlink(filepath.Join(outside, ".cairn"), filepath.Join(dir, ".cairn")))
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir, outside := gateProject(t), t.TempDir()
			c.setup(t, dir, outside)
			for _, p := range [][]byte{
				payload(dir, "Read", `{"file_path":"a.go"}`),
				payload(dir, "Bash", `{"command":"cat a.go"}`),
			} {
				if quiet(claudeAgent, p) {
					t.Errorf("quiet answered %s", p)
				}
			}
		})
	}
}

// The turn's record of edited files is written only to a private regular
// file under .cairn/local: a link there (out of the project or back into
// the log), or a directory on the way with group or other bits, makes the
// gate defer, and nothing is written through it.
func TestQuietNotesEditsOnlyPrivately(t *testing.T) {
	t.Setenv("CAIRN_DIR", "")
	t.Setenv("CLAUDE_PROJECT_DIR", "")
	edit := func(dir string) []byte {
		return []byte(`{"session_id":"s","cwd":"` + dir + `","tool_name":"Edit","tool_input":{"file_path":"b.go"}}`)
	}
	record := filepath.FromSlash(anchor.Touched(anchor.SessionName("s")))

	// The usual case: noted, 0600 in 0700 directories.
	dir := gateProject(t)
	if !quiet(claudeAgent, edit(dir)) {
		t.Fatal("an edit of an unanchored file went to the full hook")
	}
	data, err := os.ReadFile(filepath.Join(dir, ".cairn", record))
	if err != nil || string(data) != "b.go\n" {
		t.Fatalf("the turn's record holds %q (%v)", data, err)
	}
	for _, p := range []string{record, filepath.Dir(record), "local"} {
		fi, err := os.Lstat(filepath.Join(dir, ".cairn", p))
		if err != nil || fi.Mode().Perm()&0o077 != 0 {
			t.Errorf("%s: %v, %v", p, fi.Mode(), err)
		}
	}
	if !quiet(claudeAgent, edit(dir)) {
		t.Fatal("a second edit went to the full hook")
	}
	if data, _ := os.ReadFile(filepath.Join(dir, ".cairn", record)); string(data) != "b.go\nb.go\n" {
		t.Errorf("the turn's record holds %q after two edits", data)
	}

	for _, c := range []struct {
		name  string
		setup func(t *testing.T, dir, outside string) (watched string)
	}{
		{"local is a link out of the project", func(t *testing.T, dir, outside string) string {
			if err := os.Symlink(outside, filepath.Join(dir, ".cairn", "local")); err != nil {
				t.Fatal(err)
			}
			return outside
		}},
		{"the record is a link to the log", func(t *testing.T, dir, _ string) string {
			p := filepath.Join(dir, ".cairn", record)
			if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink("../../knowledge.jsonl", p); err != nil {
				t.Fatal(err)
			}
			return filepath.Join(dir, ".cairn", "knowledge.jsonl")
		}},
		{"local has group and other bits", func(t *testing.T, dir, _ string) string {
			p := filepath.Join(dir, ".cairn", "local")
			if err := os.Mkdir(p, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(p, 0o755); err != nil {
				t.Fatal(err)
			}
			return p
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir, outside := gateProject(t), t.TempDir()
			watched := c.setup(t, dir, outside)
			before := snapshot(t, watched)
			if quiet(claudeAgent, edit(dir)) {
				t.Error("quiet noted the edit")
			}
			if after := snapshot(t, watched); after != before {
				t.Errorf("%s changed: %q -> %q", watched, before, after)
			}
		})
	}
}

// snapshot is what a test watches of a path: a file's content, or a
// directory's names.
func snapshot(t *testing.T, p string) string {
	t.Helper()
	if ents, err := os.ReadDir(p); err == nil {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		return strings.Join(names, ",")
	}
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// The sync's lock, which the gate takes before it starts the background
// sync, is a regular file below .cairn: a link (out of the project or
// within it), a FIFO or a directory in its place is refused, and nothing
// is opened or created through it; a missing one is created, private.
func TestLockFileRefusesAHostileCairn(t *testing.T) {
	for _, c := range []struct {
		name  string
		setup func(t *testing.T, lock, outside string)
		ok    bool
	}{
		{"missing", func(*testing.T, string, string) {}, true},
		{"a regular file", func(t *testing.T, lock, _ string) {
			if err := os.WriteFile(lock, nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}, true},
		{"a link out of the project", func(t *testing.T, lock, outside string) {
			if err := os.Symlink(filepath.Join(outside, "sync.lock"), lock); err != nil {
				t.Fatal(err)
			}
		}, false},
		{"a link inside .cairn", func(t *testing.T, lock, _ string) {
			if err := os.Symlink("../knowledge.jsonl", lock); err != nil {
				t.Fatal(err)
			}
		}, false},
		{"a FIFO", func(t *testing.T, lock, _ string) {
			if err := syscall.Mkfifo(lock, 0o644); err != nil {
				t.Fatal(err)
			}
		}, false},
		{"a directory", func(t *testing.T, lock, _ string) {
			if err := os.Mkdir(lock, 0o755); err != nil {
				t.Fatal(err)
			}
		}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir, outside := gateProject(t), t.TempDir()
			cairn := filepath.Join(dir, ".cairn")
			c.setup(t, filepath.Join(cairn, filepath.FromSlash(syncLock)), outside)
			s := openTestStore(t, cairn)
			f, err := s.lockFile(syncLock)
			if (err == nil) != c.ok {
				t.Fatalf("lockFile: %v, want ok = %v", err, c.ok)
			}
			if f != nil {
				if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
					t.Errorf("the lock is not a regular file: %v %v", st, err)
				}
				f.Close()
			}
			if _, err := os.Lstat(filepath.Join(outside, "sync.lock")); err == nil {
				t.Error("a lock was created out of the project")
			}
			if b, _ := os.ReadFile(filepath.Join(cairn, "knowledge.jsonl")); string(b) != "{}\n" {
				t.Errorf("the log changed: %q", b)
			}
		})
	}
}

package index

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
)

// bigLog is a log past what a hook rebuilds itself.
func bigLog(t *testing.T) (*knowledge.Store, [][]byte) {
	t.Helper()
	s := newStore(t)
	lines := synthLog(0, 4000, 1)
	if len(join(lines)) <= hookInlineBytes {
		t.Fatalf("the log is %d bytes, not past %d", len(join(lines)), hookInlineBytes)
	}
	writeLog(t, s, join(lines))
	return s, lines
}

func buildFiles(t *testing.T, s *knowledge.Store) []string {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(s.CachePath(), buildPrefix+"*"))
	return m
}

// A hook never rebuilds a big log's cache: it is told ErrNotReady at
// once, and nothing is built.
func TestHookNeverRebuilds(t *testing.T) {
	s, lines := bigLog(t)
	hook, err := OpenForHook(s)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := hook.Sync(); !errors.Is(err, ErrNotReady) {
		t.Fatalf("hook sync of a missing cache = %v, want ErrNotReady", err)
	}
	hook.Close()
	if n, err := hookCount(s); err == nil && n > 0 {
		t.Fatalf("the hook built a cache of %d entries", n)
	}

	// Built (as the background sync does), a pull's worth of lines is
	// caught up by the hook; far more is left to the background.
	ix := openIndex(t, s)
	mustSync(t, ix)
	ix.Close()
	pulled := append(slices.Clone(lines), synthLog(10_000, 10_050, 2)...)
	knowledge.SortLines(pulled)
	writeLog(t, s, join(pulled))
	hook, err = OpenForHook(s)
	if err != nil {
		t.Fatal(err)
	}
	res, err := hook.Sync()
	if err != nil || res.Added != 50 || res.Rebuilt {
		t.Fatalf("hook sync of a pull of 50 = %+v, %v", res, err)
	}
	hook.Close()
	flood := append(slices.Clone(pulled), synthLog(20_000, 20_000+hookMaxLines+1, 3)...)
	knowledge.SortLines(flood)
	writeLog(t, s, join(flood))
	hook, err = OpenForHook(s)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := hook.Sync(); !errors.Is(err, ErrNotReady) {
		t.Fatalf("hook sync of a pull of %d = %v, want ErrNotReady", hookMaxLines+1, err)
	}
	hook.Close()
	if n, _ := hookCount(s); n != 4050 {
		t.Fatalf("the cache holds %d entries after the refused catch-up, want 4050", n)
	}
}

// A small log's cache is rebuilt by the hook itself.
func TestHookRebuildsSmallLog(t *testing.T) {
	s := newStore(t)
	writeLog(t, s, join(synthLog(0, 100, 1)))
	hook, err := OpenForHook(s)
	if err != nil {
		t.Fatal(err)
	}
	defer hook.Close()
	if res, err := hook.Sync(); err != nil || !res.Rebuilt {
		t.Fatalf("hook sync of a small log = %+v, %v", res, err)
	}
}

// A damaged cache of a big log is not rebuilt by a hook's search.
func TestHookSearchOfDamagedCache(t *testing.T) {
	s, _ := bigLog(t)
	ix := openIndex(t, s)
	mustSync(t, ix)
	ix.Close()
	hook, err := OpenForHook(s)
	if err != nil {
		t.Fatal(err)
	}
	defer hook.Close()
	if _, err := hook.Sync(); err != nil {
		t.Fatal(err)
	}
	// Damage the pages past the header, as a disk error would.
	f, err := os.OpenFile(Path(s), os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	junk := make([]byte, 1<<20)
	for i := range junk {
		junk[i] = 0xA5
	}
	f.WriteAt(junk, 8192)
	f.Close()
	_, err = searchErr(hook, testQuery{Text: "oauth token", Limit: 5})
	if err != nil && !errors.Is(err, ErrNotReady) {
		t.Fatalf("hook search of a damaged cache = %v, want ErrNotReady (or an answer)", err)
	}
	if errors.Is(err, ErrNotReady) && len(buildFiles(t, s)) > 0 {
		t.Fatalf("build files left: %v", buildFiles(t, s))
	}
}

// A rebuild removes the temporary files of rebuilds that were killed.
func TestRebuildRemovesAbandonedBuilds(t *testing.T) {
	s := newStore(t)
	writeLog(t, s, join(synthLog(0, 50, 1)))
	if err := os.MkdirAll(s.CachePath(), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{buildPrefix + "4242", buildPrefix + "99999"} {
		if err := os.WriteFile(filepath.Join(s.CachePath(), n), make([]byte, 4096), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ix := openIndex(t, s)
	if _, err := ix.Rebuild(); err != nil {
		t.Fatal(err)
	}
	if left := buildFiles(t, s); len(left) > 0 {
		t.Fatalf("abandoned build files left: %v", left)
	}
}

// hookCount is the cache's entry count, as a fresh reader sees it.
func hookCount(s *knowledge.Store) (int, error) {
	ix, err := Open(s)
	if err != nil {
		return 0, err
	}
	defer ix.Close()
	if ix.stale {
		return 0, nil
	}
	return ix.Count()
}

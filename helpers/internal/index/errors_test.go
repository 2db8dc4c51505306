package index

import (
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestErrorsClassified: an error SQLite gives for a damaged file is
// ErrCorrupt and ErrCache, through any wrapping; another SQLite error is
// ErrCache only; the message is the operation and SQLite's.
func TestErrorsClassified(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.db")
	if err := os.WriteFile(path, []byte(strings.Repeat("not a database ", 1000)), 0o644); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	_, notADB := db.Exec(`SELECT 1 FROM meta`)
	mem, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer mem.Close()
	_, syntax := mem.Exec(`SELEKT 1`)
	if notADB == nil || syntax == nil {
		t.Fatalf("SQLite gave no error: %v, %v", notADB, syntax)
	}
	for _, tc := range []struct {
		name           string
		err            error
		cache, corrupt bool
	}{
		{"not a database", dbErr("search cache", notADB), true, true},
		{"wrapped", fmt.Errorf("sync: %w", dbErr("read cache", notADB)), true, true},
		{"syntax", dbErr("search cache", syntax), true, false},
		{"not SQLite's", dbErr("install cache", os.ErrExist), true, false},
		{"not the cache's", fmt.Errorf("read log: %w", notADB), false, false},
	} {
		if got := errors.Is(tc.err, ErrCache); got != tc.cache {
			t.Errorf("%s: errors.Is(%v, ErrCache) = %v", tc.name, tc.err, got)
		}
		if got := errors.Is(tc.err, ErrCorrupt); got != tc.corrupt {
			t.Errorf("%s: errors.Is(%v, ErrCorrupt) = %v", tc.name, tc.err, got)
		}
	}
	if got, want := dbErr("search cache", notADB).Error(), "search cache: "+notADB.Error(); got != want {
		t.Errorf("message %q, want %q", got, want)
	}
	if dbErr("search cache", nil) != nil {
		t.Error("dbErr(nil) is not nil")
	}
}

// A link where the cache's file belongs is an error of the cache: deleting
// .cairn/cache fixes it.
func TestLinkedCacheIsErrCache(t *testing.T) {
	s := newStore(t)
	target := filepath.Join(t.TempDir(), "elsewhere.db")
	if err := os.WriteFile(target, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(s.CachePath(), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, Path(s)); err != nil {
		t.Fatal(err)
	}
	ix, err := Open(s)
	if err == nil {
		ix.Close()
		t.Fatal("Open followed a link in place of the cache")
	}
	if !errors.Is(err, ErrCache) || errors.Is(err, ErrCorrupt) {
		t.Errorf("Open: %v; want ErrCache, not ErrCorrupt", err)
	}
}

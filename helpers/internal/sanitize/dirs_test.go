package sanitize

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
	"github.com/cairn-dev/cairn/helpers/internal/testharness/synthlog"
)

// A synthetic log (10k entries; 2k in -short) with one entry in 25
// anchored to a directory that holds tracked files (written three ways:
// "svc01/db/migrations", "svc01/db/migrations/", "./svc01/db"), one in 25
// to a tracked file, and one in 100 to a directory that does not exist:
// only the last are stale. (Before directories were anchors, every
// directory-anchored entry left the working set.)
func TestDirectoryAnchorsOnASyntheticLog(t *testing.T) {
	n := 10_000
	if testing.Short() {
		n = 2_000
	}
	repo := newGitRepo(t)
	files := map[string]string{}
	for d := range 40 {
		for f := range 5 {
			files[fmt.Sprintf("svc%02d/db/migrations/%04d.sql", d, f)] = fmt.Sprintf("-- %d %d\n", d, f)
		}
	}
	repo.write(files)
	repo.commit("migrations")
	store := knowledge.Open(repo.dir)
	if err := store.Provision(); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 1))
	entries := make([]knowledge.Entry, 0, n)
	gone := 0
	for i := range n {
		e := synthlog.Entry(rng, i)
		switch {
		case i%25 == 0:
			spell := []string{"svc%02d/db/migrations", "svc%02d/db/migrations/", "./svc%02d/db"}[i/25%3]
			e.Files = []string{fmt.Sprintf(spell, i%40)}
		case i%25 == 1:
			e.Files = []string{fmt.Sprintf("svc%02d/db/migrations/%04d.sql", i%40, i%5)}
		case i%100 == 2:
			e.Files = []string{fmt.Sprintf("gone%02d/db", i%40)}
			gone++
		}
		entries = append(entries, e)
	}
	if _, err := store.Insert(entries); err != nil {
		t.Fatal(err)
	}
	res, ran, err := Run(store, Options{Root: repo.dir, Collect: true}, true)
	if err != nil || !ran {
		t.Fatalf("Run = %v, %v", ran, err)
	}
	s := res.Summary
	t.Logf("%d entries: %d active, %d stale, %d needs review, %d possibly outdated", s.Entries, s.Active, s.Stale, s.Review, s.Outdated)
	if s.Stale != gone || s.Active != s.Entries-gone {
		t.Errorf("stale %d, active %d of %d; want only the %d anchored to a missing directory stale", s.Stale, s.Active, s.Entries, gone)
	}
	for _, a := range res.Audit {
		if a.Result == "stale" && !strings.Contains(a.Reason, "(gone") {
			t.Errorf("stale: %s", a.Reason)
		}
	}
}

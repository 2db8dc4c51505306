package index

import (
	"reflect"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
)

func TestNarrow(t *testing.T) {
	s := newStore(t)
	jan := time.Date(2026, 1, 10, 0, 0, 0, 0, time.UTC).Unix()
	feb := time.Date(2026, 2, 10, 0, 0, 0, 0, time.UTC).Unix()
	es := []knowledge.Entry{
		{Key: "a", Type: "fact", Content: "gopher channels in the cache", TS: jan, Author: "Ana", Branch: "main", Files: []string{"helpers/internal/index/search.go"}},
		{Key: "b", Type: "decision", Content: "gopher channels decided", TS: jan + 1, Author: "Bo", Branch: "feature/x"},
		{Key: "c", Type: "fact", Content: "gopher channels again", TS: feb, Author: "Ana", Branch: "feature/x", Files: []string{"helpers/internal/indexer.go"}},
		{Key: "d", Type: "fact", Content: "gopher channels retracted", TS: feb + 1, Author: "Ana", Status: knowledge.StatusRetracted},
	}
	if _, err := s.Insert(es); err != nil {
		t.Fatal(err)
	}
	ix := openIndex(t, s)
	mustSync(t, ix)
	for _, tc := range []struct {
		name     string
		n        Narrow
		inactive bool
		want     []string
	}{
		{"author", Narrow{Author: "Ana"}, false, []string{"c", "a"}},
		{"author with inactive", Narrow{Author: "Ana"}, true, []string{"d", "c", "a"}},
		{"branch", Narrow{Branch: "feature/x"}, false, []string{"c", "b"}},
		{"status active", Narrow{Status: "active"}, true, []string{"c", "b", "a"}},
		{"status retracted", Narrow{Status: knowledge.StatusRetracted}, true, []string{"d"}},
		{"file exact", Narrow{File: "helpers/internal/index/search.go"}, false, []string{"a"}},
		{"file directory", Narrow{File: "helpers/internal/index"}, false, []string{"a"}},
		{"file parent directory", Narrow{File: "helpers/internal"}, false, []string{"c", "a"}},
		{"month", Narrow{Month: "2026-01"}, false, []string{"b", "a"}},
		{"month bad", Narrow{Month: "January"}, false, nil},
		{"both", Narrow{Author: "Ana", Month: "2026-02"}, false, []string{"c"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := hitKeys(search(t, ix, testQuery{Narrow: tc.n, Inactive: tc.inactive, NewestFirst: true, Limit: 50}))
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("listing = %v, want %v", got, tc.want)
			}
			// The ranked search narrows the same way.
			ranked := hitKeys(search(t, ix, testQuery{Text: "gopher channels", Narrow: tc.n, Inactive: tc.inactive, Limit: 50}))
			if len(ranked) != len(tc.want) {
				t.Errorf("search = %v, want the keys %v in any order", ranked, tc.want)
			}
		})
	}
}

func TestWeekly(t *testing.T) {
	s := newStore(t)
	mon := time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC) // a Monday
	es := []knowledge.Entry{
		{Key: "a", Type: "fact", Content: "one", TS: mon.Unix(), Author: "Ana"},
		{Key: "b", Type: "fact", Content: "two", TS: mon.Add(6*24*time.Hour + 23*time.Hour).Unix(), Author: "Ana"}, // Sunday night
		{Key: "c", Type: "decision", Content: "three", TS: mon.Add(7 * 24 * time.Hour).Unix(), Author: "Bo"},
		{Key: "d", Type: "fact", Content: "four", TS: mon.Add(-time.Second).Unix(), Author: "Ana"}, // the Sunday before
	}
	if _, err := s.Insert(es); err != nil {
		t.Fatal(err)
	}
	ix := openIndex(t, s)
	mustSync(t, ix)
	got, err := ix.Weekly(false, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []WeekCount{
		{Week: mon.AddDate(0, 0, -7), Type: "fact", Author: "Ana", Count: 1},
		{Week: mon, Type: "fact", Author: "Ana", Count: 2},
		{Week: mon.AddDate(0, 0, 7), Type: "decision", Author: "Bo", Count: 1},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Weekly = %+v\nwant %+v", got, want)
	}
	// The last two weeks up to the newest entry's.
	if got, err := ix.Weekly(false, 2); err != nil || !reflect.DeepEqual(got, want[1:]) {
		t.Errorf("Weekly(2) = %+v, %v\nwant %+v", got, err, want[1:])
	}
	if got, err := ix.Weekly(false, 1); err != nil || !reflect.DeepEqual(got, want[2:]) {
		t.Errorf("Weekly(1) = %+v, %v\nwant %+v", got, err, want[2:])
	}
	empty := openIndex(t, newStore(t))
	mustSync(t, empty)
	if got, err := empty.Weekly(false, 52); err != nil || len(got) != 0 {
		t.Errorf("Weekly of an empty log = %+v, %v", got, err)
	}
}

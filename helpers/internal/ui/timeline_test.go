package ui

import (
	"testing"
	"time"

	"github.com/cairn-dev/cairn/helpers/internal/index"
)

func TestTimeline(t *testing.T) {
	w0 := time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)
	week := func(n int) time.Time { return w0.AddDate(0, 0, 7*n) }
	counts := []index.WeekCount{
		{Week: week(0), Type: "learned", Author: "Ana", Count: 4},
		{Week: week(0), Type: "decision", Author: "Bo", Count: 2},
		{Week: week(2), Type: "learned", Author: "Ana", Count: 1},
		{Week: week(2), Type: "bogus", Author: "", Count: 1},
	}
	v := timeline(counts)
	if v.Total != 8 {
		t.Errorf("Total = %d, want 8", v.Total)
	}
	// Every week from the first to the last, the empty one included, newest first.
	want := []weekRow{{"2026-03-16", 2}, {"2026-03-09", 0}, {"2026-03-02", 6}}
	if len(v.Weeks) != len(want) {
		t.Fatalf("Weeks = %+v", v.Weeks)
	}
	for i := range want {
		if v.Weeks[i] != want[i] {
			t.Errorf("Weeks[%d] = %+v, want %+v", i, v.Weeks[i], want[i])
		}
	}
	ch := v.ByType
	if ch.Max != 6 || len(ch.Bars) != 4 {
		t.Fatalf("by type: max %d, %d bars: %+v", ch.Max, len(ch.Bars), ch.Bars)
	}
	// The fullest week's stack fills the chart's height exactly.
	h := 0
	for _, b := range ch.Bars {
		if b.X == 0 {
			h += b.H
		}
		if b.Y < chartTop || b.Y+b.H > chartTop+chartH || b.W <= 0 || b.X+b.W > chartW {
			t.Errorf("bar outside the chart: %+v", b)
		}
	}
	if h != chartH {
		t.Errorf("the first week's stack is %d high, want %d", h, chartH)
	}
	names := map[string]int{}
	for _, l := range ch.Legend {
		names[l.Name] = l.Count
	}
	if names["learned"] != 5 || names["decision"] != 2 || names["other"] != 1 {
		t.Errorf("legend by type = %+v", ch.Legend)
	}
	authors := map[string]string{}
	for _, l := range v.ByAuthor.Legend {
		authors[l.Name] = l.Class
	}
	if authors["Ana"] != "a0" || authors["Bo"] != "a1" || authors["(unknown)"] != "a2" {
		t.Errorf("legend by author = %+v", v.ByAuthor.Legend)
	}
	if empty := timeline(nil); empty.Total != 0 || len(empty.ByType.Bars) != 0 {
		t.Errorf("timeline of nothing = %+v", empty)
	}
}

func TestTimelineCapsWeeksAndAuthors(t *testing.T) {
	w0 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	var counts []index.WeekCount
	for i := range 80 {
		counts = append(counts, index.WeekCount{Week: w0.AddDate(0, 0, 7*i), Type: "fact", Author: string(rune('a' + i%10)), Count: 1 + i%10})
	}
	v := timeline(counts)
	if len(v.Weeks) != maxWeeks {
		t.Errorf("%d weeks drawn, want %d", len(v.Weeks), maxWeeks)
	}
	if len(v.ByAuthor.Legend) != maxAuthors+1 || v.ByAuthor.Legend[len(v.ByAuthor.Legend)-1].Name != "others" {
		t.Errorf("legend by author = %+v", v.ByAuthor.Legend)
	}
}

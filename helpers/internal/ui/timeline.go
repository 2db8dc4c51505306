package ui

import (
	"fmt"
	"sort"
	"time"

	"github.com/cairn-dev/cairn/helpers/internal/index"
	"github.com/cairn-dev/cairn/helpers/internal/knowledge"

	"github.com/cairn-dev/cairn/helpers/internal/when"
)

// maxWeeks is how many weeks the timeline draws: the newest ones.
const maxWeeks = 52

// maxAuthors is how many authors the chart by author names; the others
// are summed.
const maxAuthors = 6

// timelineView is the timeline page: two stacked bar charts of the
// entries added each week, by type and by author.
type timelineView struct {
	ByType, ByAuthor chart
	// Total is how many entries the log holds (with the archive when All);
	// Shown, how many of them the weeks drawn added.
	Total, Shown int
	All          bool
	Weeks        []weekRow // newest first
}

type weekRow struct {
	Week  string
	Count int
}

// chart is a server-rendered SVG bar chart.
type chart struct {
	Width, Height int
	Bars          []bar
	Legend        []legend
	Ticks         []tick
	Max           int
}

type bar struct {
	X, Y, W, H int
	Class      string
	Title      string
}

type legend struct {
	Class, Name string
	Count       int
}

type tick struct {
	X    int
	Text string
}

const (
	chartW, chartH = 760, 160
	minSlots       = 13
	chartTop       = 8
)

// timeline lays out counts (oldest week first).
func timeline(counts []index.WeekCount) timelineView {
	var v timelineView
	perWeek := map[time.Time]int{}
	authorTotal := map[string]int{}
	for _, c := range counts {
		perWeek[c.Week] += c.Count
		authorTotal[c.Author] += c.Count
		v.Shown += c.Count
	}
	v.Total = v.Shown
	var weeks []time.Time
	for w := range perWeek {
		weeks = append(weeks, w)
	}
	sort.Slice(weeks, func(a, b int) bool { return weeks[a].Before(weeks[b]) })
	if len(weeks) == 0 {
		return v
	}
	// Every week from the first drawn to the last, empty ones included.
	last := weeks[len(weeks)-1]
	first := weeks[0]
	if span := last.AddDate(0, 0, -7*(maxWeeks-1)); first.Before(span) {
		first = span
	}
	var axis []time.Time
	for w := first; !w.After(last); w = w.AddDate(0, 0, 7) {
		axis = append(axis, w)
	}
	for i := len(axis) - 1; i >= 0; i-- {
		v.Weeks = append(v.Weeks, weekRow{Week: when.MachineDay(axis[i]), Count: perWeek[axis[i]]})
	}
	authors := make([]string, 0, len(authorTotal))
	for a := range authorTotal {
		authors = append(authors, a)
	}
	sort.Slice(authors, func(a, b int) bool {
		if authorTotal[authors[a]] != authorTotal[authors[b]] {
			return authorTotal[authors[a]] > authorTotal[authors[b]]
		}
		return authors[a] < authors[b]
	})
	authorClass := map[string]string{}
	for i, a := range authors {
		authorClass[a] = fmt.Sprintf("a%d", min(i, maxAuthors))
	}
	typeClass := map[string]string{}
	for _, t := range knowledge.Types {
		typeClass[t] = "t-" + t
	}
	v.ByType = stack(axis, counts, func(c index.WeekCount) (string, string) {
		if cl, ok := typeClass[c.Type]; ok {
			return cl, c.Type
		}
		return "t-other", "other"
	})
	v.ByAuthor = stack(axis, counts, func(c index.WeekCount) (string, string) {
		cl := authorClass[c.Author]
		if cl == fmt.Sprintf("a%d", maxAuthors) {
			return cl, "others"
		}
		if c.Author == "" {
			return cl, "(unknown)"
		}
		return cl, c.Author
	})
	return v
}

// stack draws one bar per week of axis, stacked by the group key gives
// each count (a CSS class and a name).
func stack(axis []time.Time, counts []index.WeekCount, key func(index.WeekCount) (class, name string)) chart {
	ch := chart{Width: chartW, Height: chartH + chartTop + 20}
	slot := map[time.Time]int{}
	for i, w := range axis {
		slot[w] = i
	}
	type cell struct {
		week  int
		class string
	}
	sums := map[cell]int{}
	names := map[string]string{}
	totals := map[string]int{}
	weekTotal := make([]int, len(axis))
	for _, c := range counts {
		i, ok := slot[c.Week]
		if !ok {
			continue
		}
		cl, name := key(c)
		names[cl] = name
		sums[cell{i, cl}] += c.Count
		totals[cl] += c.Count
		weekTotal[i] += c.Count
	}
	for _, n := range weekTotal {
		ch.Max = max(ch.Max, n)
	}
	if ch.Max == 0 {
		return ch
	}
	classes := make([]string, 0, len(totals))
	for cl := range totals {
		classes = append(classes, cl)
	}
	rest := func(cl string) bool { return cl == "t-other" || cl == fmt.Sprintf("a%d", maxAuthors) }
	sort.Slice(classes, func(a, b int) bool {
		if ra, rb := rest(classes[a]), rest(classes[b]); ra != rb {
			return rb // the rest goes last
		}
		if totals[classes[a]] != totals[classes[b]] {
			return totals[classes[a]] > totals[classes[b]]
		}
		return classes[a] < classes[b]
	})
	for _, cl := range classes {
		ch.Legend = append(ch.Legend, legend{Class: cl, Name: names[cl], Count: totals[cl]})
	}
	// Bars as wide as a quarter year's would be, at most: a young log's few
	// weeks are not stretched over the whole width.
	step := chartW / max(len(axis), minSlots)
	w := max(step-2, 1)
	for i, week := range axis {
		// Each bar spans its stack's cumulative count, so a stack's height
		// is its week's total to the pixel, whatever the rounding.
		base, cum, y := chartTop+chartH, 0, chartTop+chartH
		for _, cl := range classes {
			n := sums[cell{i, cl}]
			if n == 0 {
				continue
			}
			cum += n
			top := base - cum*chartH/ch.Max
			h := max(y-top, 1)
			y -= h
			ch.Bars = append(ch.Bars, bar{X: i * step, Y: y, W: w, H: h, Class: cl,
				Title: fmt.Sprintf("week of %s: %d %s", when.MachineDay(week), n, names[cl])})
		}
		if i%max(len(axis)/6, 1) == 0 {
			ch.Ticks = append(ch.Ticks, tick{X: i * step, Text: when.MachineDay(week)})
		}
	}
	return ch
}

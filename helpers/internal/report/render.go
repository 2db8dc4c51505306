package report

import (
	"fmt"
	"io"
	"math"
)

// NotEnough says why a figure has no difference: its agent does not
// record it, or there are not enough sessions yet.
func (c Compared) NotEnough() string {
	if c.NotRecordedBy != "" {
		return "not recorded by " + c.NotRecordedBy + "'s transcripts"
	}
	return fmt.Sprintf("not enough sessions yet (%d with, %d without; need at least %d)", c.With.N, c.Without.N, MinSessions)
}

// Num formats a figure's value for people.
func Num(v float64) string {
	a := math.Abs(v)
	switch {
	case a >= 10000:
		return fmt.Sprintf("%.0f", v)
	case a >= 100 || v == math.Trunc(v):
		return fmt.Sprintf("%.0f", v)
	case a >= 10:
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.2f", v)
}

// Signed is Num with a sign.
func Signed(v float64) string {
	if v > 0 {
		return "+" + Num(v)
	}
	return Num(v)
}

// Relative is the difference as a share of the median without recall
// ("" when that median is 0).
func (c Compared) Relative() string {
	if !c.Enough || c.Without.Median == 0 {
		return ""
	}
	return fmt.Sprintf("%+.0f%%", 100*c.Difference/c.Without.Median)
}

// Interval is the 95% interval for people.
func (c Compared) Interval() string {
	return Signed(c.Low) + " to " + Signed(c.High)
}

// Verdict says in words what the interval says.
func (c Compared) Verdict() string {
	switch {
	case !c.Enough:
		return ""
	case c.High < 0:
		return "lower with recall"
	case c.Low > 0:
		return "higher with recall"
	}
	return "no clear difference"
}

// WriteText writes r for a terminal.
func WriteText(w io.Writer, r Report, markdown bool) {
	span := "all sessions"
	if !r.From.IsZero() {
		span = "sessions since " + day(r.From)
	}
	if markdown {
		fmt.Fprintf(w, "# cairn report\n\n%s, on this machine; holdout share %s (cairn %s).\n", span, share(r.Share), r.Version)
	} else {
		fmt.Fprintf(w, "cairn report: %s, on this machine; holdout share %s (cairn %s)\n", span, share(r.Share), r.Version)
	}
	if len(r.Agents) == 0 {
		fmt.Fprintln(w, "\nNo sessions found: cairn reads Claude Code's, Codex's and Gemini CLI's transcripts of this project on this machine.")
	}
	for _, a := range r.Agents {
		head := fmt.Sprintf("%s: %d sessions with recall, %d without", a.Title, a.With, a.Without)
		if markdown {
			fmt.Fprintf(w, "\n## %s\n\n| figure | median with recall | median without | difference | 95%% interval |\n| --- | ---: | ---: | ---: | --- |\n", head)
		} else {
			fmt.Fprintf(w, "\n%s\n  %-32s %12s %12s %16s  %s\n", head, "figure", "with recall", "without", "difference", "95% interval")
		}
		for _, f := range a.Figures {
			diff, interval := f.NotEnough(), ""
			if f.Enough {
				diff = Signed(f.Difference)
				if rel := f.Relative(); rel != "" {
					diff += " (" + rel + ")"
				}
				interval = f.Interval() + "  " + f.Verdict()
			}
			if markdown {
				fmt.Fprintf(w, "| %s | %s | %s | %s | %s |\n", f.Label, Num(f.With.Median), Num(f.Without.Median), diff, interval)
			} else if f.Enough {
				fmt.Fprintf(w, "  %-32s %12s %12s %16s  %s\n", f.Label, Num(f.With.Median), Num(f.Without.Median), diff, interval)
			} else {
				fmt.Fprintf(w, "  %-32s %12s %12s  %s\n", f.Label, Num(f.With.Median), Num(f.Without.Median), diff)
			}
		}
	}
	if r.Skipped > 0 {
		fmt.Fprintf(w, "\n%d transcripts could not be read and were left out.\n", r.Skipped)
	}
	list := func(title string, es []EntryUse, line func(EntryUse) string) {
		if len(es) == 0 {
			return
		}
		if markdown {
			fmt.Fprintf(w, "\n## %s\n\n", title)
		} else {
			fmt.Fprintf(w, "\n%s\n", title)
		}
		for i, e := range es {
			if i == 20 {
				fmt.Fprintf(w, "  … and %d more (--json lists them all)\n", len(es)-i)
				break
			}
			if markdown {
				fmt.Fprintf(w, "- %s\n", line(e))
			} else {
				fmt.Fprintf(w, "  %s\n", line(e))
			}
		}
	}
	list("Injected entries that were used (a touch of their files or their words in a reply)", r.Used, func(e EntryUse) string {
		return fmt.Sprintf("%s  used in %d of %d sessions", e.Key, e.Used, e.Injected)
	})
	list(fmt.Sprintf("Injected in %d or more sessions and never used: candidates for curation", UnusedAfter), r.Unused, func(e EntryUse) string {
		return fmt.Sprintf("%s  injected in %d sessions  (review: %s)", e.Key, e.Injected, e.Review)
	})
	fmt.Fprintln(w, "\nHow to read this: docs/report.md (the method, its limits, the intervals).")
}

func share(s float64) string {
	if s == 0 {
		return "0 (off: set \"holdout\": 0.1 in .cairn/config.json)"
	}
	return fmt.Sprintf("%.0f%%", 100*s)
}

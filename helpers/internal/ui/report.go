package ui

import (
	"net/http"
	"strconv"
	"time"

	"github.com/cairn-dev/cairn/helpers/internal/agent/adapters"
	"github.com/cairn-dev/cairn/helpers/internal/holdout"
	"github.com/cairn-dev/cairn/helpers/internal/report"
	"github.com/cairn-dev/cairn/helpers/internal/userconf"
)

// The report page: `cairn report` as a picture. Each figure is a strip
// of dots per group (with recall, without), the medians marked, in SVG
// drawn on the server: no script.

// maxDots caps the dots drawn per group of a figure (evenly chosen).
const maxDots = 400

// Geometry of one figure's picture, in SVG user units.
const (
	plotW, plotLeft, plotRight = 640, 110, 620
	rowH                       = 36
)

type reportView struct {
	Since   string
	Share   string
	Agents  []reportAgent
	Skipped int
}

type reportAgent struct {
	Title         string
	With, Without int
	Figures       []reportFigure
}

type reportFigure struct {
	Label                  string
	Enough                 bool
	NotEnough              string
	WithMedian, WithoutMed string
	Difference, Relative   string
	Interval, Verdict      string
	Width, Height          int
	Rows                   []reportRow
	Min, Max               string
	MidY                   float64
}

type reportRow struct {
	Name    string
	Y       float64
	MedianX float64
	Top     float64
	Bottom  float64
	Median  string
	Dots    []reportDot
	Omitted int
}

type reportDot struct {
	X, Y    float64
	Session string
	Value   string
}

func (s *Server) reportPage(w http.ResponseWriter, r *http.Request) {
	p := page{Title: "Does recall help?", Nav: "report"}
	days := 30
	if d, err := strconv.Atoi(r.URL.Query().Get("days")); err == nil && d >= 0 {
		days = d
	}
	cfg, _ := s.opt.Project.Store.LoadConfig()
	share := holdout.Share(cfg.Holdout, userconf.Holdout(s.opt.Getenv))
	rep, err := report.Build(report.Options{
		Store: s.opt.Project.Store, Root: s.opt.Project.Root, Adapters: adapters.All(), Getenv: s.opt.Getenv,
		Since: time.Duration(days) * 24 * time.Hour, Share: share,
	})
	if err != nil {
		p.Error = err.Error()
	}
	v := reportView{Since: strconv.Itoa(days), Share: strconv.FormatFloat(100*share, 'f', 0, 64) + "%", Skipped: rep.Skipped}
	for _, a := range rep.Agents {
		va := reportAgent{Title: a.Title, With: a.With, Without: a.Without}
		for i, f := range a.Figures {
			va.Figures = append(va.Figures, picture(a, i, f))
		}
		v.Agents = append(v.Agents, va)
	}
	p.Data = v
	s.render(w, "report", p)
}

// picture lays out one figure: both groups' dots on one scale.
func picture(a report.AgentPart, fig int, f report.Figure) reportFigure {
	out := reportFigure{Label: f.Label, Enough: f.Enough, NotEnough: f.NotEnough(),
		WithMedian: report.Num(f.With.Median), WithoutMed: report.Num(f.Without.Median),
		Width: plotW, Height: 2*rowH + 30}
	if f.Enough {
		out.Difference, out.Relative = report.Signed(f.Difference), f.Relative()
		out.Interval, out.Verdict = f.Interval(), f.Verdict()
	}
	lo, hi := 0.0, 0.0
	first := true
	for _, s := range a.Sessions {
		v := s.Values[fig]
		if first || v < lo {
			lo = v
		}
		if first || v > hi {
			hi = v
		}
		first = false
	}
	if hi == lo {
		hi = lo + 1
	}
	x := func(v float64) float64 { return plotLeft + (v-lo)/(hi-lo)*(plotRight-plotLeft) }
	out.Min, out.Max = report.Num(lo), report.Num(hi)
	for gi, held := range []bool{false, true} {
		row := reportRow{Name: "with recall", Y: float64(10 + gi*rowH + rowH/2)}
		g := f.With
		if held {
			row.Name, g = "without", f.Without
		}
		row.MedianX, row.Median = x(g.Median), report.Num(g.Median)
		row.Top, row.Bottom = row.Y-14, row.Y+14
		var group []report.Session
		for _, s := range a.Sessions {
			if s.Holdout == held {
				group = append(group, s)
			}
		}
		step := 1
		if len(group) > maxDots {
			step = (len(group) + maxDots - 1) / maxDots
			row.Omitted = len(group) - (len(group)+step-1)/step
		}
		for i := 0; i < len(group); i += step {
			s := group[i]
			jitter := float64(i%7-3) * 3
			row.Dots = append(row.Dots, reportDot{X: x(s.Values[fig]), Y: row.Y + jitter, Session: s.ID, Value: report.Num(s.Values[fig])})
		}
		out.Rows = append(out.Rows, row)
	}
	out.MidY = float64(10 + 2*rowH + 14)
	return out
}

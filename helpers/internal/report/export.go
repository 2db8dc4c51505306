package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"time"

	cairn "github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/helpers/internal/fsx"

	"github.com/cairn-dev/cairn/helpers/internal/when"
)

// ExportFormat is the version of the export's format.
const ExportFormat = 1

// maxExport caps the size of an export read by Merge.
const maxExport = 16 << 20

// Export is what `cairn report --export` writes: aggregates only. Each
// figure's groups are histograms of values rounded to two significant
// digits, so that exports can be merged; no prompt, path, key, session
// id or entry text is in it.
type Export struct {
	Format  int            `json:"format"`
	Version string         `json:"cairn_version"`
	From    string         `json:"from,omitempty"` // a date, YYYY-MM-DD
	To      string         `json:"to"`
	Merged  int            `json:"merged,omitempty"` // how many exports were merged into this one
	Agents  []ExportedPart `json:"agents"`
}

// ExportedPart is one agent's aggregates.
type ExportedPart struct {
	Agent   string           `json:"agent"` // the adapter's name: claude, codex, gemini, opencode
	With    int              `json:"with_recall"`
	Without int              `json:"without_recall"`
	Figures []ExportedFigure `json:"figures"`
}

// ExportedFigure is one figure's comparison and its groups' histograms.
type ExportedFigure struct {
	Name string `json:"name"`
	Compared
	WithHist    [][2]float64 `json:"with_histogram"`    // [value, sessions]
	WithoutHist [][2]float64 `json:"without_histogram"` // [value, sessions]
}

// ToExport turns r into its aggregates.
func (r Report) ToExport() Export {
	x := Export{Format: ExportFormat, Version: cairn.Version, To: day(r.To), Agents: []ExportedPart{}}
	if !r.From.IsZero() {
		x.From = day(r.From)
	}
	for _, a := range r.Agents {
		p := ExportedPart{Agent: knownAgent(a.Agent), With: a.With, Without: a.Without}
		for _, f := range a.Figures {
			p.Figures = append(p.Figures, ExportedFigure{Name: f.Name, Compared: f.Compared,
				WithHist: histogram(f.With.Values), WithoutHist: histogram(f.Without.Values)})
		}
		x.Agents = append(x.Agents, p)
	}
	return x
}

func day(t time.Time) string { return when.MachineDay(t) }

// knownAgent is name when it is one of the figures' agents' names (always,
// for a report this package built); anything else is "other".
func knownAgent(name string) string {
	for _, r := range name {
		if !('a' <= r && r <= 'z' || '0' <= r && r <= '9' || r == '-') {
			return "other"
		}
	}
	return name
}

// histogram counts values rounded to two significant digits.
func histogram(values []float64) [][2]float64 {
	counts := map[float64]float64{}
	for _, v := range values {
		counts[round2(v)]++
	}
	out := make([][2]float64, 0, len(counts))
	for v, n := range counts {
		out = append(out, [2]float64{v, n})
	}
	slices.SortFunc(out, func(a, b [2]float64) int { return compareFloat(a[0], b[0]) })
	return out
}

func compareFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// round2 rounds v to two significant digits.
func round2(v float64) float64 {
	if v == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0
	}
	p := math.Pow(10, math.Floor(math.Log10(math.Abs(v)))-1)
	return math.Round(v/p) * p
}

// WriteExport writes r's aggregates to path (0644, replacing it
// atomically).
func WriteExport(path string, r Report) error {
	data, err := json.MarshalIndent(r.ToExport(), "", "  ")
	if err != nil {
		return err
	}
	return fsx.NewRoot(filepath.Dir(path)).WriteAtomic(filepath.Base(path), append(data, '\n'), 0o644)
}

// Merge combines exports (the files at paths) into one report: per agent,
// the histograms summed and every figure compared again.
func Merge(paths []string) (Report, error) {
	type key struct{ agent, figure string }
	hists := map[key][2]map[float64]float64{}
	unrecorded := map[key]bool{} // figures an export says its agent does not record
	var agents []string
	r := Report{Version: cairn.Version}
	for _, path := range paths {
		data, err := fsx.ReadRegular(path, maxExport)
		if errors.Is(err, fsx.ErrTooLarge) {
			return r, fmt.Errorf("%s: over %d MiB, not an export of cairn report", path, maxExport>>20)
		}
		if err != nil {
			return r, err
		}
		var x Export
		if err := json.Unmarshal(data, &x); err != nil {
			return r, fmt.Errorf("%s: not an export of cairn report: %w", path, err)
		}
		if x.Format != ExportFormat {
			return r, fmt.Errorf("%s: export format %d, this cairn reads %d (update cairn)", path, x.Format, ExportFormat)
		}
		if to, err := time.Parse(time.DateOnly, x.To); err == nil && to.After(r.To) {
			r.To = to
		}
		if from, err := time.Parse(time.DateOnly, x.From); err == nil && (r.From.IsZero() || from.Before(r.From)) {
			r.From = from
		}
		for _, a := range x.Agents {
			name := knownAgent(a.Agent)
			if !slices.Contains(agents, name) {
				agents = append(agents, name)
			}
			for _, f := range a.Figures {
				k := key{name, f.Name}
				if f.NotRecordedBy != "" {
					unrecorded[k] = true
				}
				h, ok := hists[k]
				if !ok {
					h = [2]map[float64]float64{{}, {}}
					hists[k] = h
				}
				for i, src := range [2][][2]float64{f.WithHist, f.WithoutHist} {
					for _, vn := range src {
						if vn[1] > 0 && vn[1] <= 1e6 {
							h[i][vn[0]] += math.Round(vn[1])
						}
					}
				}
			}
		}
	}
	rng := newRNG(Seed)
	for _, name := range agents {
		p := AgentPart{Agent: name, Title: name}
		for f := range nFigures {
			h := hists[key{name, Figures[f].Name}]
			with, without := expand(h[0]), expand(h[1])
			p.With, p.Without = max(p.With, len(with)), max(p.Without, len(without))
			p.Figures = append(p.Figures, Figure{Name: Figures[f].Name, Label: Figures[f].Label, Compared: Compare(with, without, rng)})
			if unrecorded[key{name, Figures[f].Name}] {
				notRecorded(&p, []string{Figures[f].Name})
			}
		}
		r.Agents = append(r.Agents, p)
	}
	return r, nil
}

// expand turns a histogram back into values.
func expand(h map[float64]float64) []float64 {
	var out []float64
	for v, n := range h {
		for range int(n) {
			out = append(out, v)
		}
	}
	return out
}

package ui

import (
	"math"
	"net/http"

	"github.com/cairn-dev/cairn/helpers/internal/wiki"
)

// maxGraphNodes caps the articles the link graph draws: past it, a circle
// of names is no longer readable (the index lists them all).
const maxGraphNodes = 80

// graphView is a wiki's link graph: its articles on a circle, a line for
// each link between two of them.
type graphView struct {
	Size      int
	Nodes     []graphNode
	Edges     []graphEdge
	TooLarge  bool
	Articles  int
	LinkCount int
}

type graphNode struct {
	X, Y, LabelX, LabelY int
	Anchor               string // the label's text-anchor
	Path, Title, URL     string
	Degree               int
}

type graphEdge struct{ X1, Y1, X2, Y2 int }

const graphSize = 760

// linkGraph lays out g's articles of wiki which.
func linkGraph(which string, g *wiki.Graph) graphView {
	pages := g.Pages()
	v := graphView{Size: graphSize, Articles: len(pages)}
	if len(pages) > maxGraphNodes {
		v.TooLarge = true
		return v
	}
	at := map[string]int{}
	c, r := float64(graphSize)/2, float64(graphSize)/2-150
	for i, p := range pages {
		a := 2*math.Pi*float64(i)/float64(max(len(pages), 1)) - math.Pi/2
		x, y := c+r*math.Cos(a), c+r*math.Sin(a)
		anchor := "start"
		if math.Cos(a) < -0.01 {
			anchor = "end"
		} else if math.Abs(math.Cos(a)) <= 0.01 {
			anchor = "middle"
		}
		title := p.Front.Title
		if title == "" {
			title = p.Path
		}
		at[p.Path] = i
		v.Nodes = append(v.Nodes, graphNode{X: int(x), Y: int(y), LabelX: int(c + (r+12)*math.Cos(a)), LabelY: int(c+(r+12)*math.Sin(a)) + 4,
			Anchor: anchor, Path: p.Path, Title: title, URL: pageURL(which, p.Path)})
	}
	for _, p := range pages {
		to := at[p.Path]
		for _, from := range g.Backlinks(p.Path) {
			i, ok := at[from]
			if !ok {
				continue
			}
			v.Edges = append(v.Edges, graphEdge{X1: v.Nodes[i].X, Y1: v.Nodes[i].Y, X2: v.Nodes[to].X, Y2: v.Nodes[to].Y})
			v.Nodes[i].Degree++
			v.Nodes[to].Degree++
			v.LinkCount++
		}
	}
	return v
}

type wikiGraphView struct {
	*wikiView
	Graph graphView
}

func (s *Server) wikiGraphPage(w http.ResponseWriter, r *http.Request) {
	var p page
	v, g := s.wikiGraph(r, &p)
	gv := &wikiGraphView{wikiView: v}
	if g != nil {
		gv.Graph = linkGraph(v.Which, g)
	}
	p.Data = gv
	s.render(w, "wikigraph", p)
}

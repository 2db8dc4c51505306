package wiki

import "sort"

// Graph is a wiki's articles and the links between them, resolved as
// Lint resolves them (see [Lint]): what a reader of the wiki follows.
type Graph struct {
	s  *scan
	r  *resolver
	in map[string][]string // article -> the articles linking to it
}

// ReadGraph reads every article of wiki w and resolves their links.
func ReadGraph(w string) (*Graph, error) {
	s, err := scanWiki(w)
	if err != nil {
		return nil, err
	}
	g := &Graph{s: s, r: &resolver{s: s, src: noSources{}, memo: map[string]resolution{}}, in: map[string][]string{}}
	for _, a := range s.order {
		seen := map[string]bool{}
		for _, l := range a.page.Links {
			to, ok := g.Resolve(a.path, l)
			if !ok || to == a.path || seen[to] {
				continue
			}
			seen[to] = true
			g.in[to] = append(g.in[to], a.path)
		}
	}
	for _, from := range g.in {
		sort.Strings(from)
	}
	return g, nil
}

// Pages are the articles read (those that could not be read aside), in
// path order.
func (g *Graph) Pages() []Page {
	out := make([]Page, 0, len(g.s.order))
	for _, a := range g.s.order {
		if a.readErr == nil {
			out = append(out, a.page)
		}
	}
	return out
}

// Page is the article at path ("concepts/x").
func (g *Graph) Page(path string) (Page, bool) {
	a, ok := g.s.articles[path]
	if !ok || a.readErr != nil {
		return Page{}, false
	}
	return a.page, true
}

// Resolve is the article link l of article from names; ok is false when
// it names none (a broken link, or a source rather than an article).
func (g *Graph) Resolve(from string, l Link) (article string, ok bool) {
	res := g.r.resolve(from, l)
	return res.article, res.ok && res.article != ""
}

// ResolveTarget is the article a link target written in index.md names.
func (g *Graph) ResolveTarget(target string) (article string, ok bool) {
	return g.Resolve("", Link{Target: target})
}

// Backlinks are the articles linking to article, in path order.
func (g *Graph) Backlinks(article string) []string { return g.in[article] }

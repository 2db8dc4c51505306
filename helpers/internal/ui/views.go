package ui

import (
	"bytes"
	"errors"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"math"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cairn-dev/cairn/helpers/internal/curate"
	"github.com/cairn-dev/cairn/helpers/internal/fsx"
	"github.com/cairn-dev/cairn/helpers/internal/index"
	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
	"github.com/cairn-dev/cairn/helpers/internal/pipeline"
	"github.com/cairn-dev/cairn/helpers/internal/rank"
	"github.com/cairn-dev/cairn/helpers/internal/recall"
	"github.com/cairn-dev/cairn/helpers/internal/relevance"
	"github.com/cairn-dev/cairn/helpers/internal/review"
	"github.com/cairn-dev/cairn/helpers/internal/ui/markdown"
	"github.com/cairn-dev/cairn/helpers/internal/untrusted"
	"github.com/cairn-dev/cairn/helpers/internal/userconf"
	"github.com/cairn-dev/cairn/helpers/internal/when"
	"github.com/cairn-dev/cairn/helpers/internal/wiki"
)

// page is what the layout renders around a view.
type page struct {
	Title string
	Nav   string // the navigation item to mark
	Error string
	Data  any
	// Status is the answer's HTTP status (200 when 0).
	Status int
}

// render writes view name with data; a failure to render is a 500.
func (s *Server) render(w http.ResponseWriter, name string, p page) {
	t, ok := s.pages[name]
	if !ok {
		http.Error(w, "no such view", http.StatusInternalServerError)
		return
	}
	var b bytes.Buffer
	if err := t.Execute(&b, p); err != nil {
		http.Error(w, "cairn ui: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if p.Status != 0 {
		w.WriteHeader(p.Status)
	}
	_, _ = w.Write(b.Bytes())
}

// funcs are the templates' helpers. Every text from the log, the wikis or
// a transcript passes text (or line) on its way into a template, which
// then escapes it.
var funcs = template.FuncMap{
	"text": func(s string) string { return markdown.Clean(s) },
	"line": func(s string) string { return untrusted.ForTerminal(s) },
	"cut": func(s string, n int) string {
		s = untrusted.ForTerminal(s)
		if r := []rune(s); len(r) > n {
			return string(r[:n-1]) + "…"
		}
		return s
	},
	// Times as people read them everywhere (package when).
	"day":   func(ts int64) string { return when.Day(time.Unix(ts, 0)) },
	"stamp": func(ts int64) string { return when.Person(time.Unix(ts, 0)) },
	"nanos": func(ns int64) string { return when.Person(time.Unix(0, ns)) },
	"time": func(t time.Time) string {
		if t.IsZero() {
			return ""
		}
		return when.Person(t)
	},
	"status": func(s string) string {
		if s == "" {
			return "active"
		}
		return s
	},
	"join":  func(l []string) string { return untrusted.ForTerminal(strings.Join(l, ", ")) },
	"score": func(f float64) string { return strconv.FormatFloat(f, 'g', 4, 64) },
	"entry": func(key string) string { return "/entry?key=" + url.QueryEscape(key) },
	"q":     url.QueryEscape,
}

// ---- knowledge ----

// knowledgeView is the list page: the form's values and the hits.
type knowledgeView struct {
	Q, Type, Author, Branch, Status, File, Month string
	All, Explain                                 bool
	Types, Statuses                              []string
	Hits                                         []hitView
	Analysis                                     *relevance.Analysis
	Order                                        string
	Pager                                        pager
	// Capped is set when a ranked answer has more hits than the best
	// maxRanked, which are all it pages through.
	Capped bool
}

// hitView is one entry found, with recall's reasons when asked.
type hitView struct {
	rank.Hit
	Rank       int
	BM25       float64
	Prior      float64
	Matched    []string
	Moved      []rank.Factor
	ViaSynonym bool
}

// maxRanked is how many of a search's best hits its pages reach: ranking
// reads every hit before the page, so deeper pages would cost more each.
const maxRanked = 500

func (s *Server) knowledgePage(w http.ResponseWriter, r *http.Request) {
	f := r.URL.Query()
	v := knowledgeView{
		Q: strings.TrimSpace(f.Get("q")), Author: f.Get("author"), Branch: f.Get("branch"), Status: f.Get("status"),
		File: strings.Trim(f.Get("file"), "/ "), Month: f.Get("month"), All: f.Get("all") != "", Explain: f.Get("explain") != "",
		Types:    knowledge.Types,
		Statuses: []string{"active", knowledge.StatusCanonical, knowledge.StatusNeedsReview, knowledge.StatusSuperseded, knowledge.StatusRetracted},
	}
	p := page{Title: "Knowledge", Nav: "knowledge", Data: &v}
	if t := f.Get("type"); t != "" {
		typ, err := knowledge.NormalizeType(t)
		if err != nil {
			p.Error = "type: " + err.Error()
			s.render(w, "knowledge", p)
			return
		}
		v.Type = typ
	}
	q := rank.Query{
		Text: v.Q, Type: v.Type, All: v.All, Floor: true,
		Narrow: index.Narrow{Author: v.Author, Branch: v.Branch, Status: v.Status, File: v.File, Month: v.Month},
	}
	if v.Status != "" && v.Status != "active" && v.Status != knowledge.StatusCanonical && v.Status != knowledge.StatusNeedsReview {
		q.Inactive = true
	}
	if q.Text == "" {
		q.NewestFirst = true
		v.Explain = false
	}
	v.Order = "score"
	if q.NewestFirst {
		v.Order = "newest"
	}
	v.Pager = newPager(r, perPage)
	var hits []rank.Hit
	var fields []map[string][]string
	var err error
	if q.NewestFirst {
		// Newest first, the list is paged from a place: any page costs
		// what the first does.
		at := readPlace(r)
		if f.Has("page") && at == (placed{}) {
			s.numberedPage(w, r, q)
			return
		}
		q.Limit = perPage
		hits, err = s.listing(q, at, &v.Pager)
	} else {
		var total int
		q.Skip, q.Limit = v.Pager.Skip(), perPage
		if q.Skip+q.Limit > maxRanked {
			q.Skip = max(0, maxRanked-perPage)
			v.Pager.Page, v.Pager.at = q.Skip/perPage+1, q.Skip
		}
		hits, fields, total, err = s.search(q, &v)
		// The synonyms can add to the matches of the words as written;
		// the confidence floor can answer none.
		if len(hits) == 0 && q.Skip == 0 {
			total = 0
		}
		total = max(total, q.Skip+len(hits))
		v.Capped = total > maxRanked
		v.Pager.SetTotal(total, v.Capped)
	}
	if err != nil {
		p.Error = err.Error()
	}
	for i, h := range hits {
		hv := hitView{Hit: h, Rank: v.Pager.Skip() + i + 1, ViaSynonym: h.Synonym}
		if v.Analysis != nil {
			hv.Prior = rank.Prior(h.Entry, h.Effect)
			hv.BM25 = h.Score
			if hv.Prior != 0 && h.Proximity != 0 {
				hv.BM25 = h.Score / hv.Prior / h.Proximity
			}
			for _, t := range append(append([]relevance.Term{}, v.Analysis.Terms...), v.Analysis.Synonyms...) {
				if fl := fields[i][t.Term]; len(fl) > 0 {
					hv.Matched = append(hv.Matched, termLabel(t)+" in "+strings.Join(fl, ", "))
				}
			}
			for _, fc := range rank.Factors(h.Entry, h.Effect) {
				if fc.Factor != 1 {
					hv.Moved = append(hv.Moved, fc)
				}
			}
		}
		v.Hits = append(v.Hits, hv)
	}
	s.render(w, "knowledge", p)
}

// listing answers the page of the newest-first listing q (its Limit set)
// that at names, from the project's cache synced with the log, and
// records on pg where it stands in the whole list: the rows before it
// are counted, as is the list, not taken from the address.
func (s *Server) listing(q rank.Query, at placed, pg *pager) ([]rank.Hit, error) {
	ix, _, err := index.OpenSynced(s.opt.Project.Store)
	if err != nil {
		return nil, err
	}
	defer ix.Close()
	q.Older, q.Newer = at.Older, at.Newer
	if at.Last {
		q.Newer = &index.Place{TS: math.MinInt64} // every entry is newer: the page nearest the end
	}
	hits, err := rank.Search(ix, q)
	if err != nil {
		return nil, err
	}
	var first, last *index.Place
	if len(hits) > 0 {
		first = &index.Place{TS: hits[0].Entry.TS, Key: hits[0].Entry.Key}
		last = &index.Place{TS: hits[len(hits)-1].Entry.TS, Key: hits[len(hits)-1].Entry.Key}
	}
	total, before, err := rank.Standing(ix, q, first)
	if err != nil {
		return nil, err
	}
	if len(hits) == 0 && q.Older != nil {
		before = total // past the end
	}
	pg.SetPlaced(before, len(hits), total, first, last)
	return hits, nil
}

// numberedPage sends an address of the newest-first list's numbered
// pages (page=N, from a link or a bookmark of an older cairn) to the page
// that shows the same rows: the rows after the one that ends page N-1
// (older=), the first page, or past the end the last (last=1).
func (s *Server) numberedPage(w http.ResponseWriter, r *http.Request, q rank.Query) {
	pg := newPager(r, perPage)
	to := pg.base()
	if pg.Page > 1 {
		ix, _, err := index.OpenSynced(s.opt.Project.Store)
		if err != nil {
			s.render(w, "knowledge", page{Title: "Knowledge", Nav: "knowledge", Error: err.Error(), Data: &knowledgeView{}})
			return
		}
		q.Skip, q.Limit = pg.Skip()-1, 1
		hits, err := rank.Search(ix, q)
		ix.Close()
		switch {
		case err != nil:
			s.render(w, "knowledge", page{Title: "Knowledge", Nav: "knowledge", Error: err.Error(), Data: &knowledgeView{}})
			return
		case len(hits) == 0:
			to.Set("last", "1")
		default:
			to.Set("older", placeParam(index.Place{TS: hits[0].Entry.TS, Key: hits[0].Entry.Key}))
		}
	}
	http.Redirect(w, r, pg.encode(to), http.StatusFound)
}

// search answers one page of q from the project's cache, synced with the
// log: its hits, for --explain which terms each matched where, and how
// many entries q selects in all (see [rank.Total]).
func (s *Server) search(q rank.Query, v *knowledgeView) (hits []rank.Hit, fields []map[string][]string, total int, err error) {
	ix, _, err := index.OpenSynced(s.opt.Project.Store)
	if err != nil {
		return nil, nil, 0, err
	}
	defer ix.Close()
	if hits, err = rank.Search(ix, q); err != nil {
		return nil, nil, 0, err
	}
	if total, err = s.counts.total(ix, q); err != nil {
		return hits, nil, 0, err
	}
	if v.Explain {
		a := relevance.Analyse(q.Text)
		v.Analysis = &a
		keys := make([]string, len(hits))
		for i, h := range hits {
			keys[i] = h.Entry.Key
		}
		fields, err = ix.Fields(keys, a.All())
	}
	return hits, fields, total, err
}

// counts remembers how many entries searches select (rank.Total) by the
// cache's generation: the pages of one search, and the same search asked
// again while the cache has not moved, count its matches once (at 100k
// entries, a word a third of them hold: about 40 ms of a page's 140).
type counts struct {
	mu       sync.Mutex
	n        map[string]int
	computed int // how many it counted (for tests)
}

// maxCounts is how many counts it keeps; past that it starts over.
const maxCounts = 64

// total is rank.Total of q, a ranked search (no place to page from), from
// the cache ix.
func (c *counts) total(ix *index.Index, q rank.Query) (int, error) {
	gen, err := ix.Generation()
	if err != nil {
		return rank.Total(ix, q)
	}
	key := fmt.Sprintf("%s\x00%q\x00%q\x00%v\x00%v\x00%+v", gen, q.Text, q.Type, q.All, q.Inactive, q.Narrow)
	c.mu.Lock()
	n, ok := c.n[key]
	c.mu.Unlock()
	if ok {
		return n, nil
	}
	if n, err = rank.Total(ix, q); err != nil {
		return n, err
	}
	again, err := ix.Generation()
	c.mu.Lock()
	defer c.mu.Unlock()
	c.computed++
	if err == nil && again == gen { // not rebuilt meanwhile
		if len(c.n) >= maxCounts || c.n == nil {
			c.n = map[string]int{}
		}
		c.n[key] = n
	}
	return n, nil
}

// termLabel is a term as recall --explain names it.
func termLabel(t relevance.Term) string {
	s := t.Term
	if t.Prefix {
		s += "*"
	}
	switch t.Origin {
	case relevance.FromSplit:
		s += " (split from " + t.Of + ")"
	case relevance.FromSynonym:
		s += " (synonym of " + t.Of + ")"
	}
	return s
}

// ---- one entry ----

func (s *Server) entryPage(w http.ResponseWriter, r *http.Request) {
	key := r.URL.Query().Get("key")
	p := page{Title: "Entry", Nav: "knowledge"}
	if err := s.opt.Project.RequireStore(); err != nil {
		p.Error = err.Error()
		s.render(w, "entry", p)
		return
	}
	sh, err := curate.Show(s.opt.Project, key)
	if err != nil {
		p.Error = err.Error()
		p.Status = http.StatusNotFound
		s.render(w, "entry", p)
		return
	}
	p.Data = sh
	s.render(w, "entry", p)
}

// ---- timeline ----

func (s *Server) timelinePage(w http.ResponseWriter, r *http.Request) {
	p := page{Title: "Timeline", Nav: "timeline"}
	all := r.URL.Query().Get("all") != ""
	var v timelineView
	ix, _, err := index.OpenSynced(s.opt.Project.Store)
	if err == nil {
		defer ix.Close()
		var counts []index.WeekCount
		if counts, err = ix.Weekly(all, maxWeeks); err == nil {
			v = timeline(counts)
			// The chart draws the newest weeks; the log holds them all.
			v.Total, err = ix.Selected(nil, index.Filter{All: all, Inactive: true})
		}
	}
	if err != nil {
		p.Error = err.Error()
	}
	v.All = all
	p.Data = v
	s.render(w, "timeline", p)
}

// ---- what agents were shown ----

type logView struct {
	Session    string
	Injections []recall.Injection // the page's
	Pager      pager
}

func (s *Server) logPage(w http.ResponseWriter, r *http.Request) {
	p := page{Title: "What agents were shown", Nav: "log"}
	v := logView{Session: r.URL.Query().Get("session")}
	all, err := recall.Injections(s.opt.Project.Store)
	if err != nil {
		p.Error = err.Error()
	}
	var kept []recall.Injection
	for _, in := range all {
		if v.Session == "" || in.Session == v.Session {
			kept = append(kept, in)
		}
	}
	v.Pager = newPager(r, perPage)
	v.Pager.SetTotal(len(kept), false)
	v.Injections = slice(v.Pager, kept)
	p.Data = v
	s.render(w, "log", p)
}

// ---- knowledge diff ----

type diffView struct {
	Rev      string
	Diff     review.DiffReport
	Sections []diffSection // the page's changes
	Ran      bool
	Pager    pager
}

type diffSection struct {
	Title   string
	Changes []knowledge.Change
}

// diffTitles are the kinds of change in the order cairn diff prints them.
var diffTitles = []struct{ kind, title string }{
	{knowledge.ChangeAdded, "Added"},
	{knowledge.ChangeRetracted, "Retracted"},
	{knowledge.ChangeSuperseded, "Superseded"},
	{knowledge.ChangeStatus, "Status changed"},
	{knowledge.ChangeEdited, "Edited"},
	{knowledge.ChangeArchived, "Archived by rotation"},
	{knowledge.ChangeRestored, "Restored from the archive"},
	{knowledge.ChangeRemoved, "Removed"},
}

func (s *Server) diffPage(w http.ResponseWriter, r *http.Request) {
	p := page{Title: "Knowledge diff", Nav: "diff"}
	v := diffView{Rev: strings.TrimSpace(r.URL.Query().Get("rev"))}
	p.Data = &v
	if strings.HasPrefix(v.Rev, "-") {
		p.Error = "a revision does not start with -"
		s.render(w, "diff", p)
		return
	}
	d, err := s.diff(v.Rev)
	if err != nil {
		p.Error = err.Error()
		s.render(w, "diff", p)
		return
	}
	v.Diff, v.Ran = d, true
	// The changes in the order of their sections; one page of them is
	// drawn under their sections' titles (only the page's are copied).
	v.Pager = newPager(r, perPage)
	total := 0
	for _, t := range diffTitles {
		for i := range d.Changes {
			if d.Changes[i].Kind != t.kind {
				continue
			}
			if total >= v.Pager.Skip() && total < v.Pager.Skip()+v.Pager.Per {
				if n := len(v.Sections); n == 0 || v.Sections[n-1].Title != t.title {
					v.Sections = append(v.Sections, diffSection{Title: t.title})
				}
				last := &v.Sections[len(v.Sections)-1]
				last.Changes = append(last.Changes, d.Changes[i])
			}
			total++
		}
	}
	v.Pager.SetTotal(total, false)
	s.render(w, "diff", p)
}

// ---- wikis ----

// openWiki is the team ("team") or personal ("personal") wiki's directory.
func (s *Server) openWiki(which string) (string, error) {
	switch which {
	case "team":
		wk, err := wiki.OpenTeam(s.opt.Project.Store, s.opt.Getenv)
		if wk.Dir == "" {
			return "", err
		}
		return wk.Dir, nil
	case "personal":
		wk, err := wiki.OpenPersonal(s.opt.Getenv)
		if err != nil {
			return "", err
		}
		return wk.Dir, nil
	}
	return "", errNoWiki
}

var errNoWiki = errors.New("no such wiki: team or personal")

type wikiView struct {
	Which, Dir string
	Index      []indexRow  // the page's rows of index.md
	Pages      []wiki.Page // the page's articles
	Page       *wiki.Page
	Body       template.HTML
	Backlinks  []string       // the page's
	Findings   []wiki.Finding // the page's
	Missing    bool
	// IndexPager pages the index's rows (page=N), PagesPager the articles
	// (articles=N); Pager the findings of lint and an article's backlinks
	// (page=N).
	IndexPager, PagesPager, Pager pager
}

type indexRow struct {
	Path, Summary string
}

// wikiGraph reads the wiki named by r's path value which.
func (s *Server) wikiGraph(r *http.Request, p *page) (*wikiView, *wiki.Graph) {
	v := &wikiView{Which: r.PathValue("which")}
	p.Data, p.Nav = v, "wiki-"+v.Which
	p.Title = v.Which + " wiki"
	dir, err := s.openWiki(v.Which)
	if err != nil {
		p.Error = err.Error()
		return v, nil
	}
	v.Dir = dir
	g, err := wiki.ReadGraph(dir)
	if errors.Is(err, fs.ErrNotExist) {
		v.Missing = true
		return v, nil
	}
	if err != nil {
		p.Error = err.Error()
		return v, nil
	}
	return v, g
}

// pageURL is the in-app address of an article of wiki which.
func pageURL(which, article string) string {
	parts := strings.Split(article, "/")
	for i, s := range parts {
		parts[i] = url.PathEscape(s)
	}
	return "/wiki/" + which + "/page/" + strings.Join(parts, "/")
}

func (s *Server) wikiIndexPage(w http.ResponseWriter, r *http.Request) {
	var p page
	v, g := s.wikiGraph(r, &p)
	if g != nil {
		pages := g.Pages()
		v.PagesPager = pagerOn(r, "articles", perPage)
		v.PagesPager.SetTotal(len(pages), false)
		v.Pages = slice(v.PagesPager, pages)
		rows, err := wiki.ReadIndex(v.Dir)
		if err != nil {
			p.Error = err.Error()
		}
		var index []indexRow
		for _, row := range rows {
			if a, ok := g.ResolveTarget(row.Path); ok {
				index = append(index, indexRow{Path: a, Summary: row.Summary})
			}
		}
		v.IndexPager = newPager(r, perPage)
		v.IndexPager.SetTotal(len(index), false)
		v.Index = slice(v.IndexPager, index)
	}
	s.render(w, "wiki", p)
}

func (s *Server) wikiPage(w http.ResponseWriter, r *http.Request) {
	var p page
	v, g := s.wikiGraph(r, &p)
	if g != nil {
		path := strings.TrimSuffix(r.PathValue("path"), ".md")
		pg, ok := g.Page(path)
		if !ok {
			p.Status = http.StatusNotFound
			p.Error = "no article " + path
		} else {
			v.Page = &pg
			back := g.Backlinks(pg.Path)
			v.Pager = newPager(r, perPage)
			v.Pager.SetTotal(len(back), false)
			v.Backlinks = slice(v.Pager, back)
			v.Body = markdown.Render(pg.Body, func(target string) (string, bool) {
				a, ok := g.Resolve(pg.Path, wiki.Link{Target: target})
				if !ok {
					return "", false
				}
				return pageURL(v.Which, a), true
			})
			p.Title = untrusted.ForTerminal(pg.Front.Title)
		}
	}
	s.render(w, "wikipage", p)
}

func (s *Server) wikiLintPage(w http.ResponseWriter, r *http.Request) {
	var p page
	v, g := s.wikiGraph(r, &p)
	if g != nil {
		var src wiki.Sources
		if v.Which == "team" {
			src = wiki.TeamSources(s.opt.Project.Store)
		} else if wk, err := wiki.OpenPersonal(s.opt.Getenv); err == nil {
			src = wk.Sources
		}
		rep, err := wiki.Lint(v.Dir, src, wiki.LintOptions{StructuralOnly: true})
		if err != nil {
			p.Error = err.Error()
		}
		v.Pager = newPager(r, perPage)
		v.Pager.SetTotal(len(rep.Findings), false)
		v.Findings = slice(v.Pager, rep.Findings)
	}
	s.render(w, "wikilint", p)
}

// ---- the personal pipeline ----

type personalView struct {
	On        bool
	Knowledge string
	Handoffs  []pipeline.Handoff
	Entries   []knowledge.Entry // the page's
	Exports   []string          // the page's, newest first
	// EntriesPager pages the entries (page=N), ExportsPager the exports
	// (exports=N).
	EntriesPager, ExportsPager pager
}

func (s *Server) personalPage(w http.ResponseWriter, r *http.Request) {
	p := page{Title: "Personal", Nav: "personal"}
	v := personalView{}
	p.Data = &v
	know, on, err := s.personalDir()
	if err != nil {
		p.Error = err.Error()
		s.render(w, "personal", p)
		return
	}
	v.On, v.Knowledge = on, know
	if !on {
		s.render(w, "personal", p)
		return
	}
	own := pipeline.OpenPersonal(know, s.opt.Project.Root)
	v.Handoffs = own.Handoffs()
	entries, err := own.Entries()
	if err != nil {
		p.Error = err.Error()
	}
	v.EntriesPager = newPager(r, perPage)
	v.EntriesPager.SetTotal(len(entries), false)
	v.Entries = slice(v.EntriesPager, entries)
	var exports []string
	months, _ := os.ReadDir(filepath.Join(know, "sessions"))
	for i := len(months) - 1; i >= 0; i-- {
		if !monthRE().MatchString(months[i].Name()) || !months[i].IsDir() {
			continue
		}
		files, _ := os.ReadDir(filepath.Join(know, "sessions", months[i].Name()))
		sort.Slice(files, func(a, b int) bool { return files[a].Name() > files[b].Name() })
		for _, f := range files {
			if exportRE().MatchString(f.Name()) {
				exports = append(exports, months[i].Name()+"/"+f.Name())
			}
		}
	}
	v.ExportsPager = pagerOn(r, "exports", perPage)
	v.ExportsPager.SetTotal(len(exports), false)
	v.Exports = slice(v.ExportsPager, exports)
	s.render(w, "personal", p)
}

// personalDir is the user's knowledge directory, and whether the
// pipeline is on.
func (s *Server) personalDir() (string, bool, error) {
	u, err := userconf.Load(s.opt.Getenv)
	if err != nil {
		return "", false, err
	}
	return u.Knowledge(), u.Config.Pipeline, nil
}

var (
	monthRE  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9]{4}-[0-9]{2}$`) })
	exportRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^[0-9]{4}-[0-9]{2}-[0-9]{2}-[A-Za-z0-9_.-]{1,100}\.md$`)
	})
)

// maxExport caps an export read for display.
const maxExport = 4 << 20

type exportView struct {
	Name string
	Body template.HTML
}

func (s *Server) exportPage(w http.ResponseWriter, r *http.Request) {
	p := page{Title: "Session export", Nav: "personal"}
	name := r.URL.Query().Get("name")
	month, file, _ := strings.Cut(name, "/")
	if !monthRE().MatchString(month) || !exportRE().MatchString(file) {
		p.Status = http.StatusNotFound
		p.Error = "no such export"
		s.render(w, "export", p)
		return
	}
	know, on, err := s.personalDir()
	if err != nil || !on {
		p.Error = "the session pipeline is off"
		s.render(w, "export", p)
		return
	}
	f, err := fsx.OpenRegular(filepath.Join(know, "sessions", month, file))
	if err != nil {
		p.Status = http.StatusNotFound
		p.Error = "no such export"
		s.render(w, "export", p)
		return
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxExport))
	if err != nil {
		p.Error = err.Error()
	}
	p.Data = exportView{Name: name, Body: markdown.Render(string(data), nil)}
	s.render(w, "export", p)
}

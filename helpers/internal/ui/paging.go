package ui

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/cairn-dev/cairn/helpers/internal/index"
)

// perPage is how many rows a long page of the viewer shows at once.
const perPage = 50

// pager is one page of a long list: where it starts, of how many rows in
// all, and the addresses of the pages around it (the request's own query
// with another page=, or for a list paged from a place, older=, newer= or
// last=).
type pager struct {
	Page  int // from 1
	Per   int
	Total int // the rows of the whole list
	// Capped is set when the list holds more rows than its pages reach.
	Capped bool
	// First, Prev, Next and Last are the addresses of the first page, the
	// ones before and after this one and the last ("" when there is none,
	// or when it is this page).
	First, Prev, Next, Last string
	at, rows                int // rows before the page, and on it
	query                   url.Values
	path                    string
	param                   string // the query's parameter that names the page
}

// newPager reads the page asked for (page=N, 1 when absent or bad) of r.
func newPager(r *http.Request, per int) pager { return pagerOn(r, "page", per) }

// pagerOn is newPager for a list paged by the parameter param, for a page
// that pages two lists.
func pagerOn(r *http.Request, param string, per int) pager {
	q := r.URL.Query()
	n, err := strconv.Atoi(q.Get(param))
	if err != nil || n < 1 {
		n = 1
	}
	n = min(n, 1<<20)
	return pager{Page: n, Per: per, at: (n - 1) * per, rows: per, query: q, path: r.URL.Path, param: param}
}

// Skip is how many rows come before the page.
func (p pager) Skip() int { return p.at }

// SetTotal records the list's length; capped says that its pages stop
// short of it. It makes the links to the pages around this one.
func (p *pager) SetTotal(total int, capped bool) {
	p.Total, p.Capped = total, capped
	p.rows = max(0, min(p.Per, p.reach()-p.at))
	last := p.Pages()
	p.First, p.Prev, p.Next, p.Last = "", "", "", ""
	if p.Page > last {
		p.Prev = p.link(last) // past the end: back to the last page
	} else if p.Page > 1 {
		p.Prev = p.link(p.Page - 1)
	}
	if p.Page > 2 {
		p.First = p.link(1)
	}
	if p.Page*p.Per < p.reach() {
		p.Next = p.link(p.Page + 1)
	}
	if p.Page < last-1 {
		p.Last = p.link(last)
	}
}

// reach is how many of the list's rows its pages reach.
func (p pager) reach() int {
	if p.Capped {
		return min(p.Total, maxRanked)
	}
	return p.Total
}

// From and To are the rows the page shows, from 1 (0 and 0 when none).
func (p pager) From() int {
	if p.rows == 0 || p.at >= p.Total {
		return 0
	}
	return p.at + 1
}

func (p pager) To() int {
	if p.From() == 0 {
		return 0
	}
	return min(p.Total, p.at+p.rows)
}

// Pages is how many pages the list's reach fills.
func (p pager) Pages() int {
	if p.Per < 1 {
		return 1
	}
	return max(1, (p.reach()+p.Per-1)/p.Per)
}

// link is the address of page n.
func (p pager) link(n int) string {
	q := p.base()
	if n > 1 {
		q.Set(p.param, strconv.Itoa(n))
	}
	return p.encode(q)
}

// base is the request's query without its paging: what every link keeps.
func (p pager) base() url.Values {
	q := url.Values{}
	for k, v := range p.query {
		switch k {
		case "token", p.param, "older", "newer", "last": // a link never carries the credential
		default:
			q[k] = v
		}
	}
	return q
}

func (p pager) encode(q url.Values) string {
	if e := q.Encode(); e != "" {
		return p.path + "?" + e
	}
	return p.path
}

// A list paged from a place (keyset paging) names its pages by a row: the
// page after a row (older=TS.KEY), the page before one (newer=TS.KEY), or
// its last page (last=1). Reading a page then costs the same at any depth,
// where skipping rows costs as many as it skips.

// placed is what a request asks of a list paged from a place.
type placed struct {
	Older, Newer *index.Place
	Last         bool
}

// readPlace reads r's place: none for the first page.
func readPlace(r *http.Request) placed {
	q := r.URL.Query()
	if q.Get("last") != "" {
		return placed{Last: true}
	}
	if p, ok := parsePlace(q.Get("older")); ok {
		return placed{Older: p}
	}
	if p, ok := parsePlace(q.Get("newer")); ok {
		return placed{Newer: p}
	}
	return placed{}
}

// parsePlace reads TS.KEY.
func parsePlace(s string) (*index.Place, bool) {
	ts, key, ok := strings.Cut(s, ".")
	n, err := strconv.ParseInt(ts, 10, 64)
	if !ok || err != nil || key == "" {
		return nil, false
	}
	return &index.Place{TS: n, Key: key}, true
}

// placeParam writes a place as parsePlace reads it.
func placeParam(p index.Place) string { return strconv.FormatInt(p.TS, 10) + "." + p.Key }

// SetPlaced records a page of a list paged from a place: at rows before
// it, rows on it, total in all, and its first and last rows' places
// (which its links start from).
func (p *pager) SetPlaced(at, rows, total int, first, last *index.Place) {
	p.Total, p.Capped, p.at, p.rows = total, false, at, rows
	p.Page = (at+p.Per-1)/p.Per + 1
	p.First, p.Prev, p.Next, p.Last = "", "", "", ""
	if at > 0 {
		q := p.base()
		if first != nil {
			q.Set("newer", placeParam(*first))
		} else {
			q.Set("last", "1") // past the end: back to the last page
		}
		p.Prev = p.encode(q)
		if at > p.Per {
			p.First = p.encode(p.base())
		}
	}
	if last != nil && at+rows < total {
		q := p.base()
		q.Set("older", placeParam(*last))
		p.Next = p.encode(q)
		if at+rows < total-p.Per {
			q := p.base()
			q.Set("last", "1")
			p.Last = p.encode(q)
		}
	}
}

// slice returns the page's rows of a list held whole.
func slice[T any](p pager, all []T) []T {
	return all[min(p.Skip(), len(all)):min(p.Skip()+p.Per, len(all))]
}

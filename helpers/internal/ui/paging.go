package ui

import (
	"net/http"
	"net/url"
	"strconv"
)

// perPage is how many rows a long page of the viewer shows at once.
const perPage = 50

// pager is one page of a long list: which page, of how many rows in all,
// and the addresses of the pages before and after it (the request's own
// query with another page=).
type pager struct {
	Page  int // from 1
	Per   int
	Total int // the rows of the whole list
	// Capped is set when the list holds more rows than its pages reach.
	Capped     bool
	Prev, Next string // "" when there is none
	query      url.Values
	path       string
	param      string // the query's parameter that names the page
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
	return pager{Page: min(n, 1<<20), Per: per, query: q, path: r.URL.Path, param: param}
}

// Skip is how many rows come before the page.
func (p pager) Skip() int { return (p.Page - 1) * p.Per }

// SetTotal records the list's length; capped says that its pages stop
// short of it. It makes the links to the pages around this one.
func (p *pager) SetTotal(total int, capped bool) {
	p.Total, p.Capped = total, capped
	reach := total
	if capped {
		reach = min(total, maxRanked)
	}
	p.Prev, p.Next = "", ""
	if last := p.Pages(); p.Page > last {
		p.Prev = p.link(last) // past the end: back to the last page
	} else if p.Page > 1 {
		p.Prev = p.link(p.Page - 1)
	}
	if p.Page*p.Per < reach {
		p.Next = p.link(p.Page + 1)
	}
}

// From and To are the rows the page shows, from 1 (0 and 0 when none).
func (p pager) From() int {
	if p.Skip() >= p.Total {
		return 0
	}
	return p.Skip() + 1
}

func (p pager) To() int {
	if p.Skip() >= p.Total {
		return 0
	}
	return min(p.Total, p.Skip()+p.Per)
}

// Pages is how many pages the list's reach fills.
func (p pager) Pages() int {
	if p.Per < 1 {
		return 1
	}
	reach := p.Total
	if p.Capped {
		reach = min(reach, maxRanked)
	}
	return max(1, (reach+p.Per-1)/p.Per)
}

func (p pager) link(n int) string {
	q := url.Values{}
	for k, v := range p.query {
		if k != "token" { // a link never carries the credential
			q[k] = v
		}
	}
	if n == 1 {
		q.Del(p.param)
	} else {
		q.Set(p.param, strconv.Itoa(n))
	}
	if e := q.Encode(); e != "" {
		return p.path + "?" + e
	}
	return p.path
}

// slice returns the page's rows of a list held whole.
func slice[T any](p pager, all []T) []T {
	return all[min(p.Skip(), len(all)):min(p.Skip()+p.Per, len(all))]
}

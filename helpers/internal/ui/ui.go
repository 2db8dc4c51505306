// Package ui is cairn ui: the team's memory in a browser, served by the
// binary itself on a loopback address. Pages are rendered on the server
// (html/template, no script at all), from the same packages the commands
// read: recall's search and explanation, show's history and verdicts, the
// injection record of cairn log, the knowledge change of cairn diff, the
// wikis and the personal pipeline's files.
//
// It is read-only: every request is a GET (or HEAD) that carries the
// server's session cookie. The printed URL holds the server's random
// token; a request with it is answered with the cookie and a redirect to
// the same address without the token, so the token stays out of the
// address bar, the history and every cookie. The cookie's name and value
// are random per server, never the token (a browser sends a host's
// cookies to every port of it). Every answer forbids script, remote loads and framing
// (see [CSP]); every text from the log, the wikis and the transcripts is
// escaped by the templates, and Markdown goes through package markdown.
package ui

import (
	"crypto/rand"
	"crypto/subtle"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/cairn-dev/cairn/helpers/internal/project"
	"github.com/cairn-dev/cairn/helpers/internal/review"
)

// CSP is every answer's Content-Security-Policy: no script, no plugin,
// no frame, nothing loaded from elsewhere; styles and images from the
// server (images also inline, as data: URLs); forms submit to the server.
const CSP = "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"

// Options are what a Server serves.
type Options struct {
	Project *project.Project
	Getenv  func(string) string // the environment (the user's config, the personal wiki)
	// Token is the secret every request carries; "" draws a random one.
	Token string
	// Remote is set when the server listens beyond loopback: requests
	// may then name any host (else only a loopback one, against DNS
	// rebinding).
	Remote bool
}

// Server serves cairn ui.
type Server struct {
	opt     Options
	token   string // in the printed URL only, exchanged for the cookie
	cookie  string // the cookie's name: random per server, so two servers on one host keep theirs
	session string // the cookie's value: random per server, never the token
	pages   map[string]*template.Template
	mux     *http.ServeMux
	// diff is the knowledge change of a range ("" is the working tree
	// against HEAD): cairn diff's, through memo (a test's own in tests).
	diff func(rev string) (review.DiffReport, error)
	// memo remembers the last diff: paging through a diff computes it once.
	memo *review.DiffMemo
	// warmed is closed when Run has computed the diff page's first diff.
	warmed chan struct{}
	counts counts // how many entries searches select
}

// random is n random bytes in hex.
func random(n int) (string, error) {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// New makes a server; it reads nothing of the project until a page asks.
func New(opt Options) (*Server, error) {
	if opt.Project == nil {
		return nil, errors.New("ui: no project")
	}
	if opt.Getenv == nil {
		opt.Getenv = func(string) string { return "" }
	}
	tok := opt.Token
	if tok == "" {
		var err error
		if tok, err = random(24); err != nil {
			return nil, err
		}
	}
	name, err := random(8)
	if err != nil {
		return nil, err
	}
	session, err := random(32)
	if err != nil {
		return nil, err
	}
	s := &Server{opt: opt, token: tok, cookie: "cairn_ui_" + name, session: session, mux: http.NewServeMux(),
		memo: &review.DiffMemo{}, warmed: make(chan struct{})}
	s.diff = func(rev string) (review.DiffReport, error) { return s.memo.Diff(opt.Project, rev) }
	if err := s.parseTemplates(); err != nil {
		return nil, err
	}
	s.routes()
	return s, nil
}

// Token is the server's secret.
func (s *Server) Token() string { return s.token }

// URL is the address a person opens: base (http://host:port) with the
// token.
func (s *Server) URL(base string) string {
	return strings.TrimSuffix(base, "/") + "/?token=" + url.QueryEscape(s.token)
}

func (s *Server) parseTemplates() error {
	names, err := fs.Glob(templateFS, "templates/*.html")
	if err != nil {
		return err
	}
	s.pages = map[string]*template.Template{}
	for _, n := range names {
		base := strings.TrimSuffix(strings.TrimPrefix(n, "templates/"), ".html")
		if base == "layout" {
			continue
		}
		t, err := template.New("layout.html").Funcs(funcs).ParseFS(templateFS, "templates/layout.html", n)
		if err != nil {
			return fmt.Errorf("ui: template %s: %w", n, err)
		}
		s.pages[base] = t
	}
	return nil
}

func (s *Server) routes() {
	static, _ := fs.Sub(staticFS, "static")
	s.mux.Handle("GET /static/", http.StripPrefix("/static/", http.FileServerFS(static)))
	s.mux.HandleFunc("GET /{$}", s.knowledgePage)
	s.mux.HandleFunc("GET /entry", s.entryPage)
	s.mux.HandleFunc("GET /timeline", s.timelinePage)
	s.mux.HandleFunc("GET /log", s.logPage)
	s.mux.HandleFunc("GET /report", s.reportPage)
	s.mux.HandleFunc("GET /diff", s.diffPage)
	s.mux.HandleFunc("GET /wiki/{which}/", s.wikiIndexPage)
	s.mux.HandleFunc("GET /wiki/{which}/page/{path...}", s.wikiPage)
	s.mux.HandleFunc("GET /wiki/{which}/lint", s.wikiLintPage)
	s.mux.HandleFunc("GET /wiki/{which}/graph", s.wikiGraphPage)
	s.mux.HandleFunc("GET /personal", s.personalPage)
	s.mux.HandleFunc("GET /personal/export", s.exportPage)
}

// ServeHTTP sets the security headers, then serves r if it is a read
// that names a host the server answers for and carries the session
// cookie; one that carries the printed URL's token gets the cookie.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", CSP)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cache-Control", "no-store")
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
	h.Set("Cross-Origin-Resource-Policy", "same-origin")
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		h.Set("Allow", "GET, HEAD")
		http.Error(w, "cairn ui is read-only", http.StatusMethodNotAllowed)
		return
	}
	if !s.opt.Remote && !LoopbackHost(r.Host) {
		http.Error(w, "cairn ui answers on a loopback address only", http.StatusForbidden)
		return
	}
	if r.URL.Query().Has("token") {
		s.exchange(w, r)
		return
	}
	if !s.authorized(r) {
		http.Error(w, "cairn ui needs the URL it printed (with its token), opened once in this browser", http.StatusForbidden)
		return
	}
	s.mux.ServeHTTP(w, r)
}

// exchange answers a request that carries the printed URL's token: with
// the right one, the session cookie and a redirect to the same address
// without the token; with any other, a refusal.
func (s *Server) exchange(w http.ResponseWriter, r *http.Request) {
	if subtle.ConstantTimeCompare([]byte(r.URL.Query().Get("token")), []byte(s.token)) != 1 {
		http.Error(w, "cairn ui needs the token of the URL it printed", http.StatusForbidden)
		return
	}
	// Lax, not Strict: the redirect of a page opened from elsewhere (the
	// file --open hands the browser) must carry the cookie; every page is
	// a read, so a link from another site changes nothing.
	http.SetCookie(w, &http.Cookie{Name: s.cookie, Value: s.session, Path: "/", HttpOnly: true, SameSite: http.SameSiteLaxMode})
	q := r.URL.Query()
	q.Del("token")
	to := url.URL{Path: r.URL.Path, RawPath: r.URL.RawPath, RawQuery: q.Encode()}
	if to.Path == "" || !strings.HasPrefix(to.Path, "/") || strings.HasPrefix(to.Path, "//") {
		to.Path = "/"
	}
	http.Redirect(w, r, to.RequestURI(), http.StatusSeeOther)
}

// authorized reports whether r carries the session cookie.
func (s *Server) authorized(r *http.Request) bool {
	c, err := r.Cookie(s.cookie)
	return err == nil && subtle.ConstantTimeCompare([]byte(c.Value), []byte(s.session)) == 1
}

// LoopbackHost reports whether a Host header (host or host:port) names
// this machine: localhost, or a loopback IP.
func LoopbackHost(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.Trim(host, "[]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// ErrAddr is the error of an address cairn ui cannot listen on.
var ErrAddr = errors.New("want HOST:PORT with HOST an IP address or localhost")

// CheckAddr reads a listening address: ok when it is loopback. A host
// that is neither an IP address nor localhost is refused (a name could
// resolve anywhere), and so is a missing port.
func CheckAddr(addr string) (loopback bool, err error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil || port == "" {
		return false, fmt.Errorf("%q: %w", addr, ErrAddr)
	}
	if strings.EqualFold(host, "localhost") {
		return true, nil
	}
	if host == "" {
		return false, nil // every interface
	}
	ip := net.ParseIP(host)
	if ip == nil {
		return false, fmt.Errorf("%q: %w", addr, ErrAddr)
	}
	return ip.IsLoopback(), nil
}

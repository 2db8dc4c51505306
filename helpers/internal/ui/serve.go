package ui

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"html"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"time"

	"github.com/cairn-dev/cairn/helpers/internal/fsx"
)

// Listen is where and how a server listens, and where it says so.
type Listen struct {
	// Addr is the address to listen on, HOST:PORT; with Own, on Linux,
	// a loopback address of the server's own instead (see listen).
	Addr string
	Own  bool
	// Loopback is set when Addr is a loopback address: a server beyond
	// it warns on Stderr.
	Loopback bool
	// Open opens the page in the desktop's browser.
	Open           bool
	Stdout, Stderr io.Writer
}

// ErrListen is in the chain of the error of an address the server could
// not listen on.
var ErrListen = errors.New("cannot listen")

// listenError is the network's error, as it said it, and [ErrListen].
type listenError struct{ err error }

func (e listenError) Error() string   { return e.err.Error() }
func (e listenError) Unwrap() []error { return []error{e.err, ErrListen} }

// Run serves s as o says until ctx is done: it prints the URL to open
// (holding the token) on Stdout, and on Stderr that it serves and, when
// it ends, that it stopped. Meanwhile it computes the diff page's first
// diff (the working tree against HEAD) in the background, for the page
// to find it done: at 100k entries that diff costs half a second, a page
// of it remembered a twentieth. A page asked before then waits for it.
func (s *Server) Run(ctx context.Context, o Listen) error {
	ln, err := listen(o.Addr, o.Own)
	if err != nil {
		return listenError{err}
	}
	defer ln.Close()
	go func() {
		defer close(s.warmed)
		_, _ = s.diff("") // its error is the page's to show
	}()
	defer func() { <-s.warmed }() // no git left running in the project
	if !o.Loopback {
		host, _, _ := net.SplitHostPort(o.Addr) // as given: Go may listen on 0.0.0.0 as [::]
		where := net.JoinHostPort(host, strconv.Itoa(ln.Addr().(*net.TCPAddr).Port))
		fmt.Fprintf(o.Stderr, "cairn: warning: listening on %s, beyond this machine: whoever can reach it and has the URL reads the team's memory\n", where)
	}
	link := s.URL("http://" + browsable(ln.Addr().(*net.TCPAddr)))
	fmt.Fprintln(o.Stdout, link)
	fmt.Fprintln(o.Stderr, "cairn: serving the team's memory read-only; Ctrl-C stops")
	if o.Open {
		page, cleanup, err := openPage(link)
		if err == nil {
			defer cleanup()
			err = openBrowser(page)
		}
		if err != nil {
			fmt.Fprintf(o.Stderr, "cairn: could not open a browser (%v); open the URL above\n", err)
		}
	}
	hs := &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	select {
	case err := <-done:
		if !errors.Is(err, http.ErrServerClosed) {
			return err
		}
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = hs.Shutdown(sctx)
	fmt.Fprintln(o.Stderr, "cairn: ui stopped")
	return nil
}

// browsable is a listening address as a browser on this machine reaches
// it: an unspecified host (every interface) is reached as localhost.
func browsable(a *net.TCPAddr) string {
	if a.IP == nil || a.IP.IsUnspecified() {
		return net.JoinHostPort("localhost", fmt.Sprint(a.Port))
	}
	return a.String()
}

// listen listens on addr; with own (no --addr given) on Linux, on a
// random loopback address of its own (127.x.y.z): a browser sends a
// host's cookies to every port of it, so another local user's server on
// 127.0.0.1 gets none of this one's. Where that address can't be had, it
// listens on addr.
func listen(addr string, own bool) (net.Listener, error) {
	if own && runtime.GOOS == "linux" {
		var b [3]byte
		if _, err := rand.Read(b[:]); err == nil {
			ip := net.IPv4(127, b[0]|1, b[1], b[2]|1) // never 127.0.x.x, never a .0
			if ln, err := net.Listen("tcp", net.JoinHostPort(ip.String(), "0")); err == nil {
				return ln, nil
			}
		}
	}
	return net.Listen("tcp", addr)
}

// openPage writes a page that sends a browser on to link (the URL with
// the token), readable by this user alone: 0600 in a fresh 0700
// directory. Opening its path puts no secret on a command line, where
// another user could read it (/proc/PID/cmdline). cleanup removes it.
func openPage(link string) (page string, cleanup func(), err error) {
	dir, err := os.MkdirTemp("", "cairn-ui-")
	if err != nil {
		return "", nil, err
	}
	cleanup = func() { _ = os.RemoveAll(dir) }
	esc := html.EscapeString(link)
	body := "<!doctype html>\n<meta charset=\"utf-8\">\n<meta http-equiv=\"refresh\" content=\"0;url=" + esc + "\">\n" +
		"<title>cairn ui</title>\n<p><a href=\"" + esc + "\">Open cairn ui</a></p>\n"
	page = filepath.Join(dir, "open.html")
	if err := fsx.WritePrivate(page, []byte(body)); err != nil {
		cleanup()
		return "", nil, err
	}
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(page)}).String(), cleanup, nil
}

// openBrowser opens link with the desktop's opener, without waiting for
// the browser.
func openBrowser(link string) error {
	name := "xdg-open"
	if runtime.GOOS == "darwin" {
		name = "open"
	}
	cmd := exec.Command(name, link)
	if err := cmd.Start(); err != nil {
		return err
	}
	go func() { _ = cmd.Wait() }()
	return nil
}

package cli

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"html"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"syscall"
	"time"

	"github.com/cairn-dev/cairn/helpers/internal/fsx"
	"github.com/cairn-dev/cairn/helpers/internal/ui"
	ucli "github.com/urfave/cli/v2"
)

func uiCommand(env Env) *ucli.Command {
	return &ucli.Command{
		Name:  "ui",
		Usage: "browse the team's memory in a web browser (read-only, on this machine)",
		Description: "Serves a local web page from the binary: the knowledge with recall's search,\n" +
			"filters and explanations; each entry's history, anchors and verdicts; a timeline\n" +
			"of entries per week; what agents were shown (cairn log); the knowledge diff of a\n" +
			"revision range (cairn diff); the team and personal wikis; and, with the session\n" +
			"pipeline on, your handoffs, decisions, failures and session exports.\n\n" +
			"It prints a URL holding a random token and runs until Ctrl-C. Opening the URL\n" +
			"gives the browser a cookie of this server's own (never the token) and takes the\n" +
			"token out of the address. --open hands the browser a file only you can read, so\n" +
			"no command line holds the token. It listens on a loopback address of its own\n" +
			"(127.x.y.z on Linux, so other local servers get none of its cookies; 127.0.0.1\n" +
			"elsewhere) unless --addr names another address, and then warns beyond loopback:\n" +
			"anyone who can reach that address and has the URL reads the memory.\n" +
			"The pages run no script and load nothing from elsewhere.",
		Flags: []ucli.Flag{
			&ucli.StringFlag{Name: "addr", Value: "127.0.0.1:0", Usage: "the address to listen on, HOST:PORT (port 0: any free port; default: a loopback address of its own)"},
			&ucli.BoolFlag{Name: "open", Usage: "open the page in the default browser"},
		},
		Action: func(c *ucli.Context) error {
			if c.NArg() > 0 {
				return usagef("ui takes no argument")
			}
			addr := c.String("addr")
			loopback, err := ui.CheckAddr(addr)
			if err != nil {
				return usagef("--addr: %v", err)
			}
			p, err := findProject(c, env)
			if err != nil {
				return err
			}
			srv, err := ui.New(ui.Options{
				Project: p,
				Getenv:  env.Getenv,
				Remote:  !loopback,
			})
			if err != nil {
				return err
			}
			ln, err := listen(addr, !c.IsSet("addr"))
			if err != nil {
				return hinted(err, "choose another --addr (port 0 picks a free one)")
			}
			defer ln.Close()
			// Caught before the URL is out: whoever reads it may stop the
			// server at once.
			ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
			defer stop()
			if !loopback {
				host, _, _ := net.SplitHostPort(addr) // as given: Go may listen on 0.0.0.0 as [::]
				where := net.JoinHostPort(host, strconv.Itoa(ln.Addr().(*net.TCPAddr).Port))
				fmt.Fprintf(env.Stderr, "cairn: warning: listening on %s, beyond this machine: whoever can reach it and has the URL reads the team's memory\n", where)
			}
			link := srv.URL("http://" + browsable(ln.Addr().(*net.TCPAddr)))
			fmt.Fprintln(env.Stdout, link)
			fmt.Fprintln(env.Stderr, "cairn: serving the team's memory read-only; Ctrl-C stops")
			if c.Bool("open") {
				page, cleanup, err := openPage(link)
				if err == nil {
					defer cleanup()
					err = openBrowser(page)
				}
				if err != nil {
					fmt.Fprintf(env.Stderr, "cairn: could not open a browser (%v); open the URL above\n", err)
				}
			}
			hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second}
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
			fmt.Fprintln(env.Stderr, "cairn: ui stopped")
			return nil
		},
	}
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

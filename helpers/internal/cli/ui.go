package cli

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os/exec"
	"os/signal"
	"runtime"
	"strconv"
	"syscall"
	"time"

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
			"It prints a URL holding a random token, which every request must carry, and runs\n" +
			"until Ctrl-C. It listens on 127.0.0.1 unless --addr names another address, and\n" +
			"then warns: anyone who can reach that address and has the URL reads the memory.\n" +
			"The pages run no script and load nothing from elsewhere.",
		Flags: []ucli.Flag{
			&ucli.StringFlag{Name: "addr", Value: "127.0.0.1:0", Usage: "the address to listen on, HOST:PORT (port 0: any free port)"},
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
				Diff: func(rev string) (ui.Diff, error) {
					r, err := knowledgeDiff(p, rev)
					return ui.Diff{From: r.From, To: r.To, Changes: r.Changes}, err
				},
			})
			if err != nil {
				return err
			}
			ln, err := net.Listen("tcp", addr)
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
				if err := openBrowser(link); err != nil {
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

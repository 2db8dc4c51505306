//go:build unix

package front

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
	"github.com/cairn-dev/cairn/helpers/internal/recall"
	"github.com/cairn-dev/cairn/helpers/internal/testharness/cairntest"
	"github.com/cairn-dev/cairn/helpers/internal/testharness/clitest"
)

// Issue 27: cairn ui in a real browser. The test starts the real binary's
// ui on a project with a seeded log (one line of it hostile, as a push
// could write it), a team wiki and a session log, loads every view in
// headless Chromium, and reads the DOM the browser built: the entries are
// listed, a search narrows them, a wikilink leads to its page, and the
// hostile line's script and event handler never ran. Screenshots go to
// the test's directory; CAIRN_UI_SCREENSHOT=PATH also writes the main
// view's there (docs/ui.png: see docs/ui.md).

// pwnScript is what the hostile texts try to run: each would leave a
// mark in the DOM the test reads.
const pwnScript = `<script>document.title="pwned";document.body.setAttribute("data-pwned","script")</script>` +
	`<img src=x onerror="document.body.setAttribute('data-pwned','onerror')">` +
	`</textarea></title></style><a href="javascript:document.body.setAttribute('data-pwned','link')">click</a>`

// chromium finds the browser: Debian's chromium, or another Chromium or
// Chrome on PATH; none skips the test (fails it under CI=true).
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	clitest.Unavailable(t, "Chromium not found on PATH (apt-get install chromium); cairn ui's browser test needs it")
	return ""
}

// browser runs headless Chromium with args, then url, and returns its
// standard output.
func browser(t *testing.T, bin string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	all := append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions",
		"--disable-background-networking", "--disable-sync", "--hide-scrollbars", "--user-data-dir=" + t.TempDir()}, args...)
	cmd := exec.CommandContext(ctx, bin, all...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium %s: %v\n%s", strings.Join(args, " "), err, errb.String())
	}
	return out.String()
}

// dom loads url and returns the DOM Chromium built, after the page's
// scripts (if any had been let run) ran.
func dom(t *testing.T, bin, url string) string {
	t.Helper()
	return browser(t, bin, "--virtual-time-budget=3000", "--dump-dom", url)
}

// screenshot saves url as a PNG of width x height at path.
func screenshot(t *testing.T, bin, url, path string, width, height int) {
	t.Helper()
	browser(t, bin, fmt.Sprintf("--window-size=%d,%d", width, height), "--screenshot="+path, url)
	if st, err := os.Stat(path); err != nil || st.Size() == 0 {
		t.Fatalf("no screenshot of %s at %s: %v", url, path, err)
	}
}

// uiServer is a running cairn ui.
type uiServer struct {
	base, token string
}

// at is the URL of path (with its query, if any) with the token.
func (s uiServer) at(path string) string {
	sep := "?"
	if strings.Contains(path, "?") {
		sep = "&"
	}
	return s.base + path + sep + "token=" + s.token
}

// startUI starts `cairn ui` in repo (with args) and reads the URL it
// prints; the server is stopped with SIGINT when the test ends, and must
// stop cleanly.
func startUI(t *testing.T, repo string, args ...string) uiServer {
	t.Helper()
	s, _ := startUICmd(t, repo, nil, args...)
	return s
}

// startUICmd is startUI with the process's environment (nil: the test's)
// and the process itself.
func startUICmd(t *testing.T, repo string, env []string, args ...string) (uiServer, *exec.Cmd) {
	t.Helper()
	cmd := exec.Command(cairntest.Binary(t), append([]string{"--dir", repo, "ui"}, args...)...)
	cmd.Env = env
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		if err := cmd.Wait(); err != nil {
			t.Errorf("cairn ui after SIGINT: %v\n%s", err, stderr.String())
		}
		if !strings.Contains(stderr.String(), "ui stopped") {
			t.Errorf("cairn ui did not stop cleanly:\n%s", stderr.String())
		}
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("cairn ui printed no URL: %v\n%s", err, stderr.String())
	}
	u, err := url.Parse(strings.TrimSpace(line))
	if err != nil || u.Query().Get("token") == "" || u.Scheme != "http" || net.ParseIP(u.Hostname()) == nil || !net.ParseIP(u.Hostname()).IsLoopback() {
		t.Fatalf("cairn ui printed %q", line)
	}
	return uiServer{base: "http://" + u.Host, token: u.Query().Get("token")}, cmd
}

// seedUIProject is a git project with a committed log of entries, one
// more added since (the diff), a hostile line written past cairn add, a
// team wiki and an injection record.
func seedUIProject(t *testing.T) string {
	t.Helper()
	repo := clitest.NewGitRepo(t, "ui")
	for _, e := range [][2]string{
		{"learned", "the cache rebuilds itself when SQLite reports corruption"},
		{"decision", "gopher channels carry the queue's work between the hook and the worker"},
		{"fact", "the team wiki lives in .cairn/wiki and is committed with the code"},
		{"pattern", "wrap errors tersely and map them to exit codes in one place"},
		{"must-check", "run the package graph test after changing imports"},
	} {
		cairntest.In(t, repo, "add", e[0], e[1])
	}
	store := knowledge.Open(repo)
	hostile := knowledge.Entry{Key: "fact-hostile-line-0001", Type: "fact", Author: "Eve" + pwnScript,
		Content: "a hostile line " + pwnScript + " \x1b[31mred\x1b]0;title\a", TS: time.Now().Unix() - 3600}
	line, err := knowledge.Marshal(&hostile)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(store.LogPath(), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(append(line, '\n')); err != nil {
		t.Fatal(err)
	}
	f.Close()
	front := func(title string) string {
		return "---\ntitle: " + title + "\nsources: []\ncreated: 2026-05-01\nupdated: 2026-05-02\n---\n"
	}
	for name, body := range map[string]string{
		"concepts/cache.md":   front("The cache") + "# The cache\n\nIt rebuilds itself; see [[queue]] for who fills it.\n\n" + pwnScript + "\n\n[js](javascript:document.body.setAttribute('data-pwned','md'))\n",
		"concepts/queue.md":   front("The queue") + "# The queue\n\nGopher channels carry the work. Back to [[cache]].\n",
		"index.md":            "# Index\n\n| Article | Summary |\n|---|---|\n| [[concepts/cache]] | how the cache heals |\n| [[concepts/queue]] | who carries the work |\n",
		"concepts/unused.txt": "not an article",
	} {
		p := filepath.Join(store.Dir, "wiki", filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cairntest.Git(t, repo, "add", ".cairn")
	cairntest.Git(t, repo, "commit", "-q", "-m", "team knowledge")
	cairntest.In(t, repo, "add", "investigation", "the flaky test waits on a goroutine that never starts")
	if err := recall.AddInjection(store, recall.Injection{
		Time: time.Now().UnixNano(), Agent: "claude", Session: "session-ui-1", Branch: "main", Moment: "session-start",
		Budget: 4000, Used: 900, Entries: []recall.Shown{{Key: hostile.Key, Reason: "branch"}},
		Text: "the text injected " + pwnScript,
	}); err != nil {
		t.Fatal(err)
	}
	return repo
}

var (
	// handlerRE finds an element (text escapes its "<") with an event
	// handler, or a link to javascript:.
	handlerRE = regexp.MustCompile(`<[a-zA-Z][^<>]*(\son[a-z]+\s*=|href="\s*javascript:)`)
	pwnedRE   = regexp.MustCompile(`<body[^>]*data-pwned`)
	entryRE   = regexp.MustCompile(`<li class="entry">`)
	titleRE   = regexp.MustCompile(`<title>([^<]*)</title>`)
)

// notPwned fails if a hostile script ran in the page, or its element
// made it into the DOM.
func notPwned(t *testing.T, view, d string) {
	t.Helper()
	if pwnedRE.MatchString(d) || strings.Contains(d, "pwned</title>") {
		t.Errorf("%s: a hostile script ran:\n%s", view, d)
	}
	for _, bad := range []string{"<script", "<img", "<iframe"} {
		if strings.Contains(d, bad) {
			t.Errorf("%s: %q in the DOM", view, bad)
		}
	}
	if m := handlerRE.FindString(d); m != "" {
		t.Errorf("%s: an event handler or script link in the DOM: %s", view, m)
	}
	if m := titleRE.FindStringSubmatch(d); m == nil || !strings.HasSuffix(m[1], "· cairn") {
		t.Errorf("%s: title %v", view, m)
	}
}

func TestUIInBrowser(t *testing.T) {
	clitest.SkipIfShort(t, "Chromium")
	bin := chromium(t)
	// The control: without cairn's escaping and policy, this browser
	// runs such a script, so its not running below means something.
	if d := dom(t, bin, "data:text/html,"+url.PathEscape(`<title>t</title><body>`+pwnScript)); !pwnedRE.MatchString(d) {
		t.Fatalf("the control page's script did not run in Chromium; the test could not see one run:\n%s", d)
	}
	repo := seedUIProject(t)
	srv := startUI(t, repo)
	shots := t.TempDir()

	// The main view: every active entry, newest first, the hostile one as text.
	main := dom(t, bin, srv.at("/"))
	notPwned(t, "knowledge", main)
	if n := len(entryRE.FindAllString(main, -1)); n != 7 {
		t.Errorf("the main view lists %d entries, want 7:\n%s", n, main)
	}
	for _, want := range []string{"the cache rebuilds itself", "a hostile line &lt;script&gt;", `\x1b[31mred`} {
		if !strings.Contains(main, want) {
			t.Errorf("the main view lacks %q", want)
		}
	}
	screenshot(t, bin, srv.at("/"), filepath.Join(shots, "knowledge.png"), 1200, 720)
	if out := os.Getenv("CAIRN_UI_SCREENSHOT"); out != "" {
		if !filepath.IsAbs(out) {
			out = filepath.Join(cairntest.RepoRoot(t), out)
		}
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			t.Fatal(err)
		}
		screenshot(t, bin, srv.at("/"), out, 1100, 640)
		t.Logf("wrote %s", out)
	}

	// A search narrows the list, with recall's ranking and reasons.
	found := dom(t, bin, srv.at("/?q=cache+corruption&explain=1"))
	notPwned(t, "search", found)
	if n := len(entryRE.FindAllString(found, -1)); n < 1 || n >= 7 || !strings.Contains(found, "the cache rebuilds itself") || !strings.Contains(found, "why #1") {
		t.Errorf("the search lists %d entries:\n%s", n, found)
	}
	filtered := dom(t, bin, srv.at("/?type=must-check"))
	if n := len(entryRE.FindAllString(filtered, -1)); n != 1 || !strings.Contains(filtered, "package graph") {
		t.Errorf("the type filter lists %d entries:\n%s", n, filtered)
	}

	// A wikilink leads to its article, which links back.
	cache := dom(t, bin, srv.at("/wiki/team/page/concepts/cache"))
	notPwned(t, "wiki page", cache)
	m := regexp.MustCompile(`<a href="([^"]+)" class="wikilink">queue</a>`).FindStringSubmatch(cache)
	if m == nil {
		t.Fatalf("no wikilink to the queue in the cache's article:\n%s", cache)
	}
	queue := dom(t, bin, srv.at(m[1]))
	notPwned(t, "linked wiki page", queue)
	if !strings.Contains(queue, "Gopher channels carry the work") || !strings.Contains(queue, `id="backlinks"`) {
		t.Errorf("the wikilink %s led to:\n%s", m[1], queue)
	}
	screenshot(t, bin, srv.at("/wiki/team/page/concepts/cache"), filepath.Join(shots, "wiki.png"), 1200, 720)

	// The other views, each with what it is for.
	for _, v := range []struct {
		name, path string
		want       []string
	}{
		{"entry", "/entry?key=fact-hostile-line-0001", []string{"History", "a hostile line &lt;script&gt;", "working set"}},
		{"timeline", "/timeline", []string{"<svg", "<rect", "Entries added per week"}},
		{"log", "/log", []string{"session-ui-1", "fact-hostile-line-0001", "the text injected &lt;script&gt;"}},
		{"diff", "/diff", []string{"Added", "the flaky test waits"}},
		{"wiki index", "/wiki/team/", []string{"how the cache heals", "concepts/queue"}},
		{"wiki lint", "/wiki/team/lint", []string{"findings"}},
		{"wiki graph", "/wiki/team/graph", []string{"2 articles, 2 links between them", "<circle"}},
		{"personal", "/personal", []string{"session pipeline is off"}},
	} {
		d := dom(t, bin, srv.at(v.path))
		notPwned(t, v.name, d)
		if strings.Contains(d, `id="error"`) {
			t.Errorf("%s shows an error:\n%s", v.name, d)
		}
		for _, w := range v.want {
			if !strings.Contains(d, w) {
				t.Errorf("%s lacks %q:\n%s", v.name, w, d)
			}
		}
		screenshot(t, bin, srv.at(v.path), filepath.Join(shots, strings.ReplaceAll(v.name, " ", "-")+".png"), 1200, 720)
	}

	// Without the token, the browser gets nothing.
	if d := dom(t, bin, srv.base+"/"); strings.Contains(d, "the cache rebuilds") || !strings.Contains(d, "token") {
		t.Errorf("a URL without the token showed:\n%s", d)
	}
}

// An --addr beyond loopback is served because it was given, with a
// warning, and the URL printed still opens on this machine.
func TestUIBeyondLoopbackWarns(t *testing.T) {
	repo := clitest.NewGitRepo(t, "ui")
	cairntest.In(t, repo, "add", "learned", "the cache rebuilds itself when SQLite reports corruption")
	cmd := exec.Command(cairntest.Binary(t), "--dir", repo, "ui", "--addr", "0.0.0.0:0")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	_ = cmd.Process.Signal(os.Interrupt)
	if werr := cmd.Wait(); werr != nil {
		t.Errorf("cairn ui after SIGINT: %v\n%s", werr, stderr.String())
	}
	if err != nil || !regexp.MustCompile(`^http://localhost:[0-9]+/\?token=[0-9a-f]{48}\n$`).MatchString(line) {
		t.Errorf("cairn ui --addr 0.0.0.0:0 printed %q (%v)", line, err)
	}
	if !strings.Contains(stderr.String(), "cairn: warning: listening on 0.0.0.0:") || !strings.Contains(stderr.String(), "beyond this machine") {
		t.Errorf("no warning on stderr:\n%s", stderr.String())
	}
}

// The viewer's token stays with its user. A second local user runs a
// server on loopback and reads every cookie the browser sends it, and
// every process's command line: neither the cookies nor the arguments
// hold the token, and nothing they hold loads a page.
func TestUITokenStaysWithItsUser(t *testing.T) {
	clitest.SkipIfShort(t, "Chromium")
	bin := chromium(t)
	repo := seedUIProject(t)

	// The other user's server: its page makes the browser open the viewer
	// (as the person would), then call back, with whatever cookies the
	// browser holds for 127.0.0.1.
	var mu sync.Mutex
	var seen []string
	var target string
	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Header.Get("Cookie"))
		to := target
		mu.Unlock()
		if r.URL.Path == "/collect" {
			io.WriteString(w, "collected")
			return
		}
		fmt.Fprintf(w, `<!doctype html><title>t</title><body><script>
fetch(%q, {credentials: "include", mode: "no-cors"}).catch(() => 0).then(() => fetch("/collect")).then(r => r.text()).then(t => document.body.setAttribute("data-done", t))
</script>`, to)
	}))
	defer evil.Close()

	for _, tc := range []struct {
		name string
		args []string
	}{
		{"its own loopback address", nil},
		{"on 127.0.0.1 beside the other server", []string{"--addr", "127.0.0.1:0"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := startUI(t, repo, tc.args...)
			mu.Lock()
			target, seen = srv.at("/"), nil
			mu.Unlock()
			if d := dom(t, bin, evil.URL+"/"); !strings.Contains(d, `data-done="collected"`) {
				t.Fatalf("the other server's page did not finish:\n%s", d)
			}
			mu.Lock()
			cookies := strings.Join(seen, "; ")
			mu.Unlock()
			if strings.Contains(cookies, srv.token) {
				t.Errorf("the other server received the token: %s", cookies)
			}
			if len(tc.args) == 0 && strings.Contains(cookies, "cairn_ui_") {
				t.Errorf("the other server received the viewer's cookie: %s", cookies)
			}
			// Whatever it received opens no page of the viewer.
			for _, c := range strings.Split(cookies, "; ") {
				if c == "" {
					continue
				}
				req, _ := http.NewRequest("GET", srv.base+"/", nil)
				req.Header.Set("Cookie", c)
				if len(tc.args) == 0 {
					resp, err := http.DefaultClient.Do(req)
					if err != nil {
						t.Fatal(err)
					}
					resp.Body.Close()
					if resp.StatusCode != http.StatusForbidden {
						t.Errorf("the cookie %q the other server received opened the viewer: %d", c, resp.StatusCode)
					}
				}
			}
		})
	}

	// --open: the opener (a stand-in for xdg-open that records its
	// arguments and hands them to Chromium) gets no secret on its command
	// line, and the browser still reaches the viewer.
	dir := t.TempDir()
	fifo := filepath.Join(dir, "dom")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	opener := "#!/bin/sh\nprintf '%s\\n' \"$0\" \"$@\" > " + filepath.Join(dir, "args") + "\n" +
		"cat /proc/$PPID/cmdline | tr '\\0' ' ' > " + filepath.Join(dir, "parent") + "\n" +
		"exec " + bin + " --headless --no-sandbox --disable-gpu --no-first-run --disable-extensions --user-data-dir=" + filepath.Join(dir, "profile") +
		" --virtual-time-budget=3000 --dump-dom \"$1\" > " + fifo + " 2>" + filepath.Join(dir, "chromium.err") + "\n"
	bindir := filepath.Join(dir, "bin")
	if err := os.MkdirAll(bindir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bindir, "xdg-open"), []byte(opener), 0o755); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "PATH="+bindir+string(os.PathListSeparator)+os.Getenv("PATH"))
	srv, cmd := startUICmd(t, repo, env, "--open")
	page, err := os.ReadFile(fifo) // until Chromium is done
	if err != nil {
		t.Fatal(err)
	}
	args, _ := os.ReadFile(filepath.Join(dir, "args"))
	if len(bytes.TrimSpace(page)) == 0 {
		// Chromium ended before it dumped anything (seen once, on a
		// machine loaded by -race): open the page it was given once
		// more, as a person would.
		stderr, _ := os.ReadFile(filepath.Join(dir, "chromium.err"))
		t.Logf("Chromium dumped nothing; opening the page again. Its stderr:\n%s", stderr)
		if given := strings.Split(strings.TrimSpace(string(args)), "\n"); len(given) == 2 {
			page, _ = exec.Command(bin, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions",
				"--user-data-dir="+filepath.Join(dir, "profile-again"), "--virtual-time-budget=3000", "--dump-dom", given[1]).Output()
		}
	}
	if !strings.Contains(string(page), "the cache rebuilds itself") {
		stderr, _ := os.ReadFile(filepath.Join(dir, "chromium.err"))
		t.Errorf("the browser --open started did not reach the viewer:\n%s\nChromium's stderr:\n%s", page, stderr)
	}
	parent, _ := os.ReadFile(filepath.Join(dir, "parent"))
	self, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", cmd.Process.Pid))
	for what, text := range map[string]string{"the opener's arguments": string(args), "cairn ui's command line": string(parent) + string(self)} {
		if strings.Contains(text, srv.token) {
			t.Errorf("%s hold the token: %s", what, text)
		}
	}
	lines := strings.Split(strings.TrimSpace(string(args)), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[1], "file://") {
		t.Fatalf("the opener was given %q", lines)
	}
	file := strings.TrimPrefix(lines[1], "file://")
	st, err := os.Stat(file)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("the page --open hands over: %v, %v", st, err)
	}
	if dst, err := os.Stat(filepath.Dir(file)); err != nil || dst.Mode().Perm() != 0o700 {
		t.Errorf("its directory: %v, %v", dst, err)
	}
}

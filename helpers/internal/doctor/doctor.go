// Package doctor checks what is installed, wired and in sync in a project,
// and says for each problem how to fix it.
package doctor

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/helpers/internal/agent"
	"github.com/cairn-dev/cairn/helpers/internal/agent/launcher"
	"github.com/cairn-dev/cairn/helpers/internal/audit"
	"github.com/cairn-dev/cairn/helpers/internal/fsx"
	"github.com/cairn-dev/cairn/helpers/internal/gitx"
	"github.com/cairn-dev/cairn/helpers/internal/index"
	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
	"github.com/cairn-dev/cairn/helpers/internal/pipeline/queue"
	"github.com/cairn-dev/cairn/helpers/internal/project"
	"github.com/cairn-dev/cairn/helpers/internal/userconf"
)

// Statuses of a check.
const (
	OK   = "ok"
	Warn = "warn"
	Fail = "fail"
)

// Check is one line of doctor's report.
type Check struct {
	Name   string `json:"name"`
	Status string `json:"status"` // ok, warn, fail
	Detail string `json:"detail"`
	Fix    string `json:"fix,omitempty"`
}

// Failed counts the checks that failed.
func Failed(checks []Check) int {
	n := 0
	for _, c := range checks {
		if c.Status == Fail {
			n++
		}
	}
	return n
}

// Run checks project p; adapters are the agents whose wiring counts, and
// getenv reads the user's environment (HOME, the XDG directories).
func Run(p *project.Project, adapters []agent.Adapter, getenv func(string) string) []Check {
	home := getenv("HOME")
	var out []Check
	add := func(name, status, detail, fix string) {
		out = append(out, Check{name, status, detail, fix})
	}
	if p.IsGit {
		add("repository", OK, p.Root, "")
	} else {
		add("repository", Warn, p.Root+" is not a git repository: knowledge is not shared", "git init, then commit .cairn")
	}
	unsafe, err := p.Store.Root().FindUnsafe(100)
	if err != nil {
		add("files", Warn, "could not check .cairn/ for links: "+err.Error(), "")
	}
	for _, u := range unsafe {
		add("files", Fail, u.Path+" is "+u.What+": cairn refuses to follow or use it (it may have been committed to turn cairn against you)",
			"rm "+fsx.ShellQuote(u.Path)+" (git rm "+fsx.ShellQuote(u.Path)+" if it is committed), then cairn doctor")
	}
	if !p.Store.Exists() {
		if len(unsafe) == 0 {
			add("provisioned", Fail, ".cairn/ is missing", "run cairn add ... or ./install.sh "+p.Root)
		}
		return out
	}
	add("provisioned", OK, ".cairn/ exists", "")
	checkBinary(add)
	checkWiring(p, adapters, home, add)
	checkHeartbeat(p, add)
	checkMergeAttr(p, add)
	checkInstallHint(p, add)
	checkPipeline(getenv, add)
	u, _ := userconf.Load(getenv) // an unreadable config: checkPipeline reports it
	checkGuards(p, u.Config.Asks(), add)
	ign, _ := p.Store.ReadFile(".gitignore", knowledge.MaxConfigBytes)
	if strings.Contains(string(ign), "cache/") && strings.Contains(string(ign), "local/") {
		add("ignore", OK, ".cairn/.gitignore keeps cache/ and local/ out of git", "")
	} else {
		add("ignore", Warn, ".cairn/.gitignore does not ignore cache/ and local/", "printf 'cache/\\nlocal/\\n' >> .cairn/.gitignore")
	}
	for _, name := range []string{knowledge.LogName, knowledge.ArchiveName} {
		checkLog(p, name, add)
	}
	checkCache(p, add)
	return out
}

type addFunc func(name, status, detail, fix string)

// checkLog reports whether every line of the log (or the archive) reads.
func checkLog(p *project.Project, name string, add addFunc) {
	data, err := p.Store.ReadFile(name, knowledge.MaxLogBytes)
	if errors.Is(err, fsx.ErrUnsafe) {
		return // reported with the files
	}
	if err != nil {
		add(name, Fail, err.Error(), "make it readable: chmod u+rw "+filepath.Join(knowledge.DirName, name))
		return
	}
	if data == nil && name == knowledge.ArchiveName {
		return
	}
	rep := knowledge.Parse(data, func(knowledge.Record) {})
	if rep.Clean() {
		add(name, OK, fmt.Sprintf("%d entries, every line readable", rep.Entries), "")
		return
	}
	var parts []string
	for k, n := range rep.ByKind {
		parts = append(parts, fmt.Sprintf("%d %s", n, k))
	}
	status := Warn
	detail := fmt.Sprintf("%d entries; %d lines skipped, %d repaired on reading (%s)", rep.Entries, rep.Skipped, rep.Repaired, strings.Join(parts, ", "))
	var lines []string
	for _, pr := range rep.Problems {
		if !pr.Repaired() && len(lines) < 5 {
			lines = append(lines, fmt.Sprintf("line %d %s", pr.Line, pr.Kind))
		}
	}
	fix := "nothing is lost: these lines are skipped when reading"
	if markers := knowledge.ConflictLines(data); markers != nil {
		// An unfinished merge: the markers stay in the shared log, for
		// every teammate, until someone resolves them.
		status = Fail
		fix = fmt.Sprintf("cairn resolve (conflict markers from a merge on %s %s), then git commit", PluralWord(len(markers), "line"), LineList(markers))
	} else if len(lines) > 0 {
		fix = "inspect " + strings.Join(lines, "; ")
	}
	add(name, status, detail, fix)
}

// checkCache reports the cache and the working set.
func checkCache(p *project.Project, add addFunc) {
	ix, res, err := index.OpenSynced(p.Store)
	if errors.Is(err, fsx.ErrUnsafe) {
		return // named above, with its fix
	}
	if err != nil {
		add("cache", Fail, err.Error(), "rm -rf .cairn/cache && cairn sync --full")
		return
	}
	defer ix.Close()
	st, err := ix.Stats(true)
	if err != nil {
		add("cache", Fail, err.Error(), "rm -rf .cairn/cache && cairn sync --full")
		return
	}
	state := "was current"
	if !res.Current {
		state = "caught up now"
	}
	add("cache", OK, fmt.Sprintf("%d entries indexed, %s", st.Total, state), "")
	sum, err := audit.ReadSummary(p.Store)
	switch {
	case err != nil:
		add("working set", Warn, "no sanitize run yet", "cairn sanitize (hooks run it in the background)")
	case ix.SanitizeNeeded():
		add("working set", Warn, fmt.Sprintf("%d of %d entries, from an older version of the log", sum.Active, sum.Entries), "cairn sanitize (the next session or prompt runs it too)")
	default:
		add("working set", OK, fmt.Sprintf("%d of %d entries (%d flagged); why the others left: .cairn/cache/audit.jsonl",
			sum.Active, sum.Entries, sum.Review+sum.Outdated), "")
	}
}

// checkBinary reports whether the agent's `cairn add` works: cairn on PATH.
func checkBinary(add addFunc) {
	self, _ := os.Executable()
	if path, err := exec.LookPath("cairn"); err == nil {
		add("binary", OK, fmt.Sprintf("cairn %s, on PATH at %s", cairn.Version, path), "")
		return
	}
	add("binary", Warn, fmt.Sprintf("cairn %s at %s is not on PATH: an agent's `cairn add` fails (hooks still find it)", cairn.Version, self),
		"add its directory to PATH, e.g. export PATH=\"$PATH:"+filepath.Dir(self)+"\"")
}

// checkWiring reports each agent's wiring of the project, then the
// launcher they share, then every hook of the agents' committed files that
// is not cairn's: each on its own, so that one problem never hides
// another.
func checkWiring(p *project.Project, adapters []agent.Adapter, home string, add addFunc) {
	for _, a := range adapters {
		w := a.CheckWiring(p.Root, p.Store.Root(), home)
		add("wiring", w.Status, w.Detail, w.Fix)
	}
	checkLauncher(p, adapters, add)
	for _, a := range adapters {
		l, ok := a.(agent.HookLister)
		if !ok {
			continue
		}
		file, foreign, err := l.ForeignHooks(p.Root)
		if err != nil || len(foreign) == 0 {
			continue // an unreadable file is the wiring check's to report
		}
		add("other hooks", Warn, fmt.Sprintf("%s also runs %d %s that cairn did not write (a pull may have added them; git log -p %s says who): %s",
			file, len(foreign), PluralWord(len(foreign), "hook"), file, strings.Join(foreign, "; ")),
			"review them; remove any you did not add")
	}
}

// checkLauncher reports a .cairn/hook that is not what this cairn writes:
// every wired agent runs it at every event, so a changed one (by a pull,
// say) is a failure, with the init that writes it again.
func checkLauncher(p *project.Project, adapters []agent.Adapter, add addFunc) {
	var inits, agents []string
	for _, a := range adapters {
		if a.Uses(p.Root) {
			inits, agents = append(inits, "--"+a.Name()), append(agents, a.Title())
		}
	}
	state, _ := launcher.Check(p.Store.Root())
	if state != launcher.Differs {
		return // missing, not executable, unreadable: each wiring check says it
	}
	if len(inits) == 0 {
		add("launcher", Warn, launcher.Path+" differs from what this cairn writes, and no agent's wiring runs it", "rm "+launcher.Path)
		return
	}
	add("launcher", Fail, launcher.Path+" differs from what this cairn writes, and every "+strings.Join(agents, ", ")+
		" hook runs it (a pull may have changed it; git log -p "+launcher.Path+" says who)",
		"cairn init "+strings.Join(inits, " ")+" (rewrites it), then commit "+launcher.Path)
}

// checkInstallHint fails on a committed install hint that
// [knowledge.CheckInstallHint] refuses (one that downloads and runs code,
// or a placeholder): cairn shows a teammate the route that always works
// instead, and the fix is the init that records a real one.
func checkInstallHint(p *project.Project, add addFunc) {
	cfg, err := p.Store.LoadConfig()
	if err != nil || cfg.InstallHint == "" {
		return // an unreadable config is the log checks' and the hooks' to report
	}
	if err := knowledge.CheckInstallHint(cfg.InstallHint); err != nil {
		add("install hint", Fail, fmt.Sprintf("%s/%s: %v (install_hint %q); cairn shows teammates the route that always works instead",
			knowledge.DirName, knowledge.ConfigName, err, knowledge.CleanInstallHint(cfg.InstallHint)),
			"cairn init --install-hint "+fsx.ShellQuote(knowledge.HintExample)+" (with your team's clone URL), then commit "+knowledge.DirName+"/"+knowledge.ConfigName)
		return
	}
	add("install hint", OK, "teammates without cairn are told: "+knowledge.CleanInstallHint(cfg.InstallHint), "")
}

// checkHeartbeat reports the last hook that ran in the project on this
// machine: proof that the wiring works end to end.
func checkHeartbeat(p *project.Project, add addFunc) {
	hb, when, ok := p.LastBeat()
	switch {
	case hb.Time == "" && !ok:
		add("hooks", Warn, "no hook has run in this project on this machine yet",
			"start a Claude Code session here; if this stays, wire it: cairn init --claude (or install the plugin)")
	case !ok:
		add("hooks", Warn, "the last hook's record is unreadable", "start a Claude Code session here")
	default:
		add("hooks", OK, fmt.Sprintf("last ran: %s, %s ago", hb.Event, time.Since(when).Round(time.Second)), "")
	}
}

// checkPipeline reports the user's session pipeline: on or off, and where.
func checkPipeline(getenv func(string) string, add addFunc) {
	on, config, knowledge, err := userconf.State(getenv)
	switch {
	case err != nil: // the pipeline stays off until the config is fixed
		add("pipeline", Fail, err.Error(), "fix or remove "+config)
	case on:
		add("pipeline", OK, "on ("+config+"); sessions are exported to "+knowledge, "")
		checkQueue(getenv, add)
	default:
		add("pipeline", OK, "off (the default; it spends model calls): cairn pipeline on turns it on", "")
	}
}

// checkQueue reports the pipeline's queue and whether its model command
// can run.
func checkQueue(getenv func(string) string, add addFunc) {
	d, err := userconf.UserDirs(getenv)
	if err != nil {
		return
	}
	c, err := userconf.LoadConfig(d)
	if err != nil {
		return
	}
	n, err := queue.Open(d).Count()
	switch {
	case err != nil:
		add("queue", Warn, err.Error(), "")
	case n > 0:
		add("queue", OK, fmt.Sprintf("%d sessions queued (the worker's account: %s)", n, queue.LogPath(d)), "")
	default:
		add("queue", OK, "empty (the worker's account: "+queue.LogPath(d)+")", "")
	}
	argv := c.Command()
	if _, err := exec.LookPath(argv[0]); err != nil {
		add("model", Warn, argv[0]+" is not on PATH: sessions are exported but not distilled",
			"install Claude Code, or set model_command in "+filepath.Join(d.Config, "config.json"))
		return
	}
	add("model", OK, strings.Join(argv[:min(len(argv), 4)], " ")+" (timeout "+c.Timeout().String()+")", "")
}

// checkMergeAttr reports the merge driver git itself resolves for the log
// (git check-attr), which is what a local merge will use: .cairn's own
// .gitattributes can be overridden by another one, or by git's config.
func checkMergeAttr(p *project.Project, add addFunc) {
	fix := "echo '" + strings.TrimSpace(knowledge.GitAttributes) + "' >> .cairn/.gitattributes"
	if !p.IsGit {
		attrs, _ := p.Store.ReadFile(".gitattributes", knowledge.MaxConfigBytes)
		if strings.Contains(string(attrs), "merge=union") {
			add("merge", OK, ".cairn/.gitattributes has merge=union", "")
		} else {
			add("merge", Warn, ".cairn/.gitattributes lacks merge=union: local merges of the log may conflict", fix)
		}
		return
	}
	v, err := gitx.CheckAttr(p.Root, "merge", knowledge.DirName+"/"+knowledge.LogName)
	switch {
	case err != nil:
		add("merge", Warn, "could not ask git how it merges the log: "+err.Error(), "")
	case v == "union":
		add("merge", OK, "git merges .cairn/knowledge.jsonl with merge=union (git check-attr)", "")
	default:
		add("merge", Warn, "git merges .cairn/knowledge.jsonl with merge="+v+" (git check-attr), not union: local merges of the log may conflict", fix)
	}
}

// ConflictHints says, for the log and the archive, where a merge left
// conflict markers and that cairn resolve repairs them, one line each. It
// reads the files only when problems (a cache's count of what the reader
// skipped) counted conflict markers.
func ConflictHints(s *knowledge.Store, problems map[string]int) []string {
	if problems[knowledge.ProblemConflictMarker] == 0 {
		return nil
	}
	var out []string
	for _, name := range []string{knowledge.LogName, knowledge.ArchiveName} {
		data, err := s.ReadFile(name, knowledge.MaxLogBytes)
		if err != nil {
			continue
		}
		if lines := knowledge.ConflictLines(data); lines != nil {
			out = append(out, fmt.Sprintf("%s/%s has conflict markers from a merge (%s %s): run cairn resolve",
				knowledge.DirName, name, PluralWord(len(lines), "line"), LineList(lines)))
		}
	}
	return out
}

// LineList names line numbers for a message: "12, 40", or the first few
// and how many in all.
func LineList(lines []int) string {
	const max = 8
	var parts []string
	for i, n := range lines {
		if i == max {
			parts = append(parts, fmt.Sprintf("... %d in all", len(lines)))
			break
		}
		parts = append(parts, strconv.Itoa(n))
	}
	return strings.Join(parts, ", ")
}

// PluralWord is "line" or "lines".
func PluralWord(n int, noun string) string {
	if n == 1 {
		return noun
	}
	return noun + "s"
}

// Write writes checks for people: one line each, with its fix under it.
func Write(w io.Writer, checks []Check) {
	for _, ch := range checks {
		fmt.Fprintf(w, "%-4s %-14s %s\n", ch.Status, ch.Name, ch.Detail)
		if ch.Fix != "" {
			fmt.Fprintf(w, "     %-14s fix: %s\n", "", ch.Fix)
		}
	}
}

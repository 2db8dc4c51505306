package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/helpers/internal/audit"
	"github.com/cairn-dev/cairn/helpers/internal/fsx"
	"github.com/cairn-dev/cairn/helpers/internal/gitx"
	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
	"github.com/cairn-dev/cairn/helpers/internal/settings"
	ucli "github.com/urfave/cli/v2"
)

// check is one line of doctor's report.
type check struct {
	Name   string `json:"name"`
	Status string `json:"status"` // ok, warn, fail
	Detail string `json:"detail"`
	Fix    string `json:"fix,omitempty"`
}

func doctorCommand(env Env) *ucli.Command {
	return &ucli.Command{
		Name:  "doctor",
		Usage: "check what is installed, wired and in sync, and say what to fix",
		Flags: []ucli.Flag{
			&ucli.BoolFlag{Name: "json", Usage: "print the checks as JSON"},
		},
		Action: func(c *ucli.Context) error {
			p, err := findProject(c, env)
			if err != nil {
				return err
			}
			checks := runChecks(p)
			failed := 0
			for _, ch := range checks {
				if ch.Status == "fail" {
					failed++
				}
			}
			if c.Bool("json") {
				if err := writeJSON(env.Stdout, map[string]any{"version": Version, "root": clean(p.root), "checks": checks, "ok": failed == 0}); err != nil {
					return err
				}
			} else {
				fmt.Fprintf(env.Stdout, "cairn %s in %s\n", Version, p.root)
				for _, ch := range checks {
					fmt.Fprintf(env.Stdout, "%-4s %-14s %s\n", ch.Status, ch.Name, ch.Detail)
					if ch.Fix != "" {
						fmt.Fprintf(env.Stdout, "     %-14s fix: %s\n", "", ch.Fix)
					}
				}
			}
			if failed > 0 {
				return fmt.Errorf("doctor found %d problem(s) to fix", failed)
			}
			return nil
		},
	}
}

func runChecks(p *project) []check {
	var out []check
	add := func(name, status, detail, fix string) {
		out = append(out, check{name, status, clean(detail), clean(fix)})
	}
	if p.isGit {
		add("repository", "ok", p.root, "")
	} else {
		add("repository", "warn", p.root+" is not a git repository: knowledge is not shared", "git init, then commit .cairn")
	}
	unsafe, err := p.store.Root().FindUnsafe(100)
	if err != nil {
		add("files", "warn", "could not check .cairn/ for links: "+err.Error(), "")
	}
	for _, u := range unsafe {
		add("files", "fail", u.Path+" is "+u.What+": cairn refuses to follow or use it (it may have been committed to turn cairn against you)",
			"rm "+fsx.ShellQuote(u.Path)+" (git rm "+fsx.ShellQuote(u.Path)+" if it is committed), then cairn doctor")
	}
	if !p.store.Exists() {
		if len(unsafe) == 0 {
			add("provisioned", "fail", ".cairn/ is missing", "run cairn add ... or ./install.sh "+p.root)
		}
		return out
	}
	add("provisioned", "ok", ".cairn/ exists", "")
	checkBinary(add)
	checkWiring(p, add)
	checkHeartbeat(p, add)
	checkMergeAttr(p, add)
	ign, _ := p.store.ReadFile(".gitignore", knowledge.MaxConfigBytes)
	if strings.Contains(string(ign), "cache/") && strings.Contains(string(ign), "local/") {
		add("ignore", "ok", ".cairn/.gitignore keeps cache/ and local/ out of git", "")
	} else {
		add("ignore", "warn", ".cairn/.gitignore does not ignore cache/ and local/", "printf 'cache/\\nlocal/\\n' >> .cairn/.gitignore")
	}
	for _, name := range []string{knowledge.LogName, knowledge.ArchiveName} {
		data, err := p.store.ReadFile(name, knowledge.MaxLogBytes)
		if errors.Is(err, fsx.ErrUnsafe) {
			continue // reported above
		}
		if err != nil {
			add(name, "fail", err.Error(), "make it readable: chmod u+rw "+filepath.Join(knowledge.DirName, name))
			continue
		}
		if data == nil && name == knowledge.ArchiveName {
			continue
		}
		rep := knowledge.Parse(data, func(knowledge.Record) {})
		if rep.Clean() {
			add(name, "ok", fmt.Sprintf("%d entries, every line readable", rep.Entries), "")
			continue
		}
		var parts []string
		for k, n := range rep.ByKind {
			parts = append(parts, fmt.Sprintf("%d %s", n, k))
		}
		status := "warn"
		detail := fmt.Sprintf("%d entries; %d lines skipped, %d repaired on reading (%s)", rep.Entries, rep.Skipped, rep.Repaired, strings.Join(parts, ", "))
		var lines []string
		for _, pr := range rep.Problems {
			if !pr.Repaired() && len(lines) < 5 {
				lines = append(lines, fmt.Sprintf("line %d %s", pr.Line, pr.Kind))
			}
		}
		fix := "nothing is lost: these lines are skipped when reading"
		if markers := knowledge.ConflictLines(data); markers != nil {
			// An unfinished merge: the markers stay in the shared log,
			// for every teammate, until someone resolves them.
			status = "fail"
			fix = fmt.Sprintf("cairn resolve (conflict markers from a merge on %s %s), then git commit", pluralWord(len(markers), "line"), lineList(markers))
		} else if len(lines) > 0 {
			fix = "inspect " + strings.Join(lines, "; ")
		}
		add(name, status, detail, fix)
	}
	ix, res, err := p.openIndex()
	if errors.Is(err, fsx.ErrUnsafe) {
		return out // named above, with its fix
	}
	if err != nil {
		add("cache", "fail", err.Error(), "rm -rf .cairn/cache && cairn sync --full")
		return out
	}
	defer ix.Close()
	st, err := ix.Stats(true)
	if err != nil {
		add("cache", "fail", err.Error(), "rm -rf .cairn/cache && cairn sync --full")
		return out
	}
	state := "was current"
	if !res.Current {
		state = "caught up now"
	}
	add("cache", "ok", fmt.Sprintf("%d entries indexed, %s", st.Total, state), "")
	sum, err := readSummary(p.store)
	switch {
	case err != nil:
		add("working set", "warn", "no sanitize run yet", "cairn sanitize (hooks run it in the background)")
	case ix.SanitizeNeeded():
		add("working set", "warn", fmt.Sprintf("%d of %d entries, from an older version of the log", sum.Active, sum.Entries), "cairn sanitize (the next session or prompt runs it too)")
	default:
		add("working set", "ok", fmt.Sprintf("%d of %d entries (%d flagged); why the others left: .cairn/cache/audit.jsonl",
			sum.Active, sum.Entries, sum.Review+sum.Outdated), "")
	}
	return out
}

// readSummary reads the summary line of the store's sanitize audit.
func readSummary(s *knowledge.Store) (audit.Summary, error) {
	data, err := s.ReadFile(audit.File, knowledge.MaxLogBytes)
	if err != nil || data == nil {
		return audit.Summary{}, fmt.Errorf("no audit: %v", err)
	}
	path := audit.File
	data = bytes.TrimSpace(data)
	last := data[bytes.LastIndexByte(data, '\n')+1:]
	var a audit.Action
	if err := json.Unmarshal(last, &a); err != nil || a.Summary == nil {
		return audit.Summary{}, fmt.Errorf("%s has no summary", path)
	}
	return *a.Summary, nil
}

// checkBinary reports whether the agent's `cairn add` works: cairn on PATH.
func checkBinary(add func(name, status, detail, fix string)) {
	self, _ := os.Executable()
	if path, err := exec.LookPath("cairn"); err == nil {
		add("binary", "ok", fmt.Sprintf("cairn %s, on PATH at %s", Version, path), "")
		return
	}
	add("binary", "warn", fmt.Sprintf("cairn %s at %s is not on PATH: an agent's `cairn add` fails (hooks still find it)", Version, self),
		"add its directory to PATH, e.g. export PATH=\"$PATH:"+filepath.Dir(self)+"\"")
}

// checkWiring reports the project's Claude Code wiring (cairn init
// --claude): the launcher, and the hooks in .claude/settings.json that
// run it.
func checkWiring(p *project, add func(name, status, detail, fix string)) {
	launcher, lerr := p.store.ReadFile(knowledge.LauncherName, knowledge.MaxConfigBytes)
	data, serr := fsx.NewRoot(filepath.Join(p.root, ".claude")).ReadFile("settings.json", knowledge.MaxConfigBytes)
	missing, perr := settings.Wired(data)
	wired := serr == nil && perr == nil && len(missing) < len(settings.Hooks)
	if launcher == nil && !wired {
		if personalPlugin() {
			add("wiring", "ok", "your personal cairn plugin is enabled (user scope); teammates without it get nothing: cairn init --claude wires the project for everyone", "")
			return
		}
		add("wiring", "warn", "the project has no Claude Code wiring, and no personal cairn plugin is enabled: no hook runs cairn here",
			"cairn init --claude, then commit .cairn and .claude (or ./install.sh --plugin from a cairn checkout, for yourself)")
		return
	}
	switch {
	case lerr != nil:
		add("wiring", "fail", lerr.Error(), "cairn init --claude")
	case launcher == nil:
		add("wiring", "fail", ".claude/settings.json runs .cairn/hook, which is missing", "cairn init --claude, then commit .cairn/hook")
	case string(launcher) != settings.Launcher:
		add("wiring", "warn", ".cairn/hook differs from this cairn's launcher", "cairn init --claude (rewrites it), then commit it")
	case !isExecutable(p.store, knowledge.LauncherName):
		add("wiring", "fail", ".cairn/hook is not executable: every hook fails", "chmod +x .cairn/hook && git add --chmod=+x .cairn/hook")
	case serr != nil || perr != nil || len(missing) > 0:
		detail := ".claude/settings.json does not run .cairn/hook"
		if len(missing) > 0 && wired {
			detail += " for " + strings.Join(missing, ", ")
		}
		add("wiring", "fail", detail, "cairn init --claude, then commit .claude/settings.json")
	default:
		add("wiring", "ok", ".claude/settings.json runs .cairn/hook for every event", "")
	}
}

// isExecutable reports whether the file name under .cairn has an execute
// bit for its owner.
func isExecutable(s *knowledge.Store, name string) bool {
	f, err := s.Root().OpenFile(name, os.O_RDONLY, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	fi, err := f.Stat()
	return err == nil && fi.Mode().Perm()&0o100 != 0
}

// checkHeartbeat reports the last hook that ran in the project on this
// machine: proof that the wiring works end to end.
func checkHeartbeat(p *project, add func(name, status, detail, fix string)) {
	data, err := p.store.ReadFile(heartbeatFile, knowledge.MaxConfigBytes)
	var hb struct {
		Event string `json:"event"`
		Time  string `json:"time"`
	}
	if err != nil || data == nil || json.Unmarshal(data, &hb) != nil {
		add("hooks", "warn", "no hook has run in this project on this machine yet",
			"start a Claude Code session here; if this stays, wire it: cairn init --claude (or install the plugin)")
		return
	}
	when, err := time.Parse(time.RFC3339, hb.Time)
	if err != nil {
		add("hooks", "warn", "the last hook's record is unreadable", "start a Claude Code session here")
		return
	}
	add("hooks", "ok", fmt.Sprintf("last ran: %s, %s ago", clean(hb.Event), time.Since(when).Round(time.Second)), "")
}

// checkMergeAttr reports the merge driver git itself resolves for the log
// (git check-attr), which is what a local merge will use: .cairn's own
// .gitattributes can be overridden by another one, or by git's config.
func checkMergeAttr(p *project, add func(name, status, detail, fix string)) {
	fix := "echo '" + strings.TrimSpace(knowledge.GitAttributes) + "' >> .cairn/.gitattributes"
	if !p.isGit {
		attrs, _ := p.store.ReadFile(".gitattributes", knowledge.MaxConfigBytes)
		if strings.Contains(string(attrs), "merge=union") {
			add("merge", "ok", ".cairn/.gitattributes has merge=union", "")
		} else {
			add("merge", "warn", ".cairn/.gitattributes lacks merge=union: local merges of the log may conflict", fix)
		}
		return
	}
	v, err := gitx.CheckAttr(p.root, "merge", knowledge.DirName+"/"+knowledge.LogName)
	switch {
	case err != nil:
		add("merge", "warn", "could not ask git how it merges the log: "+err.Error(), "")
	case v == "union":
		add("merge", "ok", "git merges .cairn/knowledge.jsonl with merge=union (git check-attr)", "")
	default:
		add("merge", "warn", "git merges .cairn/knowledge.jsonl with merge="+v+" (git check-attr), not union: local merges of the log may conflict", fix)
	}
}

// personalPlugin reports whether the user's own Claude Code settings
// enable cairn's plugin (the marketplace route, user scope).
func personalPlugin() bool {
	home, err := os.UserHomeDir()
	if err != nil {
		return false
	}
	data, err := fsx.NewRoot(filepath.Join(home, ".claude")).ReadFile("settings.json", knowledge.MaxConfigBytes)
	if err != nil {
		return false
	}
	var s struct {
		EnabledPlugins map[string]bool `json:"enabledPlugins"`
	}
	if json.Unmarshal(data, &s) != nil {
		return false
	}
	for name, on := range s.EnabledPlugins {
		if on && strings.HasPrefix(name, "cairn@") {
			return true
		}
	}
	return false
}

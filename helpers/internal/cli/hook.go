package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/helpers/internal/capture"
	"github.com/cairn-dev/cairn/helpers/internal/fsx"
	"github.com/cairn-dev/cairn/helpers/internal/gitx"
	"github.com/cairn-dev/cairn/helpers/internal/hook"
	"github.com/cairn-dev/cairn/helpers/internal/index"
	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
	"github.com/cairn-dev/cairn/helpers/internal/recall"
	"github.com/cairn-dev/cairn/helpers/internal/relevance"
	"github.com/cairn-dev/cairn/helpers/internal/settings"
	"github.com/cairn-dev/cairn/helpers/internal/untrusted"
	ucli "github.com/urfave/cli/v2"
)

// hookCommand is listed for --help; Main dispatches `cairn hook` itself so
// that nothing of the CLI framework can print usage on stdout or exit
// non-zero from a hook.
func hookCommand() *ucli.Command {
	return &ucli.Command{
		Name:      "hook",
		Usage:     "Claude Code hook entry point: reads the event JSON on stdin (used by the plugin)",
		ArgsUsage: "EVENT",
		Description: "EVENT is Claude Code's event name: SessionStart, UserPromptSubmit, PostToolUse,\n" +
			"PostToolUseFailure, Stop, SubagentStop, PreCompact, SessionEnd. A hook always exits 0\n" +
			"and prints nothing but its protocol JSON; errors go to .cairn/cache/cairn.log.",
	}
}

// hookRun is one hook invocation.
type hookRun struct {
	env   Env
	event string
	root  string // the project, once known
	isGit bool
	store *knowledge.Store

	cfg    knowledge.Config // .cairn/config.json, read once (see config)
	cfgErr error
	cfgOK  bool
}

// config reads the project's .cairn/config.json once per hook: several
// steps of one event ask it (the version gate, recall, the status line).
func (h *hookRun) config() (knowledge.Config, error) {
	if !h.cfgOK {
		h.cfg, h.cfgErr = h.store.LoadConfig()
		h.cfgOK = true
	}
	return h.cfg, h.cfgErr
}

// runHook runs a hook and always returns 0: it never blocks the agent and
// never breaks the session. Whatever goes wrong, panics included, becomes
// one line in .cairn/cache/cairn.log, and stdout stays empty unless the
// event produced its protocol output.
func runHook(args []string, env Env) (code int) {
	h := &hookRun{env: env}
	if len(args) > 2 {
		h.event = args[2]
	}
	defer func() {
		if r := recover(); r != nil {
			h.locate("")
			h.logf("panic: %v", r)
		}
		code = exitOK
	}()
	out, err := h.run()
	if err != nil {
		h.locate("") // a no-op once the payload's cwd located the project
		h.logf("%v", err)
		return exitOK
	}
	h.heartbeat()
	if len(out) > 0 {
		env.Stdout.Write(out)
	}
	return exitOK
}

func (h *hookRun) run() ([]byte, error) {
	if !hook.Known(h.event) {
		return nil, fmt.Errorf("unknown hook event %q", h.event)
	}
	data, err := hook.ReadAll(h.env.Stdin)
	if err != nil {
		return nil, err
	}
	switch h.event {
	case hook.PostToolUse, hook.PostToolUseFailure, hook.Stop:
		// The reject path: a payload without a typed prefix anywhere has
		// nothing to capture. No decode, no git, no SQLite; a payload that
		// is not a valid JSON object is reported.
		if !capture.MightContain(string(data)) {
			if b := bytes.TrimSpace(data); b[0] != '{' || !json.Valid(b) {
				return nil, fmt.Errorf("hook payload is not a JSON object")
			}
			return nil, nil
		}
	}
	p, err := hook.Decode(data)
	if err != nil {
		return nil, err
	}
	if out, old := h.tooOld(p); old {
		return out, nil
	}
	switch h.event {
	case hook.PostToolUse, hook.PostToolUseFailure:
		if p.ToolName != "Bash" {
			return nil, nil
		}
		return h.capture(p, capture.FromCommand(p.ToolInput.Command), "agent")
	case hook.Stop:
		return h.capture(p, capture.FromReply(p.LastAssistantMessage), "agent")
	case hook.SubagentStop:
		items := capture.FromReply(p.LastAssistantMessage)
		if len(items) == 0 {
			return h.nudge(p)
		}
		return h.capture(p, items, "subagent")
	case hook.SessionStart:
		return h.sessionStart(p)
	case hook.UserPromptSubmit:
		return h.promptRecall(p)
	}
	return nil, nil
}

// locate finds the project: CLAUDE_PROJECT_DIR, else the payload's cwd,
// else the working directory; then its git root, or the nearest .cairn.
func (h *hookRun) locate(cwd string) {
	if h.root != "" {
		return
	}
	dir := h.env.Getenv("CLAUDE_PROJECT_DIR")
	if dir == "" {
		dir = cwd
	}
	if dir == "" {
		dir = h.env.Dir
	}
	h.root = dir
	if root, err := gitx.FindRoot(dir); err == nil {
		h.root, h.isGit = root, true
	} else if d, ok := knowledge.FindUp(dir); ok {
		h.root = d
	}
	h.store = knowledge.Open(h.root)
}

// logf appends one line to .cairn/cache/cairn.log. Without a .cairn
// directory (a project that does not use cairn) it writes nothing there —
// creating .cairn just to log would litter every repository — and the line
// goes to stderr, which Claude Code keeps in its debug log.
func (h *hookRun) logf(format string, args ...any) {
	msg := h.event + " " + fmt.Sprintf(format, args...)
	if h.store != nil && appendLog(h.store, msg) {
		return
	}
	fmt.Fprint(h.env.Stderr, "cairn: "+logLine(msg))
}

func logLine(msg string) string {
	return time.Now().UTC().Format(time.RFC3339) + " " + strings.ReplaceAll(msg, "\n", " ") + "\n"
}

// heartbeatFile records, on this machine, the last hook that ran in the
// project and when: doctor's proof that the wiring works.
const heartbeatFile = knowledge.LocalDir + "/heartbeat.json"

// heartbeat notes that this hook ran, when the project has a .cairn (the
// reject path never gets here: it has nothing to note and no time).
func (h *hookRun) heartbeat() {
	if h.store == nil || !h.store.Exists() {
		return
	}
	b, _ := json.Marshal(map[string]any{"event": h.event, "time": time.Now().UTC().Format(time.RFC3339)})
	if err := h.store.Root().ReplaceFile(heartbeatFile, b, 0o644); err != nil {
		h.logf("heartbeat: %v", err)
	}
}

// logFile is cairn's own log, under .cairn.
const logFile = knowledge.CacheDir + "/cairn.log"

// openLog opens .cairn/cache/cairn.log for appending (never through a
// link: a committed cairn.log pointing at ~/.gitconfig is refused).
func openLog(s *knowledge.Store) (*os.File, error) {
	return s.Root().OpenFile(logFile, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
}

// appendLog appends one time-stamped line to .cairn/cache/cairn.log and
// reports whether it could; it writes nothing without a .cairn directory.
func appendLog(s *knowledge.Store, msg string) bool {
	if !s.Exists() {
		return false
	}
	f, err := openLog(s)
	if err != nil {
		return false
	}
	_, werr := f.WriteString(logLine(msg))
	cerr := f.Close()
	return werr == nil && cerr == nil
}

// capture adds the items to the log with provenance. It provisions .cairn
// if needed: an agent that wrote typed knowledge meant it to be kept.
func (h *hookRun) capture(p hook.Payload, items []capture.Item, source string) ([]byte, error) {
	if len(items) == 0 {
		return nil, nil
	}
	h.locate(p.Cwd)
	if err := h.store.Check(); err != nil {
		return nil, fmt.Errorf("capture: %w", err)
	}
	if !h.isGit && !h.store.Exists() {
		// Never provision outside a git work tree: a payload's cwd may be
		// anywhere (even /etc), and nothing there asked for cairn.
		h.logf("not captured: %s is not in a git work tree and has no %s", h.root, knowledge.DirName)
		return nil, nil
	}
	if len(items) > capture.MaxPerEvent {
		h.logf("captured the first %d of %d typed lines; the other %d were dropped (at most %d per event)",
			capture.MaxPerEvent, len(items), len(items)-capture.MaxPerEvent, capture.MaxPerEvent)
		items = items[:capture.MaxPerEvent]
	}
	entries := capture.Entries(items, p.SessionID, source)
	now := time.Now()
	for i := range entries {
		capture.Provenance(h.root, h.isGit, &entries[i], now)
	}
	res, err := h.store.Insert(entries)
	if err != nil {
		return nil, fmt.Errorf("capture: %w", err)
	}
	var keys []string
	for _, e := range res.Added {
		keys = append(keys, e.Key)
		if len(e.Redacted) > 0 {
			h.logf("redacted %s from %s", strings.Join(e.Redacted, ","), e.Key)
		}
	}
	if len(keys) == 0 {
		return nil, nil
	}
	h.logf("captured %d: %s", len(keys), strings.Join(keys, " "))
	if cfg, err := h.config(); err != nil || !cfg.ShowStatus() {
		return nil, nil
	}
	return hook.EncodeStatus(captureStatus(res.Added))
}

// sessionStatus is the person's line at session start.
func sessionStatus(ix *index.Index, shown int) string {
	total, err := ix.Count()
	if err != nil {
		return ""
	}
	if total == 0 {
		return "cairn: team memory is empty; typed lines (LEARNED: ...) in replies are recorded"
	}
	return fmt.Sprintf("cairn: recalled %d of %d team entries", shown, total)
}

// captureStatus is the person's line when a capture lands: "cairn:
// recorded 1 decision", "cairn: recorded 3 entries (2 learned, 1 fact)".
func captureStatus(added []knowledge.Entry) string {
	if len(added) == 1 {
		return "cairn: recorded 1 " + added[0].Type
	}
	count := map[string]int{}
	var order []string
	for _, e := range added {
		if count[e.Type] == 0 {
			order = append(order, e.Type)
		}
		count[e.Type]++
	}
	parts := make([]string, len(order))
	for i, t := range order {
		parts[i] = fmt.Sprintf("%d %s", count[t], t)
	}
	return fmt.Sprintf("cairn: recorded %d entries (%s)", len(added), strings.Join(parts, ", "))
}

// sessionStart syncs the cache and injects the knowledge that matters for
// the work at hand.
func (h *hookRun) sessionStart(p hook.Payload) ([]byte, error) {
	h.locate(p.Cwd)
	if err := h.store.Check(); err != nil {
		return nil, err
	}
	if !h.store.Exists() {
		h.logf("no %s in %s: nothing to recall (install.sh or cairn add provisions it)", knowledge.DirName, h.root)
		return nil, nil
	}
	cfg, err := h.config()
	if err != nil {
		h.logf("%v (using defaults)", err)
	}
	ix, err := openSynced(h.store)
	if err != nil {
		return nil, err
	}
	defer ix.Close()
	h.sanitizeIfNeeded(ix)
	ctx := h.sessionContext()
	query := recall.Query(ctx)
	must, err := ix.Search(index.Query{Type: "must-check", NewestFirst: true, Limit: 50})
	if err != nil {
		return nil, err
	}
	var relevant []knowledge.Entry
	if query != "" {
		const limit = 40 // more than a 6,000-character block can show
		hits, err := ix.Search(index.Query{Text: query, Limit: limit, Floor: true})
		if err != nil {
			return nil, err
		}
		for _, hit := range hits {
			if hit.Entry.Type != "must-check" {
				relevant = append(relevant, hit.Entry)
			}
		}
	}
	block := recall.Block{
		Relevant: relevant,
		Query:    strings.Join(relevance.Terms(query), " "),
		Budget:   cfg.Recall.Budget,
		HowTo:    true,
		Heading:  heading(ctx),
		Command:  agentCommand(),
	}
	for _, hit := range must {
		block.MustCheck = append(block.MustCheck, hit.Entry)
	}
	text, shown := recall.RenderShown(block)
	if err := recall.PruneShown(h.store, time.Now()); err != nil {
		h.logf("prune session records: %v", err)
	}
	if err := recall.AddShown(h.store, p.SessionID, shown); err != nil {
		h.logf("record shown entries: %v", err)
	}
	status := ""
	if cfg.ShowStatus() {
		status = sessionStatus(ix, len(shown))
	}
	return hook.EncodeContextStatus(hook.SessionStart, text, status)
}

// tooOld reports whether the project's config asks for a newer cairn than
// this one; then this cairn stays out of the session, and SessionStart
// tells the agent and the person how to update.
func (h *hookRun) tooOld(p hook.Payload) ([]byte, bool) {
	h.locate(p.Cwd)
	if !h.store.Exists() {
		return nil, false
	}
	cfg, err := h.config()
	if err != nil || cfg.MinVersion == "" || !knowledge.VersionLess(Version, cfg.MinVersion) {
		return nil, false
	}
	if h.event != hook.SessionStart {
		return nil, true
	}
	msg := fmt.Sprintf("This repository's team memory (cairn) asks for cairn %s or newer; this machine has %s, so none of it was loaded. To update: %s",
		untrusted.ForAgent(cfg.MinVersion, 20), Version, settings.InstallURL)
	out, err := hook.EncodeContextStatus(hook.SessionStart, msg, "cairn: "+msg)
	return out, err == nil
}

// agentCommand is how the agent can run cairn in this session: "cairn"
// when it is on PATH, else this binary's own path (a teammate's cairn in
// ~/.local/bin or ~/go/bin that the launcher found off PATH).
func agentCommand() string {
	if _, err := exec.LookPath("cairn"); err == nil {
		return "cairn"
	}
	self, err := os.Executable()
	if err != nil {
		return "cairn"
	}
	return fsx.ShellQuote(self)
}

// NudgeReason is what a subagent that recorded nothing is asked, once.
const NudgeReason = "Before you finish: if this task taught you something a teammate would need next time " +
	"(a gotcha, a decision and why, a constraint, a root cause), add it to your final reply as lines starting with " +
	"LEARNED:, DECISION:, FACT:, PATTERN:, INVESTIGATION:, DEVIATION: or MUST-CHECK:. If there is nothing worth recording, finish as you were."

// minNudgeWords is how long a subagent's reply must be to count as work
// worth asking about.
const minNudgeWords = 30

// nudge asks a subagent that worked and recorded nothing to record what it
// learned: only when .cairn/config.json sets capture.subagent_nudge, and
// never twice (Claude Code sets stop_hook_active once the hook made the
// agent go on).
func (h *hookRun) nudge(p hook.Payload) ([]byte, error) {
	if p.StopHookActive || len(strings.Fields(p.LastAssistantMessage)) < minNudgeWords {
		return nil, nil
	}
	h.locate(p.Cwd)
	if !h.store.Exists() {
		return nil, nil
	}
	cfg, err := h.config()
	if err != nil || !cfg.Capture.SubagentNudge {
		return nil, err
	}
	return hook.EncodeBlock(NudgeReason)
}

// sanitizeIfNeeded starts a background sanitize when the log changed since
// the last run. Captures do not start one themselves (they are on the
// path of every Bash command); the next prompt or session does.
func (h *hookRun) sanitizeIfNeeded(ix *index.Index) {
	if !ix.SanitizeNeeded() {
		return
	}
	if err := startSanitize(h.store, h.root, h.env.Getenv); err != nil {
		h.logf("%v", err)
	}
}

// maxPerPrompt caps how many entries one prompt brings in.
const maxPerPrompt = 3

// promptRecall injects, for one user prompt, the few entries that are
// strongly relevant to it and not yet shown in this session; it is silent
// otherwise, and when .cairn/config.json sets recall.per_prompt to false.
func (h *hookRun) promptRecall(p hook.Payload) ([]byte, error) {
	h.locate(p.Cwd)
	if err := h.store.Check(); err != nil {
		return nil, err
	}
	if !h.store.Exists() {
		return nil, nil
	}
	cfg, err := h.config()
	if err != nil {
		h.logf("%v (using defaults)", err)
	}
	if cfg.Recall.PerPrompt != nil && !*cfg.Recall.PerPrompt {
		return nil, nil
	}
	terms := relevance.Terms(p.Prompt)
	if len(terms) < 2 {
		return nil, nil
	}
	ix, err := openSynced(h.store)
	if err != nil {
		return nil, err
	}
	defer ix.Close()
	h.sanitizeIfNeeded(ix)
	hits, err := ix.Search(index.Query{Text: p.Prompt, Limit: 10})
	if err != nil {
		return nil, err
	}
	shown := recall.LoadShown(h.store, p.SessionID)
	var fresh []knowledge.Entry
	for _, hit := range hits {
		if shown[hit.Entry.Key] || !recall.StronglyRelevant(hit.Entry, terms) {
			continue
		}
		fresh = append(fresh, hit.Entry)
		if len(fresh) == maxPerPrompt {
			break
		}
	}
	if len(fresh) == 0 {
		return nil, nil
	}
	text, keys := recall.RenderShown(recall.Block{
		Relevant: fresh,
		Budget:   recall.PerPromptBudget,
		Small:    true,
		Heading:  "Relevant to this prompt:",
	})
	if len(keys) == 0 {
		return nil, nil
	}
	if err := recall.AddShown(h.store, p.SessionID, keys); err != nil {
		h.logf("record shown entries: %v", err)
	}
	return hook.EncodeContext(hook.UserPromptSubmit, text)
}

func heading(ctx recall.Context) string {
	var what []string
	if len(ctx.Tasks) > 0 {
		what = append(what, "open tasks")
	}
	if ctx.Branch != "" {
		what = append(what, "branch "+untrusted.ForAgent(ctx.Branch, 80))
	}
	if len(ctx.Commits) > 0 {
		what = append(what, "recent commits")
	}
	if len(what) == 0 {
		return ""
	}
	return "Relevant to " + strings.Join(what, ", ") + ", best first:"
}

// sessionContext reads the branch, recent commits and, when the beads CLI
// is installed, open task titles (under a short time limit).
func (h *hookRun) sessionContext() recall.Context {
	var c recall.Context
	if h.isGit {
		c.Branch = gitx.ReadQuick(h.root).Branch
		if repo, err := gitx.Open(h.root); err == nil {
			commits, err := repo.RecentCommits(5, 20)
			if err != nil {
				h.logf("recent commits: %v", err)
			}
			for _, cm := range commits {
				c.Commits = append(c.Commits, recall.Commit{Subject: cm.Subject, Files: cm.Files})
			}
		}
	}
	c.Tasks = h.beadTitles()
	return c
}

// beadTitles lists in-progress and open beads' titles, if bd is on PATH.
func (h *hookRun) beadTitles() []string {
	bd, err := exec.LookPath("bd")
	if err != nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	var titles []string
	for _, status := range []string{"in_progress", "open"} {
		cmd := exec.CommandContext(ctx, bd, "list", "--status", status, "--json")
		cmd.Dir = h.root
		out, err := cmd.Output()
		if err != nil {
			h.logf("bd list: %v", err)
			return titles
		}
		var issues []struct {
			Title string `json:"title"`
		}
		if json.Unmarshal(out, &issues) != nil {
			continue
		}
		for _, is := range issues {
			if is.Title != "" && len(titles) < 5 {
				titles = append(titles, is.Title)
			}
		}
	}
	return titles
}

// openSynced opens a store's cache and brings it up to date with the log.
func openSynced(s *knowledge.Store) (*index.Index, error) {
	ix, err := index.Open(s)
	if err != nil {
		return nil, err
	}
	if _, err := ix.Sync(); err != nil {
		ix.Close()
		return nil, err
	}
	return ix, nil
}

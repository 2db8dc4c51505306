package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/cairn-dev/cairn/helpers/internal/agent/claude"
	"github.com/cairn-dev/cairn/helpers/internal/curate"
	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
	"github.com/cairn-dev/cairn/helpers/internal/pipeline"
	"github.com/cairn-dev/cairn/helpers/internal/project"
	"github.com/cairn-dev/cairn/helpers/internal/review"
	"github.com/cairn-dev/cairn/helpers/internal/ui"
	"github.com/cairn-dev/cairn/helpers/internal/userconf"
)

// Exit codes. cairn never exits 2: Claude Code reads 2 from a hook as
// "block the agent", and a Go panic exits 2 too.
const (
	exitOK    = 0
	exitError = 1  // something failed; the message says what and how to fix it
	exitStale = 3  // cairn check --fail-on stale found notes that may be stale
	exitUsage = 64 // the command line was wrong (EX_USAGE)
)

// userError is an error of the command line, or one with a hint of the
// fix that only the command knows, printed on one line.
type userError struct {
	msg  string
	hint string
	code int
}

func (e *userError) Error() string { return e.msg }

// usagef reports a mistake in the command line.
func usagef(format string, args ...any) error {
	return &userError{msg: fmt.Sprintf(format, args...), code: exitUsage}
}

// hinted wraps err with a hint of the fix.
func hinted(err error, hint string) error {
	return &userError{msg: err.Error(), hint: hint, code: exitError}
}

// hints are the fixes for the errors of the layers below, by the error
// they wrap; for a command, when command is set. The first match wins.
var hints = []struct {
	err     error
	command string
	hint    string
}{
	{review.ErrNotGit, "", "run it in the project's repository"},
	{review.ErrRevision, "", "name a branch, a tag or a commit git knows here (git fetch first for origin/...)"},
	{review.ErrNoDefaultBranch, "", "pass --base REV"},
	{review.ErrNoHead, "", "commit first"},
	{ui.ErrListen, "", "choose another --addr (port 0 picks a free one)"},
	{project.ErrNotFound, "", "run cairn inside your project, or pass --dir PATH"},
	{project.ErrNoDir, "", "check --dir or CAIRN_DIR"},
	{project.ErrNotProvisioned, "", "run cairn init or cairn add first"},
	{fs.ErrPermission, "", "make .cairn/knowledge.jsonl readable, e.g. chmod u+rw .cairn/knowledge.jsonl"},
	{curate.ErrNoProposal, "", "write one with cairn curate --dry-run --out FILE"},
	{curate.ErrBadProposal, "", "write a fresh one with cairn curate --dry-run --out FILE"},
	{curate.ErrLogChanged, "", "re-run cairn curate --dry-run and review again"},
	{curate.ErrNoEntry, "curate", "re-run cairn curate --dry-run"},
	{curate.ErrNoEntry, "", "find keys with cairn recall WORDS --json"},
	{curate.ErrCommitted, "rm", "take it back with cairn retract KEY --reason TEXT, or correct it with cairn edit KEY --content TEXT"},
	{curate.ErrAlreadyRetracted, "edit", "a retraction is final; record the corrected knowledge with cairn add"},
	{knowledge.ErrExists, "edit", "cairn show that key, or retract this one with cairn retract KEY --reason TEXT"},
	{claude.ErrSettings, "", "fix the file by hand, then run again"},
	{pipeline.ErrOff, "", "turn it on with cairn pipeline on"},
	{pipeline.ErrNoSession, "", "start a session in this project with the pipeline on, then run it from that session"},
	{userconf.ErrNoHome, "", "set HOME (or XDG_CONFIG_HOME, XDG_DATA_HOME and XDG_STATE_HOME)"},
	{knowledge.ErrCache, "", "delete " + filepath.Join(knowledge.DirName, knowledge.CacheDir) + " and run cairn sync --full"},
}

// report prints err as one line on stderr, with the hint of its fix, and
// returns the exit code; command is the subcommand that ran.
func report(stderr io.Writer, command string, err error) int {
	if err == nil {
		return exitOK
	}
	code := exitError
	msg := err.Error()
	var ue *userError
	if errors.As(err, &ue) {
		code = ue.code
		if ue.hint != "" {
			msg += " (" + ue.hint + ")"
		}
	} else {
		for _, h := range hints {
			if errors.Is(err, h.err) && (h.command == "" || h.command == command) {
				msg += " (" + h.hint + ")"
				break
			}
		}
	}
	msg = strings.ReplaceAll(msg, "\n", " ")
	fmt.Fprintf(stderr, "cairn: %s\n", msg)
	return code
}

package cli

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"

	"github.com/cairn-dev/cairn/helpers/internal/audit"
	"github.com/cairn-dev/cairn/helpers/internal/fsx"
	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
	"github.com/cairn-dev/cairn/helpers/internal/sanitize"
	ucli "github.com/urfave/cli/v2"
)

// lockFDEnv passes the sanitize lock to a background run.
const lockFDEnv = "CAIRN_SANITIZE_LOCK_FD"

// noBackgroundEnv, set to 1, stops hooks from starting background runs.
const noBackgroundEnv = "CAIRN_NO_BACKGROUND"

func sanitizeCommand(env Env) *ucli.Command {
	return &ucli.Command{
		Name:  "sanitize",
		Usage: "write the local working set (cache/active.jsonl) and its audit (cache/audit.jsonl)",
		Description: "Reads the shared log and never changes it. The working set holds the latest line\n" +
			"of every key, without retracted and superseded entries, noise (pasted commands,\n" +
			"log lines, stack traces, fragments), duplicates (collapsed to the newest) and\n" +
			"stale entries (every file they name is gone). Entries naming a missing file or\n" +
			"symbol are flagged needs_review, entries whose files changed since their commit\n" +
			"are flagged outdated; recall ranks flagged entries lower and marks them. The\n" +
			"audit has one line per decision with the keys and the reason.\n" +
			"Hooks run it in the background when the log changed.",
		Flags: []ucli.Flag{
			&ucli.BoolFlag{Name: "json", Usage: "print the summary as JSON"},
			&ucli.BoolFlag{Name: "background", Hidden: true, Usage: "run quietly, as started by a hook"},
		},
		Action: func(c *ucli.Context) error {
			if c.NArg() > 0 {
				return usagef("sanitize takes no arguments")
			}
			p, err := findProject(c, env)
			if err != nil {
				return err
			}
			if err := p.requireStore(); err != nil {
				return err
			}
			opts := sanitize.Options{Root: p.root}
			if c.Bool("background") {
				return backgroundSanitize(p, opts, env)
			}
			res, _, err := sanitize.Run(p.store, opts, true)
			if err != nil {
				return explainRead(err)
			}
			if c.Bool("json") {
				return writeJSON(env.Stdout, res.Summary)
			}
			printSanitize(env.Stdout, res.Summary)
			return nil
		},
	}
}

func printSanitize(w io.Writer, s audit.Summary) {
	fmt.Fprintf(w, "working set: %d of %d entries -> %s\n", s.Active, s.Entries, filepath.Join(knowledge.DirName, knowledge.CacheDir, sanitize.ActiveName))
	fmt.Fprintf(w, "  removed: %d noise, %d duplicates, %d stale, %d retracted, %d superseded, %d archived\n",
		s.Noise, s.Duplicates, s.Stale, s.Retracted, s.Superseded, s.Archived)
	fmt.Fprintf(w, "  flagged: %d needs review, %d possibly outdated\n", s.Review, s.Outdated)
	if s.Invalid+s.Repaired > 0 {
		fmt.Fprintf(w, "  log lines: %d skipped, %d repaired\n", s.Invalid, s.Repaired)
	}
	if !s.SymbolsComplete {
		fmt.Fprintln(w, "  symbol search stopped at its time bound; unchecked symbols count as found")
	}
	fmt.Fprintf(w, "audit: %s (why each entry left or was flagged)\n", filepath.Join(knowledge.DirName, knowledge.CacheDir, audit.Name))
}

// backgroundSanitize is a run started by a hook: it holds the lock the hook
// passed down (or takes it if free), and reports failures in cairn.log.
func backgroundSanitize(p *project, opts sanitize.Options, env Env) error {
	var err error
	if fd, ferr := strconv.Atoi(env.Getenv(lockFDEnv)); ferr == nil && fd > 2 {
		lock, lerr := fsx.Inherited(uintptr(fd))
		if lerr != nil {
			return nil // someone else runs it
		}
		defer lock.Release()
		_, _, err = sanitize.RunLocked(p.store, opts)
	} else {
		_, _, err = sanitize.Run(p.store, opts, false) // nothing to do if one runs
	}
	if err != nil {
		appendLog(p.store, "sanitize: "+err.Error())
	}
	return nil
}

// startSanitize starts a background sanitize of store s unless one is
// running. The lock is taken here and handed to the child, so a caller
// that returns at once leaves no window in which a second run starts, and
// a test can wait for the run by taking the lock.
func startSanitize(s *knowledge.Store, root string, getenv func(string) string) error {
	if getenv(noBackgroundEnv) == "1" {
		return nil
	}
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("start sanitize: %w", err)
	}
	lock, ok, err := s.Root().TryAcquire(sanitize.LockFile)
	if err != nil || !ok {
		return err
	}
	cmd := exec.Command(self, "--dir", root, "sanitize", "--background")
	cmd.Env = append(os.Environ(), lockFDEnv+"=3", inHookEnv+"=1")
	cmd.ExtraFiles = []*os.File{lock.File()}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	// Whatever the run has to say lands in cairn.log.
	logFile, err := openLog(s)
	if err == nil {
		defer logFile.Close()
		cmd.Stdout, cmd.Stderr = logFile, logFile
	}
	if err := cmd.Start(); err != nil {
		lock.Release()
		return fmt.Errorf("start sanitize: %w", err)
	}
	// Below the session's own processes: it may take seconds on a big log.
	_ = syscall.Setpriority(syscall.PRIO_PROCESS, cmd.Process.Pid, 10)
	_ = cmd.Process.Release()
	return lock.Handoff()
}

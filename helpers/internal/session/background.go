package session

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"

	"github.com/cairn-dev/cairn/helpers/internal/detach"
	"github.com/cairn-dev/cairn/helpers/internal/fsx"
	"github.com/cairn-dev/cairn/helpers/internal/index"
	"github.com/cairn-dev/cairn/helpers/internal/project"
	"github.com/cairn-dev/cairn/helpers/internal/sanitize"
)

// Variables of the environment that the session layer reads or sets.
const (
	// InHookEnv is set by the hook launchers and by the background runs a
	// hook starts, and inherited by anything they start: commands that
	// are a person's decision (curate --apply, resolve) refuse there.
	InHookEnv = "CAIRN_IN_HOOK"
	// NoBackgroundEnv, set to 1, stops hooks from starting background runs.
	NoBackgroundEnv = detach.DisabledEnv
	// lockFDEnv passes the sanitize lock to a background run.
	lockFDEnv = "CAIRN_SANITIZE_LOCK_FD"
)

// InHook reports whether getenv's environment is a hook's, or something a
// hook started.
func InHook(getenv func(string) string) bool { return getenv(InHookEnv) == "1" }

// sanitizeIfNeeded starts a background sanitize when the log changed since
// the last run. Captures do not start one themselves (they are on the
// path of every shell command); the next prompt or session does.
func (s *Session) sanitizeIfNeeded(ix *index.Index) {
	if !ix.SanitizeNeeded() {
		return
	}
	if err := StartSanitize(s.proj, s.env.Getenv); err != nil {
		s.logf("%v", err)
	}
}

// StartSanitize starts a background sanitize of p unless one is running.
// The lock is taken here and handed to the child, so a caller that
// returns at once leaves no window in which a second run starts, and a
// test can wait for the run by taking the lock. (On Windows, where a lock
// cannot be inherited, the child takes it again after the hand-off, and a
// run that another took it from first just exits.)
func StartSanitize(p *project.Project, getenv func(string) string) error {
	if detach.Disabled(getenv) {
		return nil
	}
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("start sanitize: %w", err)
	}
	lock, ok, err := p.Store.Root().TryAcquire(sanitize.LockFile)
	if err != nil || !ok {
		return err
	}
	cmd := exec.Command(self, "--dir", p.Root, "sanitize", "--background")
	fd, err := lock.PassTo(cmd)
	if err != nil {
		lock.Release()
		return fmt.Errorf("start sanitize: %w", err)
	}
	cmd.Env = append(os.Environ(), lockFDEnv+"="+strconv.FormatUint(uint64(fd), 10), InHookEnv+"=1")
	// Whatever the run has to say lands in cairn.log.
	logFile, err := p.OpenLog()
	if err == nil {
		defer logFile.Close()
		cmd.Stdout, cmd.Stderr = logFile, logFile
	}
	// Out of the session, below its own processes: it may take seconds on
	// a big log.
	if err := detach.Start(cmd); err != nil {
		lock.Release()
		return fmt.Errorf("start sanitize: %w", err)
	}
	return lock.Handoff()
}

// SanitizeInBackground is the run StartSanitize started: it holds the lock
// the hook passed down (or takes it if free), and reports failures in
// cairn.log. It never fails itself: nobody waits for it.
func SanitizeInBackground(p *project.Project, getenv func(string) string) {
	opts := sanitize.Options{Root: p.Root}
	var err error
	if fd, ferr := strconv.ParseUint(getenv(lockFDEnv), 10, 64); ferr == nil && fd > 2 {
		lock, lerr := fsx.Inherited(uintptr(fd))
		if lerr != nil {
			return // someone else runs it
		}
		defer lock.Release()
		_, _, err = sanitize.RunLocked(p.Store, opts)
	} else {
		_, _, err = sanitize.Run(p.Store, opts, false) // nothing to do if one runs
	}
	if err != nil {
		p.Log("sanitize: " + err.Error())
	}
}

package session

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"syscall"

	"github.com/cairn-dev/cairn/helpers/internal/detach"
	"github.com/cairn-dev/cairn/helpers/internal/fsx"
	"github.com/cairn-dev/cairn/helpers/internal/index"
	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
	"github.com/cairn-dev/cairn/helpers/internal/project"
	"github.com/cairn-dev/cairn/helpers/internal/sanitize"
	"github.com/cairn-dev/cairn/helpers/internal/session/record"
)

// Variables of the environment that the session layer reads or sets.
const (
	// InHookEnv is [record.InHookEnv].
	InHookEnv = record.InHookEnv
	// NoBackgroundEnv, set to 1, stops hooks from starting background runs.
	NoBackgroundEnv = detach.DisabledEnv
	// lockFDEnv passes a background run's lock (sanitize's, sync's) to it.
	lockFDEnv = "CAIRN_SANITIZE_LOCK_FD"
)

// InHook is [record.InHook].
func InHook(getenv func(string) string) bool { return record.InHook(getenv) }

// sanitizeIfNeeded starts a background sanitize when the log changed since
// the last run. Captures do not start one themselves (they are on the
// path of every shell command); the next prompt or session does.
func (s *Session) sanitizeIfNeeded(ix *index.Index) {
	if !ix.SanitizeNeeded() {
		return
	}
	if err := StartSanitize(s.Proj, s.Env.Getenv); err != nil {
		s.Logf("%v", err)
	}
}

// StartSanitize starts a background sanitize of p unless one is running.
// The lock is taken here and handed to the child, so a caller that
// returns at once leaves no window in which a second run starts, and a
// test can wait for the run by taking the lock. (On Windows, where a lock
// cannot be inherited, the child takes it again after the hand-off, and a
// run that another took it from first just exits.)
func StartSanitize(p *project.Project, getenv func(string) string) error {
	return startLocked(p, getenv, sanitize.LockFile, "sanitize")
}

// SyncLockFile is the lock, under .cairn, that one background sync holds.
const SyncLockFile = knowledge.CacheDir + "/sync.lock"

// StartSync starts a background `cairn sync` of p (a rebuild of a cache
// that is missing, damaged or far behind the log) unless one is running;
// a hook that could not use the cache starts it and answers without.
// A full sync rebuilds the cache (one SQLite found damaged).
func StartSync(p *project.Project, getenv func(string) string, full bool) error {
	if full {
		return startLocked(p, getenv, SyncLockFile, "sync", "--full")
	}
	return startLocked(p, getenv, SyncLockFile, "sync")
}

// startLocked starts `cairn --dir P COMMAND --background` detached,
// holding lockFile, which it passes to the child; nothing starts when
// another run holds it.
func startLocked(p *project.Project, getenv func(string) string, lockFile, command string, flags ...string) error {
	if detach.Disabled(getenv) {
		return nil
	}
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("start %s: %w", command, err)
	}
	lock, ok, err := p.Store.Root().TryAcquire(lockFile)
	if err != nil || !ok {
		return err
	}
	args := append([]string{"--dir", p.Root, command, "--background"}, flags...)
	cmd := exec.Command(self, args...)
	fd, err := lock.PassTo(cmd)
	if err != nil {
		lock.Release()
		return fmt.Errorf("start %s: %w", command, err)
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
		return fmt.Errorf("start %s: %w", command, err)
	}
	return lock.Handoff()
}

// SyncInBackground is the run StartSync started: it holds the lock the
// hook passed down (or takes it if free; if another holds it, that one
// syncs) and brings the cache up to date, reporting failures in
// cairn.log. It never fails itself: nobody waits for it.
func SyncInBackground(p *project.Project, getenv func(string) string, full bool) {
	if fd, ferr := strconv.ParseUint(getenv(lockFDEnv), 10, 64); ferr == nil && fd > 2 {
		lock, lerr := fsx.Inherited(uintptr(fd))
		if lerr != nil {
			return
		}
		defer lock.Release()
	} else {
		lock, ok, err := p.Store.Root().TryAcquire(SyncLockFile)
		if err != nil || !ok {
			return
		}
		defer lock.Release()
	}
	if _, err := index.SyncStore(p.Store, full); err != nil {
		p.Log("background sync: " + err.Error())
	}
}

// SanitizeInBackground is the run StartSanitize started: it holds the lock
// the hook passed down (or takes it if free), and reports failures in
// cairn.log. It never fails itself: nobody waits for it.
func SanitizeInBackground(p *project.Project, getenv func(string) string) {
	// Asked to stop (a shutdown), the run stops at its next check and
	// leaves the previous working set in place.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	opts := sanitize.Options{Root: p.Root}
	var err error
	if fd, ferr := strconv.ParseUint(getenv(lockFDEnv), 10, 64); ferr == nil && fd > 2 {
		lock, lerr := fsx.Inherited(uintptr(fd))
		if lerr != nil {
			return // someone else runs it
		}
		defer lock.Release()
		_, _, err = sanitize.RunLockedContext(ctx, p.Store, opts)
	} else {
		_, _, err = sanitize.RunContext(ctx, p.Store, opts, false) // nothing to do if one runs
	}
	if err != nil {
		p.Log("sanitize: " + err.Error())
	}
}

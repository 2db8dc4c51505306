package toolgate

import (
	"os"
	"strings"

	"github.com/cairn-dev/cairn/helpers/internal/agent/spec"
	"github.com/cairn-dev/cairn/helpers/internal/anchor"
	"github.com/cairn-dev/cairn/helpers/internal/event"
)

// Names this gate shares with packages it may not import (detach and
// session, which import os/exec; a test checks they agree).
const (
	noBackgroundEnv = "CAIRN_NO_BACKGROUND"    // detach.DisabledEnv
	childEnv        = "CAIRN_PIPELINE_CHILD"   // detach.ChildEnv
	inHookEnv       = "CAIRN_IN_HOOK"          // session.InHookEnv
	lockFDEnv       = "CAIRN_SANITIZE_LOCK_FD" // session's lockFDEnv
	syncLock        = "cache/sync.lock"        // session.SyncLockFile
)

// catchUp starts the background sync (`cairn --dir ROOT sync
// --background`, as session.StartSync does) when the output of a tool
// call with nothing to capture finds the log changed since the anchor map
// was built: the call was a git pull, a merge, a checkout, or the person
// pulled in a terminal. The cache is then current, or catching up, when
// the agent's next tool call comes, and that call's hook is answered
// from the map here rather than by the full hook reading behind the
// cache. It costs a few stats and a 4 KB read of the map's head when the
// map is current; nothing starts when the project has no .cairn or no
// map, when the .cairn holds a link or a special file on the way (see
// [store]), when a sync already runs (its lock is held), or when
// background runs are off (CAIRN_NO_BACKGROUND=1, or inside the
// pipeline's own model call). It prints nothing, fails silently (the
// next hook that reads the cache catches it up) and never panics: a
// panic in an init would exit 2.
func catchUp(a spec.Spec, data []byte) {
	defer func() { _ = recover() }()
	if backgroundOff() {
		return
	}
	var c event.ToolCall
	if a.ToolCall != nil {
		if tc, ok := a.ToolCall(data); ok {
			c = tc
		}
	}
	s, root, err := open(a, c)
	if err != nil {
		return
	}
	defer s.Close()
	id, err := anchor.Identity(s)
	if err != nil || !s.behind(id) {
		return
	}
	startSync(s, root)
}

// background starts the background sync of root, whose .cairn s is,
// unless background runs are off (CAIRN_NO_BACKGROUND=1, or inside the
// pipeline's own model call) or a sync runs (see startSync).
func background(s *store, root string) {
	if !backgroundOff() {
		startSync(s, root)
	}
}

// backgroundOff reports whether background runs are off:
// CAIRN_NO_BACKGROUND=1, or inside the pipeline's own model call.
func backgroundOff() bool {
	return os.Getenv(noBackgroundEnv) == "1" || os.Getenv(childEnv) != ""
}

// spawn starts the background sync's process: spawnSync, or a test's
// stand-in.
var spawn = spawnSync

// spawnSync starts `cairn --dir root sync --background` detached (sys),
// its standard files the null device; lock, when not nil, is the sync's
// lock, held, which the child takes over as file 3.
func spawnSync(root string, lock *os.File, sys *sysProcAttr) error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer null.Close()
	files := []*os.File{null, null, null}
	set := []string{inHookEnv + "=1"}
	if lock != nil {
		files = append(files, lock)
		set = append(set, lockFDEnv+"=3")
	}
	p, err := os.StartProcess(exe, []string{exe, "--dir", root, "sync", "--background"}, &os.ProcAttr{
		Dir:   root,
		Env:   environ(os.Environ(), set...),
		Files: files,
		Sys:   sys,
	})
	if err != nil {
		return err
	}
	lower(p.Pid)
	return p.Release()
}

// environ is env with the variables of set (NAME=value) in place of any
// it holds (a child reads the first of a name).
func environ(env []string, set ...string) []string {
	out := make([]string, 0, len(env)+len(set))
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		keep := true
		for _, s := range set {
			if strings.HasPrefix(s, name+"=") {
				keep = false
			}
		}
		if keep {
			out = append(out, kv)
		}
	}
	return append(out, set...)
}

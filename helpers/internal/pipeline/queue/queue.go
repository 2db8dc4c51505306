// Package queue is the producer's side of cairn's personal session
// pipeline: the queue of sessions to distill, which the hooks write and
// the worker drains. It imports nothing of cairn but the leaves event,
// fsx, detach (to start the worker) and userconf (the person's switch and
// directories), so that the Stop hook's fast path can enqueue before the
// rest of cairn starts (see hookgate): enqueueing reads no transcript and
// costs a few stats and one small write.
package queue

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/helpers/internal/detach"
	"github.com/cairn-dev/cairn/helpers/internal/event"
	"github.com/cairn-dev/cairn/helpers/internal/fsx"
	"github.com/cairn-dev/cairn/helpers/internal/userconf"
)

// The producer's gates (a Stop; SessionEnd and `cairn handoff-now` force
// past them).
const (
	// Debounce: a session with a task queued less than this long ago is
	// not queued again (the pending task already stands for it: the worker
	// reads the transcript when it gets there).
	Debounce = 60 * time.Second
	// Growth: a session already distilled is queued again only once its
	// transcript was written to at least this long after that task was
	// queued.
	Growth = 120 * time.Second
)

// Reasons a task is queued.
const (
	ReasonStop    = "stop"
	ReasonEnd     = "end"
	ReasonCompact = "compact"
	ReasonManual  = "manual"
)

// Task is one session to distill: where its transcript is, and which
// project it ran in. The producer writes it without reading the
// transcript.
type Task struct {
	Session    string `json:"session"`
	Transcript string `json:"transcript"`
	Cwd        string `json:"cwd,omitempty"`
	// Project is the project's root when the agent named it.
	Project string `json:"project,omitempty"`
	// Agent is the adapter's name ("claude"), whose reader parses the
	// transcript.
	Agent  string `json:"agent"`
	Reason string `json:"reason"`
	// Enqueued is when it was queued, in Unix nanoseconds.
	Enqueued int64 `json:"enqueued"`
	// Attempts counts the workers that claimed it; a task a worker died
	// on twice is not tried again.
	Attempts int `json:"attempts,omitempty"`
}

// Done is the record of a session's last processed task, kept in
// queue/done/ (one file per session): the gates and the worker read it.
type Done struct {
	Task
	// Finished is when the worker finished it, in Unix nanoseconds.
	Finished int64 `json:"finished"`
	// Outcome says what the worker did, for people (doctor, the log).
	Outcome string `json:"outcome"`
	// Distilled is true when the model's answer was read and written.
	Distilled bool `json:"distilled,omitempty"`
	// TranscriptSize and TranscriptModified are the transcript's as the
	// worker read it (Unix nanoseconds): a transcript unchanged since is
	// never distilled again.
	TranscriptSize     int64 `json:"transcript_size,omitempty"`
	TranscriptModified int64 `json:"transcript_modified,omitempty"`
}

// Queue is the directory of queued tasks: <name>.task pending (one per
// session), work/ claimed by the worker, done/ finished.
type Queue struct{ Dir string }

// Open is the queue under the user's state directory.
func Open(d userconf.Dirs) Queue { return Queue{Dir: filepath.Join(d.State, "queue")} }

// Subdirectories of a queue.
const (
	WorkDir = "work"
	DoneDir = "done"
	ext     = ".task"
)

// Name is the file name a session's tasks get: its id when that is at
// most 64 characters of [0-9A-Za-z_-], else those of its characters and a
// hash of the whole id, so that no session id can steer a path and no two
// ids share a name.
func Name(session string) string {
	var b strings.Builder
	plain := len(session) <= 64
	for _, r := range session {
		if b.Len() == 64 {
			plain = false
			break
		}
		if r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == '-' || r == '_' {
			b.WriteRune(r)
		} else {
			plain = false
		}
	}
	if session == "" {
		return "session" + ext
	}
	if !plain {
		prefix := b.String()[:min(b.Len(), 32)]
		if prefix == "" {
			prefix = "session"
		}
		sum := sha256.Sum256([]byte(session))
		return prefix + "-" + hex.EncodeToString(sum[:12]) + ext
	}
	return b.String() + ext
}

// Pending is the path of name's pending task.
func (q Queue) Pending(name string) string { return filepath.Join(q.Dir, name) }

// Work is the path of name's claimed task.
func (q Queue) Work(name string) string { return filepath.Join(q.Dir, WorkDir, name) }

// DonePath is the path of name's done record.
func (q Queue) DonePath(name string) string { return filepath.Join(q.Dir, DoneDir, name) }

// maxTask caps a task file read.
const maxTask = 64 << 10

// ReadTask reads a task (or done record) file into v.
func ReadTask(path string, v any) error {
	f, err := fsx.OpenRegular(path)
	if err != nil {
		return err
	}
	defer f.Close()
	data := make([]byte, maxTask+1)
	n, err := f.Read(data)
	if err != nil && n == 0 {
		return fmt.Errorf("read %s: %w", path, err)
	}
	if n > maxTask {
		return fmt.Errorf("%s: over %d bytes", path, maxTask)
	}
	if err := json.Unmarshal(data[:n], v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// LastDone reads the done record of session, if there is one.
func (q Queue) LastDone(session string) (Done, bool) {
	var d Done
	err := ReadTask(q.DonePath(Name(session)), &d)
	return d, err == nil
}

// Skip says why the producer did not queue a task.
type Skip string

// Why a task was not queued.
const (
	Queued    Skip = ""
	Debounced Skip = "debounced: a task for this session was queued under a minute ago"
	NotGrown  Skip = "unchanged: the transcript has not grown for two minutes since it was last processed"
	NoSession Skip = "no session id or transcript path"
)

// Enqueue queues t unless a gate stops it (force skips the gates): no
// task when one was queued under [Debounce] ago, nor when the session was
// distilled and its transcript was not written to [Growth] after. It
// stats the transcript and never reads it; the write is atomic, so the
// worker never sees half a task, and a pending task of the session is
// replaced.
func (q Queue) Enqueue(t Task, force bool, now time.Time) (Skip, error) {
	if t.Session == "" || t.Transcript == "" {
		return NoSession, nil
	}
	name := Name(t.Session)
	if !force {
		if fi, err := os.Stat(q.Pending(name)); err == nil && now.Sub(fi.ModTime()) < Debounce {
			return Debounced, nil
		}
		// Only a distillation counts: a task the worker skipped cost no
		// model call (the transcript not written yet, too short so far)
		// or failed to get an answer, and the next Stop tries again.
		if d, ok := q.LastDone(t.Session); ok && d.Distilled {
			fi, err := os.Stat(t.Transcript)
			if err != nil || fi.ModTime().UnixNano()-d.Enqueued < int64(Growth) {
				return NotGrown, nil
			}
		}
	}
	t.Enqueued = now.UnixNano()
	t.Attempts = 0
	data, err := json.Marshal(t)
	if err != nil {
		return Queued, err
	}
	// Not synced to disk: a task lost in a crash costs one distillation,
	// and the next Stop or SessionEnd queues the session again.
	return Queued, writeFile(q.Pending(name), data, false)
}

// Count counts the pending tasks.
func (q Queue) Count() (int, error) {
	entries, err := os.ReadDir(q.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	n := 0
	for _, e := range entries {
		if e.Type().IsRegular() && strings.HasSuffix(e.Name(), ext) {
			n++
		}
	}
	return n, err
}

// WorkerArgs are the arguments that run the worker (`cairn pipeline
// work`).
var WorkerArgs = []string{"pipeline", "work"}

// maxLog is the size past which the pipeline's log is set aside.
const maxLog = 1 << 20

// LogPath is the pipeline's log under the state directory: the worker's
// account of each task.
func LogPath(d userconf.Dirs) string { return filepath.Join(d.State, "pipeline.log") }

// Spawn starts the worker, detached, from the cairn binary self: it
// outlives the hook and drains the queue; when a worker already runs, the
// new one sees the lock and exits at once. Its output goes to the
// pipeline's log.
func Spawn(self string, d userconf.Dirs) error {
	cmd := exec.Command(self, WorkerArgs...)
	cmd.Env = append(os.Environ(), detach.ChildEnv+"=1")
	if err := fsx.MkdirPrivate(d.State); err != nil {
		return err
	}
	if fi, err := os.Stat(LogPath(d)); err == nil && fi.Size() > maxLog {
		os.Rename(LogPath(d), LogPath(d)+".1") // one old log kept
	}
	log, err := fsx.OpenRegularFile(LogPath(d), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	defer log.Close()
	cmd.Stdout, cmd.Stderr = log, log
	return detach.Start(cmd)
}

// Produce is the whole producer, as a hook runs it: nothing when the
// pipeline is off or this process is the pipeline's own; else enqueue t
// (past the gates when force) and start the worker when a task was
// queued. getenv reads the environment; user loads the user's config
// (userconf.Load, or a hook's copy loaded once per event), only when this
// process is not the pipeline's own.
func Produce(getenv func(string) string, user func() (userconf.User, error), t Task, force bool, now time.Time) (Skip, error) {
	if getenv(detach.ChildEnv) != "" {
		return "pipeline child", nil
	}
	u, err := user()
	if errors.Is(err, userconf.ErrNoHome) {
		return "no home directory", nil // nowhere to keep it: the pipeline is off
	}
	if err != nil || !u.Config.Pipeline {
		return "pipeline off", err
	}
	d := u.Dirs
	skip, err := Open(d).Enqueue(absolute(t), force, now)
	if err != nil || skip != Queued {
		return skip, err
	}
	if detach.Disabled(getenv) {
		return Queued, nil
	}
	self, err := os.Executable()
	if err != nil {
		return Queued, err
	}
	return Queued, Spawn(self, d)
}

// absolute is t with its relative paths made absolute against this
// process's working directory (a hook's is the session's): the worker,
// started anywhere, never reads them against its own.
func absolute(t Task) Task {
	wd, err := os.Getwd()
	if err != nil {
		return t
	}
	for _, p := range []*string{&t.Transcript, &t.Cwd, &t.Project} {
		if *p != "" && !filepath.IsAbs(*p) {
			*p = filepath.Join(wd, *p)
		}
	}
	return t
}

// lastPath is where the latest session started in the project at root is
// remembered.
func (q Queue) lastPath(root string) string {
	sum := sha256.Sum256([]byte(root))
	return filepath.Join(q.Dir, "last", hex.EncodeToString(sum[:8])+".json")
}

// Remember notes t as the latest session started in its project, for
// `cairn handoff-now`.
func (q Queue) Remember(t Task) error {
	data, err := json.Marshal(t)
	if err != nil {
		return err
	}
	// Not synced: a note lost in a crash only makes handoff-now ask for
	// a new session, and a session start's fsync costs milliseconds.
	return writeFile(q.lastPath(t.Project), data, false)
}

// Last is the latest session started in the project at root.
func (q Queue) Last(root string) (Task, error) {
	var t Task
	err := ReadTask(q.lastPath(root), &t)
	return t, err
}

// TaskOf is the pipeline's task for the session of e in the project at
// root: the one way a hook names a task, on the reject path and in the
// full hook alike. A relative transcript is made absolute against dir,
// the hook's working directory: the worker runs elsewhere.
func TaskOf(e event.Event, reason, root, dir string) Task {
	transcript := e.Transcript
	if transcript != "" && !filepath.IsAbs(transcript) {
		transcript = filepath.Join(dir, transcript)
	}
	return Task{Session: e.Session, Transcript: transcript, Cwd: e.Cwd, Project: root,
		Agent: e.Agent, Reason: reason}
}

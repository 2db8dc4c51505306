package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/helpers/internal/detach"
	"github.com/cairn-dev/cairn/helpers/internal/event"
	"github.com/cairn-dev/cairn/helpers/internal/fsx"
	"github.com/cairn-dev/cairn/helpers/internal/gitmeta"
	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
	"github.com/cairn-dev/cairn/helpers/internal/model"
	"github.com/cairn-dev/cairn/helpers/internal/pipeline/queue"
	"github.com/cairn-dev/cairn/helpers/internal/projroot"
	"github.com/cairn-dev/cairn/helpers/internal/redact"
	"github.com/cairn-dev/cairn/helpers/internal/userconf"
	"github.com/cairn-dev/cairn/helpers/internal/when"
	"github.com/cairn-dev/cairn/helpers/internal/wiki"
)

// MinUserChars is the fewest characters the person must have typed for a
// session to be distilled (it is still exported).
const MinUserChars = 200

// MaxAttempts is how many workers may claim a task: one that two workers
// died on is a poison task, recorded as done and never tried again.
const MaxAttempts = 2

// Reader reads an agent's transcript as a conversation.
type Reader func(io.Reader) (event.Conversation, error)

// Worker drains the queue: for each session, export, distill, write.
type Worker struct {
	Dirs   userconf.Dirs
	Config userconf.Config
	// Readers reads transcripts by the task's agent name.
	Readers map[string]Reader
	// Model is the model; nil runs Config's command (see model.Command).
	Model model.Func
	// Log receives one line per task.
	Log io.Writer
	// Now is the clock (time.Now when nil).
	Now func() time.Time
}

// lockName is the worker's lock in the queue directory.
const lockName = ".worker.lock"

// Run drains the queue until it is empty, unless another worker holds the
// lock (then that one will get to the new tasks). A task a worker dies on
// is tried once more by the next; whatever happens to a task, it ends in
// done/, so no task can block the queue.
func (w *Worker) Run() error {
	if err := w.check(); err != nil {
		return err
	}
	q := queue.Open(w.Dirs)
	if err := fsx.MkdirPrivate(filepath.Join(q.Dir, queue.WorkDir)); err != nil {
		return err
	}
	if err := fsx.MkdirPrivate(filepath.Join(q.Dir, queue.DoneDir)); err != nil {
		return err
	}
	root := fsx.NewPrivateRoot(q.Dir)
	for {
		lock, ok, err := root.TryAcquire(lockName)
		if err != nil || !ok {
			return err
		}
		if n := model.Reap(); n > 0 {
			w.logf("killed %d processes that a dead worker's model call left running", n)
		}
		err = w.drain(q)
		if err == nil {
			w.compileDaily()
		}
		lock.Release()
		if err != nil {
			return err
		}
		// A task queued after the last look, whose worker found the lock
		// still held, is this worker's to do.
		if n, err := q.Count(); err != nil || n == 0 {
			return err
		}
	}
}

// check refuses directories and a config that would make the worker write
// relative to wherever it was started, or into a repository.
func (w *Worker) check() error {
	for _, dir := range []string{w.Dirs.State, w.Dirs.Data} {
		if !filepath.IsAbs(dir) {
			return fmt.Errorf("%w: the state and data directories must be absolute (%q, %q)", userconf.ErrPath, w.Dirs.State, w.Dirs.Data)
		}
	}
	return w.Config.Check(w.Dirs)
}

// compileMark's time is when the worker last compiled the wiki by itself.
const compileMark = "wiki-compiled"

// compileDaily compiles the wiki's new and changed sources when the config
// asks for it and the worker has not done so for a day. Its account goes
// to the log; a failure stops nothing.
func (w *Worker) compileDaily() {
	if !w.Config.WikiDaily {
		return
	}
	mark := filepath.Join(w.Dirs.State, compileMark)
	if fi, err := os.Stat(mark); err == nil && w.now().Sub(fi.ModTime()) < 24*time.Hour {
		return
	}
	if err := queue.WriteAtomic(mark, nil); err != nil {
		w.logf("wiki compile: %v", err)
		return
	}
	now := w.now()
	os.Chtimes(mark, now, now)
	know := w.Config.Knowledge(w.Dirs)
	ask := w.Model
	if ask == nil {
		ask = model.Command(w.Config.Command(), filepath.Join(w.Dirs.State, "model"), w.Config.Timeout())
	}
	res, err := wiki.Compile(filepath.Join(know, "wiki"), wiki.DailySources(know), wiki.CompileOptions{Model: ask, Now: w.now})
	if err != nil {
		w.logf("wiki compile: %v", err)
		return
	}
	for _, s := range res.Sources {
		w.logf("wiki compile %s: %d created, %d updated, %d refused, %d repaired %s", s.Source, len(s.Created), len(s.Updated), len(s.Refused), len(s.Repaired), s.Skipped)
	}
}

// keepDone is how long a session's done record is kept: past it, the
// session counts as new if it is ever resumed.
const keepDone = 30 * 24 * time.Hour

// drain recovers tasks a dead worker left, then processes every pending
// task, oldest first.
func (w *Worker) drain(q queue.Queue) error {
	w.sweep(q)
	if err := w.recoverWork(q); err != nil {
		return err
	}
	w.pruneDone(q)
	for {
		t, name, ok, err := w.claim(q)
		if err != nil || !ok {
			return err
		}
		d := w.safely(t)
		w.logf("%s %s: %s", t.Reason, t.Session, d.Outcome)
		if err := w.finish(q, name, d); err != nil {
			return err
		}
	}
}

// pruneDone removes done records older than keepDone.
func (w *Worker) pruneDone(q queue.Queue) {
	entries, err := os.ReadDir(filepath.Join(q.Dir, queue.DoneDir))
	if err != nil {
		return
	}
	for _, e := range entries {
		if info, err := e.Info(); err == nil && info.Mode().IsRegular() && w.now().Sub(info.ModTime()) > keepDone {
			os.Remove(q.DonePath(e.Name()))
		}
	}
}

// sweep removes the temporary files that killed writers left in the
// queue: in work/ and done/, which only the worker (holding its lock)
// writes, all of them; in the queue and last/, which hooks write too, those
// older than fsx.AbandonedAge.
func (w *Worker) sweep(q queue.Queue) {
	n := 0
	for _, dir := range []struct {
		path string
		age  time.Duration
	}{{q.Dir, fsx.AbandonedAge}, {filepath.Join(q.Dir, "last"), fsx.AbandonedAge},
		{filepath.Join(q.Dir, queue.WorkDir), 0}, {filepath.Join(q.Dir, queue.DoneDir), 0}} {
		cutoff := time.Time{}
		if dir.age > 0 {
			cutoff = w.now().Add(-dir.age)
		}
		n += queue.RemoveTemps(dir.path, "", cutoff)
	}
	if n > 0 {
		w.logf("removed %d temporary files that killed writers left", n)
	}
}

// writeOwned writes a file only the worker writes (an export, a daily log,
// a handoff) atomically, first removing the temporary files of it that a
// killed worker left: the worker holds the lock, so none is another's.
func writeOwned(path string, data []byte) error {
	queue.RemoveTemps(filepath.Dir(path), filepath.Base(path), time.Time{})
	return queue.WriteAtomic(path, data)
}

// recoverWork puts back the tasks a killed worker held, or, when one had
// been tried MaxAttempts times, records it as done. What is not a task
// (a killed writer's temporary file) is not one to recover.
func (w *Worker) recoverWork(q queue.Queue) error {
	entries, err := os.ReadDir(filepath.Join(q.Dir, queue.WorkDir))
	if err != nil {
		return err
	}
	for _, e := range entries {
		name := e.Name()
		if !e.Type().IsRegular() || !strings.HasSuffix(name, ".task") || fsx.IsTemp(name) {
			continue
		}
		var t queue.Task
		if err := queue.ReadTask(q.Work(name), &t); err != nil || t.Attempts >= MaxAttempts {
			outcome := fmt.Sprintf("poison: a worker stopped on it %d times; not tried again", t.Attempts)
			if err != nil {
				outcome = "poison: unreadable task: " + err.Error()
			}
			w.logf("%s: %s", name, outcome)
			if err := w.finish(q, name, queue.Done{Task: t, Outcome: outcome}); err != nil {
				return err
			}
			continue
		}
		if _, err := os.Stat(q.Pending(name)); err == nil {
			os.Remove(q.Work(name)) // a newer task of the session stands for it
			continue
		}
		if err := os.Rename(q.Work(name), q.Pending(name)); err != nil {
			return err
		}
	}
	return nil
}

// claim takes the oldest pending task into work/, counting the attempt.
// An unreadable task is recorded as done and skipped.
func (w *Worker) claim(q queue.Queue) (queue.Task, string, bool, error) {
	for {
		entries, err := os.ReadDir(q.Dir)
		if err != nil {
			return queue.Task{}, "", false, err
		}
		type pending struct {
			name string
			t    queue.Task
			err  error
		}
		var all []pending
		for _, e := range entries {
			if !e.Type().IsRegular() || !strings.HasSuffix(e.Name(), ".task") {
				continue
			}
			p := pending{name: e.Name()}
			p.err = queue.ReadTask(q.Pending(p.name), &p.t)
			all = append(all, p)
		}
		if len(all) == 0 {
			return queue.Task{}, "", false, nil
		}
		sort.Slice(all, func(i, j int) bool { return all[i].t.Enqueued < all[j].t.Enqueued })
		first := all[0]
		if err := os.Rename(q.Pending(first.name), q.Work(first.name)); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			return queue.Task{}, "", false, err
		}
		if first.err != nil {
			outcome := "poison: unreadable task: " + first.err.Error()
			w.logf("%s: %s", first.name, outcome)
			if err := w.finish(q, first.name, queue.Done{Outcome: outcome}); err != nil {
				return queue.Task{}, "", false, err
			}
			continue
		}
		first.t.Attempts++
		if err := writeJSON(q.Work(first.name), first.t); err != nil {
			return queue.Task{}, "", false, err
		}
		return first.t, first.name, true, nil
	}
}

// finish records d as name's done record and drops the claimed task.
func (w *Worker) finish(q queue.Queue, name string, d queue.Done) error {
	d.Finished = w.now().UnixNano()
	if err := writeJSON(q.DonePath(name), d); err != nil {
		return err
	}
	if err := os.Remove(q.Work(name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// safely processes t; a panic is the task's outcome, not the worker's end.
func (w *Worker) safely(t queue.Task) (d queue.Done) {
	defer func() {
		if r := recover(); r != nil {
			d = queue.Done{Task: t, Outcome: fmt.Sprintf("failed: panic: %v", r)}
		}
	}()
	return w.process(t)
}

// process exports, distills and writes one session.
func (w *Worker) process(t queue.Task) queue.Done {
	d := queue.Done{Task: t}
	if !filepath.IsAbs(t.Transcript) {
		d.Outcome = fmt.Sprintf("skipped: the transcript path %q is not absolute", t.Transcript)
		return d
	}
	fi, err := os.Stat(t.Transcript)
	if err == nil && !fi.Mode().IsRegular() {
		err = fmt.Errorf("%s is not a regular file", t.Transcript)
	}
	if err != nil {
		d.Outcome = "skipped: transcript: " + err.Error()
		return d
	}
	d.TranscriptSize, d.TranscriptModified = fi.Size(), fi.ModTime().UnixNano()
	q := queue.Open(w.Dirs)
	if last, ok := q.LastDone(t.Session); ok && last.Distilled &&
		last.TranscriptSize == d.TranscriptSize && last.TranscriptModified == d.TranscriptModified {
		d.Distilled = true
		d.Outcome = "skipped: already distilled, the transcript has not changed since"
		return d
	}
	read, ok := w.Readers[t.Agent]
	if !ok {
		d.Outcome = fmt.Sprintf("skipped: no transcript reader for agent %q", t.Agent)
		return d
	}
	f, err := fsx.OpenRegular(t.Transcript)
	if err != nil {
		d.Outcome = "skipped: transcript: " + err.Error()
		return d
	}
	c, err := read(f)
	f.Close()
	if err != nil {
		d.Outcome = "skipped: transcript: " + err.Error()
		return d
	}
	if c.Cut {
		w.logf("%s: transcript %s read up to its first %d MiB; the rest is left out", t.Session, t.Transcript, event.MaxTranscript>>20)
	}
	if !Worth(c, w.Config.Headless) {
		d.Outcome = fmt.Sprintf("skipped: not a session to keep (interactive %v, subagent %v, %d messages)", c.Interactive, c.Sidechain, len(c.Messages))
		return d
	}
	root := projectRoot(t, c)
	if root == "" {
		d.Outcome = "skipped: no absolute project directory in the task or the transcript"
		return d
	}
	if c.Branch == "" {
		// An agent whose transcript names no branch (Gemini CLI's): the
		// work tree's, now, which the handoff must follow.
		c.Branch = gitmeta.Read(root).Branch
	}
	know := w.Config.Knowledge(w.Dirs)
	path, _, err := Export(know, c)
	if err != nil {
		d.Outcome = "failed: export: " + err.Error()
		return d
	}
	if c.UserChars() < MinUserChars {
		d.Outcome = fmt.Sprintf("exported to %s; too thin to distill (%d characters typed)", path, c.UserChars())
		return d
	}
	personal := OpenPersonal(know, root)
	entries, err := personal.Entries()
	if err != nil {
		w.logf("personal log: %v", err)
	}
	prompt := Prompt(c, root, RecordedFrom(entries, LearningTitles(know)))
	// A failed call (no answer, a cut or empty one, an error object)
	// writes nothing, so the branch's handoff stays; the session is not
	// distilled, so the next Stop queues it again.
	reply, err := w.ask(prompt)
	answer := reply.Text
	if err != nil {
		d.Outcome = fmt.Sprintf("exported to %s; the model call failed, not distilled (the next Stop retries): %v", path, err)
		return d
	}
	dist, err := ParseDistillation(answer)
	if err != nil {
		d.Outcome = fmt.Sprintf("exported to %s; the model's answer was not read, not distilled (the next Stop retries): %v (it began %q)", path, err, redact.Excerpt(answer, 200))
		return d
	}
	dist = dist.Capped()
	written, err := w.write(dist, c, root, personal, know)
	if err != nil {
		d.Outcome = "failed: " + err.Error()
		return d
	}
	d.Distilled = true
	d.Outcome = fmt.Sprintf("exported to %s; distilled: %s", path, written)
	if reply.Costed {
		d.Outcome += fmt.Sprintf(" (model cost $%.4f)", reply.CostUSD)
	}
	if out, err := QMDUpdate(know); out != "" {
		w.logf("qmd update: %s", out)
	} else if err != nil {
		w.logf("qmd update: %v", err)
	}
	return d
}

// projectRoot is the task's project: the one the hook resolved, else package
// projroot's search from the session's directory (its git
// work tree, a .cairn above it, else that directory); "" when none
// of them is an absolute path (the worker's own directory is never taken
// for the session's).
func projectRoot(t queue.Task, c event.Conversation) string {
	if filepath.IsAbs(t.Project) {
		return t.Project
	}
	dir := t.Cwd
	if !filepath.IsAbs(dir) {
		dir = c.Cwd
	}
	if !filepath.IsAbs(dir) {
		return ""
	}
	return projroot.Search(dir).Dir
}

// write records a distillation: decisions and failures in the personal
// log, the branch's handoff, the learnings' files. It says what it wrote.
func (w *Worker) write(dist Distillation, c event.Conversation, root string, p Personal, know string) (string, error) {
	now := w.now()
	entries := Entries(dist, c, gitmeta.Read(root).UserName, now)
	if len(entries) > 0 {
		if err := fsx.MkdirPrivate(p.Dir); err != nil {
			return "", err
		}
		if _, err := p.Store().Insert(entries); err != nil {
			return "", fmt.Errorf("personal log: %w", err)
		}
	}
	if err := fsx.MkdirPrivate(p.Dir); err != nil {
		return "", err
	}
	if dist.HasHandoff {
		h := Handoff{Branch: c.Branch, Session: c.Session, Written: now, Items: dist.Handoff}
		if err := p.WriteHandoff(h); err != nil {
			return "", fmt.Errorf("handoff: %w", err)
		}
	}
	if _, err := WriteDaily(know, c, dist); err != nil {
		return "", fmt.Errorf("daily log: %w", err)
	}
	learned := 0
	for _, l := range dist.Learnings {
		ok, err := WriteLearning(know, l, filepath.Base(root), c.Session, learnedOn(c, now))
		if err != nil {
			return "", fmt.Errorf("learning: %w", err)
		}
		if ok {
			learned++
		}
	}
	return fmt.Sprintf("%d decisions, %d failures, %d handoff items, %d learnings",
		len(dist.Decisions), len(dist.Failures), len(dist.Handoff), learned), nil
}

// SourceDistilled is the source of the entries the pipeline writes.
const SourceDistilled = "distilled"

// Entries turns a distillation's decisions and failures into personal
// entries (a failure is an investigation: what broke and why), their
// fields kept in the entry's detail.
func Entries(dist Distillation, c event.Conversation, author string, now time.Time) []knowledge.Entry {
	var out []knowledge.Entry
	add := func(typ, content string, tags []string, d *knowledge.Detail) {
		content = knowledge.CleanContent(content)
		if content == "" {
			return
		}
		e := knowledge.Entry{Type: typ, Content: content, Source: SourceDistilled, Tags: knowledge.CleanTags(tags),
			TS: now.Unix(), Author: author, Branch: c.Branch, Session: shortID(c.Session), Detail: d}
		e.Key = knowledge.MakeKey(e.Type, e.Content)
		out = append(out, e)
	}
	for _, d := range dist.Decisions {
		content := d.Summary
		if d.Rationale != "" {
			content += " Why: " + d.Rationale
		}
		if strings.TrimSpace(d.Summary) == "" {
			continue
		}
		add("decision", content, d.Tags, &knowledge.Detail{Context: d.Context, Alternatives: d.Alternatives, Rationale: d.Rationale})
	}
	for _, f := range dist.Failures {
		if strings.TrimSpace(f.Summary) == "" {
			continue
		}
		content := f.Summary
		if f.RootCause != "" {
			content += " Root cause: " + f.RootCause
		}
		add("investigation", content, append(List{"failure"}, f.Tags...),
			&knowledge.Detail{RootCause: f.RootCause, Resolution: f.Resolution, Prevention: f.Prevention})
	}
	return out
}

// ask runs the model under the config's timeout.
func (w *Worker) ask(prompt string) (model.Reply, error) {
	ask := w.Model
	if ask == nil {
		ask = model.Command(w.Config.Command(), filepath.Join(w.Dirs.State, "model"), w.Config.Timeout())
	}
	ctx, cancel := context.WithTimeout(context.Background(), w.Config.Timeout())
	defer cancel()
	return ask(ctx, prompt)
}

func (w *Worker) now() time.Time {
	if w.Now != nil {
		return w.Now()
	}
	return time.Now()
}

func (w *Worker) logf(format string, args ...any) {
	if w.Log != nil {
		fmt.Fprintf(w.Log, "%s %s\n", when.Machine(w.now()), fmt.Sprintf(format, args...))
	}
}

// QMDUpdate runs `qmd update` when qmd is on PATH, so that QMD's index
// sees the files just written under the knowledge directory know (it runs
// there, so a QMD project config the user keeps there is the one used);
// without qmd it does nothing. qmd update re-indexes every collection and
// never needs the network (embed, query and pull do; they are not run).
func QMDUpdate(know string) (string, error) {
	bin, err := exec.LookPath("qmd")
	if err != nil {
		return "", nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "update")
	cmd.Dir = know
	cmd.WaitDelay = 5 * time.Second
	detach.Group(cmd)
	// qmd resolves paths against PWD, not the working directory.
	cmd.Env = append(os.Environ(), detach.ChildEnv+"=1", "PWD="+know)
	out := model.NewCapped(4 << 10)
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%w: %s", err, strings.TrimSpace(out.String()))
	}
	return "ok", nil
}

// writeJSON writes v as JSON to path atomically.
func writeJSON(path string, v any) error {
	data, err := jsonMarshal(v)
	if err != nil {
		return err
	}
	return queue.WriteAtomic(path, data)
}

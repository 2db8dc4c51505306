package pipeline

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	"github.com/cairn-dev/cairn/helpers/internal/fsx"
	"github.com/cairn-dev/cairn/helpers/internal/pipeline/queue"
	"github.com/cairn-dev/cairn/helpers/internal/userconf"
)

// Results of a processed task, as [Status] sums them up.
const (
	ResultDistilled = "distilled"
	ResultSkipped   = "skipped"
	ResultFailed    = "failed"
)

// Status is the pipeline's account of itself: whether it is on, the
// model command and whether it is found, the tasks waiting, and the last
// outcome of each recent session.
type Status struct {
	On        bool     `json:"on"`
	Config    string   `json:"config"`
	Knowledge string   `json:"knowledge_dir"`
	Command   []string `json:"model_command"`
	// Found is where the model command's program is on PATH ("" when it
	// is not found: sessions are then exported, not distilled).
	Found   string    `json:"model_found"`
	Log     string    `json:"log"`
	Pending []Pending `json:"pending"`
	Recent  []Outcome `json:"recent"`
	// Problem is why the config could not be read (the pipeline is then
	// off until it is fixed).
	Problem string `json:"problem,omitempty"`
}

// Pending is a task waiting for the worker, or claimed by it.
type Pending struct {
	Session  string `json:"session"`
	Reason   string `json:"reason"`
	Agent    string `json:"agent"`
	Enqueued int64  `json:"enqueued"` // Unix nanoseconds
	Working  bool   `json:"working"`  // claimed by a worker now
}

// Outcome is the last processed task of a session.
type Outcome struct {
	Session  string `json:"session"`
	Reason   string `json:"reason"`
	Agent    string `json:"agent"`
	Finished int64  `json:"finished"` // Unix nanoseconds
	Result   string `json:"result"`   // ResultDistilled, ResultSkipped or ResultFailed
	Why      string `json:"why"`      // the worker's outcome, for people
}

// Judge sums up a done record: distilled, skipped (and why) or failed
// (and why), from what the worker recorded.
func Judge(d queue.Done) Outcome {
	o := Outcome{Session: d.Session, Reason: d.Reason, Agent: d.Agent, Finished: d.Finished, Why: d.Outcome}
	// A skip keeps the session's Distilled mark of an earlier task: the
	// outcome's words decide first.
	switch why := d.Outcome; {
	case strings.HasPrefix(why, "skipped: "):
		o.Result, o.Why = ResultSkipped, strings.TrimPrefix(why, "skipped: ")
	case strings.HasPrefix(why, "failed: ") || strings.HasPrefix(why, "poison: "):
		o.Result, o.Why = ResultFailed, strings.TrimPrefix(why, "failed: ")
	case d.Distilled:
		o.Result = ResultDistilled
	case strings.Contains(why, "too thin to distill"):
		o.Result = ResultSkipped
	default: // failed:, poison:, a model call that failed, an answer not read
		o.Result, o.Why = ResultFailed, strings.TrimPrefix(why, "failed: ")
	}
	return o
}

// ReadStatus reads the pipeline's state from the user's directories; at
// most recent sessions' outcomes, newest first.
func ReadStatus(getenv func(string) string, recent int) (Status, error) {
	d, err := userconf.UserDirs(getenv)
	if err != nil {
		return Status{}, err
	}
	st := Status{Config: filepath.Join(d.Config, "config.json"), Log: queue.LogPath(d), Pending: []Pending{}, Recent: []Outcome{}}
	c, err := userconf.LoadConfig(d)
	if err != nil {
		st.Problem = err.Error()
	}
	st.On = c.Pipeline && err == nil
	st.Knowledge = c.Knowledge(d)
	st.Command = c.Command()
	if p, err := exec.LookPath(st.Command[0]); err == nil {
		st.Found = p
	}
	q := queue.Open(d)
	for _, dir := range []struct {
		path    string
		working bool
	}{{q.Dir, false}, {filepath.Join(q.Dir, queue.WorkDir), true}} {
		for _, name := range taskFiles(dir.path) {
			var t queue.Task
			if queue.ReadTask(filepath.Join(dir.path, name), &t) == nil {
				st.Pending = append(st.Pending, Pending{Session: t.Session, Reason: t.Reason, Agent: t.Agent, Enqueued: t.Enqueued, Working: dir.working})
			}
		}
	}
	sort.SliceStable(st.Pending, func(a, b int) bool { return st.Pending[a].Enqueued < st.Pending[b].Enqueued })
	doneDir := filepath.Join(q.Dir, queue.DoneDir)
	for _, name := range taskFiles(doneDir) {
		var dn queue.Done
		if queue.ReadTask(filepath.Join(doneDir, name), &dn) == nil {
			st.Recent = append(st.Recent, Judge(dn))
		}
	}
	sort.SliceStable(st.Recent, func(a, b int) bool {
		if st.Recent[a].Finished != st.Recent[b].Finished {
			return st.Recent[a].Finished > st.Recent[b].Finished
		}
		return st.Recent[a].Session < st.Recent[b].Session
	})
	st.Recent = st.Recent[:min(len(st.Recent), recent)]
	return st, nil
}

// taskFiles lists the regular task files of dir, sorted (none when dir
// is missing).
func taskFiles(dir string) []string {
	ents, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	var out []string
	for _, e := range ents {
		if e.Type().IsRegular() && strings.HasSuffix(e.Name(), ".task") && !fsx.IsTemp(e.Name()) {
			out = append(out, e.Name())
		}
	}
	sort.Strings(out)
	return out
}

// LastOutcome is the outcome of session's last processed task, if any.
func LastOutcome(getenv func(string) string, session string) (Outcome, bool) {
	d, err := userconf.UserDirs(getenv)
	if err != nil {
		return Outcome{}, false
	}
	dn, ok := queue.Open(d).LastDone(session)
	if !ok {
		return Outcome{}, false
	}
	return Judge(dn), true
}

// Turn turns the person's pipeline on or off and says so on w.
func Turn(getenv func(string) string, on bool, w io.Writer) error {
	path, err := userconf.Turn(getenv, on)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "session pipeline %s (%s)\n", onOff(on), path)
	return nil
}

// WriteState says on w whether the person's pipeline is on, where that
// is set, and the knowledge directory.
func WriteState(getenv func(string) string, w io.Writer) error {
	on, path, knowledge, err := userconf.State(getenv)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "session pipeline %s (%s); knowledge directory %s\n", onOff(on), path, knowledge)
	return nil
}

func onOff(on bool) string {
	if on {
		return "on"
	}
	return "off"
}

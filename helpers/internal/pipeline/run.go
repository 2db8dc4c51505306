package pipeline

import (
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
	"github.com/cairn-dev/cairn/helpers/internal/pipeline/queue"
	"github.com/cairn-dev/cairn/helpers/internal/userconf"
)

// NewWorker is the worker for the user's directories and config (getenv
// reads the environment), reading transcripts with readers and writing
// its account to log.
func NewWorker(getenv func(string) string, readers map[string]Reader, log io.Writer) (*Worker, error) {
	u, err := userconf.Load(getenv)
	if err != nil {
		return nil, err
	}
	d, c := u.Dirs, u.Config
	return &Worker{Dirs: d, Config: c, Readers: readers, Log: log}, nil
}

// ErrOff: the pipeline is off, so nothing is queued.
var ErrOff = errors.New("the session pipeline is off")

// ErrNoSession: no session of the project is known to the pipeline.
var ErrNoSession = errors.New("no session of this project is known to the pipeline")

// HandoffNow queues the latest session started in the project at root
// past the gates, as the end of a session does, and returns its id; then
// the worker is started (or, with wait, run here until the queue is
// empty).
func HandoffNow(getenv func(string) string, root string, readers map[string]Reader, wait bool, log io.Writer) (string, error) {
	u, err := userconf.Load(getenv)
	if err != nil {
		return "", err
	}
	d, c := u.Dirs, u.Config
	if !c.Pipeline {
		return "", ErrOff
	}
	q := queue.Open(d)
	t, err := q.Last(root)
	if err != nil {
		return "", fmt.Errorf("%w (%s): sessions are noted when they start with the pipeline on", ErrNoSession, root)
	}
	t.Reason = queue.ReasonManual
	if _, err := q.Enqueue(t, true, time.Now()); err != nil {
		return "", err
	}
	if wait {
		w := &Worker{Dirs: d, Config: c, Readers: readers, Log: log}
		return t.Session, w.Run()
	}
	self, err := os.Executable()
	if err != nil {
		return "", err
	}
	return t.Session, queue.Spawn(self, d)
}

// ErrNotPersonal: a key is not among the developer's own entries.
var ErrNotPersonal = errors.New("no personal entry has this key")

// Promote adds the developer's own entries of keys to the team's log with
// add (the project's normal insert), their fields kept, and returns, per
// key, the team key and whether a line was added. A key that is not a
// personal entry fails the whole promotion before anything is added.
func Promote(p Personal, keys []string, add func(knowledge.Entry) (string, bool, error)) ([]Promoted, error) {
	entries, err := p.Entries()
	if err != nil {
		return nil, err
	}
	byKey := map[string]knowledge.Entry{}
	for _, e := range entries {
		byKey[e.Key] = e
	}
	var chosen []knowledge.Entry
	for _, k := range keys {
		e, ok := byKey[k]
		if !ok {
			return nil, fmt.Errorf("%w: %s (cairn promote, without keys, lists them)", ErrNotPersonal, k)
		}
		chosen = append(chosen, e)
	}
	var out []Promoted
	for _, e := range chosen {
		e.TS = time.Now().Unix()
		key, added, err := add(e)
		if err != nil {
			return out, err
		}
		out = append(out, Promoted{Key: key, Added: added})
	}
	return out, nil
}

// Promoted is one promoted entry.
type Promoted struct {
	Key   string `json:"key"`
	Added bool   `json:"added"`
}

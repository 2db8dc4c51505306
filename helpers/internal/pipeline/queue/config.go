// Package queue is the producer's side of cairn's personal session
// pipeline: the user's own settings and directories (XDG base directories,
// outside every repository) and the queue of sessions to distill, which
// the hooks write and the worker drains. It imports nothing of cairn but
// package event and the standard library's few packages, so that the Stop
// hook's fast path can enqueue before the rest of cairn starts (see
// hookgate): enqueueing reads no transcript and costs a few stats and one
// small write.
package queue

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/cairn-dev/cairn/helpers/internal/fsx"
)

// Dirs are the user's cairn directories.
type Dirs struct {
	Config string // $XDG_CONFIG_HOME/cairn: config.json
	Data   string // $XDG_DATA_HOME/cairn: the default knowledge directory
	State  string // $XDG_STATE_HOME/cairn: the queue, logs
}

// ErrNoHome: neither the XDG variable nor HOME says where the user's
// directories are.
var ErrNoHome = errors.New("no HOME and no XDG base directory set")

// UserDirs resolves the user's cairn directories from the environment
// (XDG_CONFIG_HOME, XDG_DATA_HOME, XDG_STATE_HOME, else under HOME), on
// every OS alike.
func UserDirs(getenv func(string) string) (Dirs, error) {
	base := func(xdg, fallback string) (string, error) {
		if d := getenv(xdg); filepath.IsAbs(d) {
			return filepath.Join(d, "cairn"), nil
		}
		home := getenv("HOME")
		if home == "" {
			return "", fmt.Errorf("%w (%s)", ErrNoHome, xdg)
		}
		return filepath.Join(home, fallback, "cairn"), nil
	}
	var d Dirs
	var err error
	if d.Config, err = base("XDG_CONFIG_HOME", ".config"); err != nil {
		return d, err
	}
	if d.Data, err = base("XDG_DATA_HOME", filepath.Join(".local", "share")); err != nil {
		return d, err
	}
	d.State, err = base("XDG_STATE_HOME", filepath.Join(".local", "state"))
	return d, err
}

// Config is the user's own config.json. The zero Config is the default:
// the pipeline off (it spends model calls), headless runs not exported,
// the knowledge directory under the XDG data directory.
type Config struct {
	// Pipeline turns the session pipeline on.
	Pipeline bool `json:"pipeline"`
	// Headless also exports headless (claude -p) sessions.
	Headless bool `json:"headless,omitempty"`
	// KnowledgeDir, when set, is the knowledge directory (a synced folder,
	// an Obsidian vault) instead of the XDG data directory.
	KnowledgeDir string `json:"knowledge_dir,omitempty"`
	// ModelCommand, when set, replaces `claude -p`: a command that reads
	// a prompt on stdin and prints the answer.
	ModelCommand []string `json:"model_command,omitempty"`
	// Model is the model `claude -p` asks (DefaultModel when empty).
	Model string `json:"model,omitempty"`
	// TimeoutSeconds bounds one model call (DefaultTimeout when zero).
	TimeoutSeconds int `json:"timeout_seconds,omitempty"`
	// WikiDaily lets the worker compile the wiki by itself, at most once a
	// day.
	WikiDaily bool `json:"wiki_daily,omitempty"`
}

// DefaultModel is the small model the default command asks.
const DefaultModel = "haiku"

// DefaultTimeout bounds a model call.
const DefaultTimeout = 120 * time.Second

// Timeout is how long a model call may take.
func (c Config) Timeout() time.Duration {
	if c.TimeoutSeconds > 0 {
		return time.Duration(c.TimeoutSeconds) * time.Second
	}
	return DefaultTimeout
}

// Command is the model command: ModelCommand, else `claude -p` with the
// model, its JSON result out (the answer and its cost), no tools, no hooks
// (disableAllHooks) and no
// transcript of its own.
func (c Config) Command() []string {
	if len(c.ModelCommand) > 0 {
		return c.ModelCommand
	}
	model := c.Model
	if model == "" {
		model = DefaultModel
	}
	return []string{"claude", "-p", "--model", model, "--output-format", "json", "--tools", "",
		"--no-session-persistence", "--settings", `{"disableAllHooks":true}`}
}

// configName is the config file's name in Dirs.Config.
const configName = "config.json"

// maxConfig caps the config file read.
const maxConfig = 1 << 20

// LoadConfig reads the user's config; a missing file is the default.
func LoadConfig(d Dirs) (Config, error) {
	var c Config
	path := filepath.Join(d.Config, configName)
	data, err := fsx.ReadRegular(path, maxConfig)
	if errors.Is(err, fs.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return c, err
	}
	if err := json.Unmarshal(data, &c); err != nil {
		return c, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// SaveConfig writes the user's config atomically, keeping keys it does not
// know (a newer cairn's).
func SaveConfig(d Dirs, c Config) error {
	path := filepath.Join(d.Config, configName)
	fields := map[string]any{}
	if data, err := fsx.ReadRegular(path, maxConfig); err == nil {
		_ = json.Unmarshal(data, &fields) // an unreadable file is replaced
	}
	own, err := json.Marshal(c)
	if err != nil {
		return err
	}
	var ownFields map[string]any
	if err := json.Unmarshal(own, &ownFields); err != nil {
		return err
	}
	for _, k := range []string{"pipeline", "headless", "knowledge_dir", "model_command", "model", "timeout_seconds", "wiki_daily"} {
		delete(fields, k)
	}
	for k, v := range ownFields {
		fields[k] = v
	}
	out, err := json.MarshalIndent(fields, "", "  ")
	if err != nil {
		return err
	}
	return WriteAtomic(path, append(out, '\n'))
}

// Knowledge is the knowledge directory c names, else d's data directory.
func (c Config) Knowledge(d Dirs) string {
	if c.KnowledgeDir != "" {
		return c.KnowledgeDir
	}
	return d.Data
}

// WriteAtomic writes data to path through a temporary file in the same
// directory and a rename, creating the directory if needed.
func WriteAtomic(path string, data []byte) error { return writeFile(path, data, true) }

// writeFile writes data to path through a temporary file and a rename;
// durable syncs it to disk first.
func writeFile(path string, data []byte, durable bool) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, werr := f.Write(data)
	var serr error
	if durable {
		serr = f.Sync()
	}
	cerr := f.Close()
	if err := errors.Join(werr, serr, cerr); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// Turn sets the pipeline on or off in the user's config (found through
// getenv) and returns the config file's path.
func Turn(getenv func(string) string, on bool) (string, error) {
	d, err := UserDirs(getenv)
	if err != nil {
		return "", err
	}
	c, err := LoadConfig(d)
	if err != nil {
		return "", err
	}
	c.Pipeline = on
	return filepath.Join(d.Config, configName), SaveConfig(d, c)
}

// State says whether the pipeline is on, and where its config and the
// knowledge directory are, for doctor and `cairn pipeline`.
func State(getenv func(string) string) (on bool, config, knowledge string, err error) {
	d, err := UserDirs(getenv)
	if err != nil {
		return false, "", "", err
	}
	c, err := LoadConfig(d)
	return c.Pipeline, filepath.Join(d.Config, configName), c.Knowledge(d), err
}

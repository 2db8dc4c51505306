// Package userconf is the person's own cairn settings and directories,
// outside every repository: $XDG_CONFIG_HOME/cairn/config.json (the
// session pipeline's switch, the knowledge directory, the model command)
// and the XDG data and state directories under which the pipeline, the
// personal knowledge and the personal wiki live. It is a leaf: the
// standard library and the leaf packages fsx and projroot only, so the capture hook's fast path
// (the pipeline's producer, package queue) can read it.
//
// A hook loads it once per event (see session/record's Session.User),
// a command once per use.
package userconf

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/helpers/internal/fsx"
	"github.com/cairn-dev/cairn/helpers/internal/projroot"
)

// Dirs are the user's cairn directories.
type Dirs struct {
	Config string // $XDG_CONFIG_HOME/cairn: config.json
	Data   string // $XDG_DATA_HOME/cairn: the default knowledge directory
	State  string // $XDG_STATE_HOME/cairn: the queue, logs
	// Home is $HOME when it is absolute: what ~ and $HOME in the config's
	// paths stand for.
	Home string
}

// ErrNoHome: neither the XDG variable nor HOME says where the user's
// directories are.
var ErrNoHome = errors.New("no absolute HOME and no XDG base directory set")

// UserDirs resolves the user's cairn directories from the environment
// (XDG_CONFIG_HOME, XDG_DATA_HOME, XDG_STATE_HOME, else under HOME), on
// every OS alike. A relative XDG variable or HOME counts as unset: the
// directories never depend on the working directory.
func UserDirs(getenv func(string) string) (Dirs, error) {
	var d Dirs
	if home := getenv("HOME"); filepath.IsAbs(home) {
		d.Home = filepath.Clean(home)
	}
	base := func(xdg, fallback string) (string, error) {
		if dir := getenv(xdg); filepath.IsAbs(dir) {
			return filepath.Join(dir, "cairn"), nil
		}
		if d.Home == "" {
			return "", fmt.Errorf("%w (%s)", ErrNoHome, xdg)
		}
		return filepath.Join(d.Home, fallback, "cairn"), nil
	}
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

// User is the person's directories and config, as [Load] found them.
type User struct {
	Dirs   Dirs
	Config Config
}

// Load finds the user's directories through getenv and reads the config
// (see [UserDirs], [LoadConfig]); an error wraps [ErrNoHome] when there is
// no home to find them by, and [ErrPath] when the config names an
// unusable path (the config is returned with it).
func Load(getenv func(string) string) (User, error) {
	d, err := UserDirs(getenv)
	if err != nil {
		return User{Dirs: d}, err
	}
	c, err := LoadConfig(d)
	return User{Dirs: d, Config: c}, err
}

// Loader is [Load] with getenv, for the callers that load on demand.
func Loader(getenv func(string) string) func() (User, error) {
	return func() (User, error) { return Load(getenv) }
}

// Knowledge is the user's knowledge directory (see [Config.Knowledge]).
func (u User) Knowledge() string { return u.Config.Knowledge(u.Dirs) }

// Config is the user's own config.json. The zero Config is the default:
// the pipeline off (it spends model calls), headless runs not exported,
// the knowledge directory under the XDG data directory.
type Config struct {
	// Pipeline turns the session pipeline on.
	Pipeline bool `json:"pipeline"`
	// Headless also exports headless (claude -p) sessions.
	Headless bool `json:"headless,omitempty"`
	// KnowledgeDir, when set, is the knowledge directory (a synced folder,
	// an Obsidian vault) instead of the XDG data directory: an absolute
	// path, where a leading ~ or $HOME stands for the home directory (see
	// [Config.Check]).
	KnowledgeDir string `json:"knowledge_dir,omitempty"`
	// KnowledgeDirInRepo allows a KnowledgeDir inside a git work tree,
	// where one `git add -A` would commit every session.
	KnowledgeDirInRepo bool `json:"knowledge_dir_in_repo,omitempty"`
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
	// Guards "ask" is this person's opt-in to the must-check guards: in a
	// session they sit at, before a tool call that would change what a
	// must-check protects, they are asked to confirm (see [Config.Asks]).
	// Anything else ("off", unset) leaves them off: a team's
	// .cairn/config.json may only recommend them.
	Guards string `json:"guards,omitempty"`
	// Holdout, when set, is this person's share of sessions without
	// recall, over the team's (.cairn/config.json "holdout"); 0 turns the
	// holdout off for them.
	Holdout *float64 `json:"holdout,omitempty"`
}

// GuardsAsk is the value of [Config.Guards] that turns the guards on.
const GuardsAsk = "ask"

// Asks reports whether this person turned the must-check guards on.
func (c Config) Asks() bool { return c.Guards == GuardsAsk }

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

// ErrPath: a path in the user's config is unusable (relative, or inside
// a git work tree); the pipeline stays off until it is fixed.
var ErrPath = errors.New("unusable path in the config")

// LoadConfig reads the user's config; a missing file is the default. A
// config whose paths fail [Config.Check] is returned with an error that
// wraps [ErrPath], so that only turning the pipeline off goes on with it.
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
	if err := c.Check(d); err != nil {
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
	for _, k := range configKeys() {
		delete(fields, k)
	}
	for k, v := range ownFields {
		fields[k] = v
	}
	out, err := json.MarshalIndent(fields, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(d.Config, 0o755); err != nil {
		return err
	}
	return fsx.NewRoot(d.Config).WriteAtomic(configName, append(out, '\n'), 0o600)
}

// configKeys are the JSON keys of every field of [Config], read from the
// struct, so that a key of this version is never kept from an older file
// when the person cleared it.
func configKeys() []string {
	t := reflect.TypeFor[Config]()
	keys := make([]string, 0, t.NumField())
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" {
			keys = append(keys, name)
		}
	}
	return keys
}

// Knowledge is the knowledge directory c names (a leading ~ or $HOME
// expanded to d.Home), else d's data directory. Only a config that passed
// [Config.Check] names a usable one.
func (c Config) Knowledge(d Dirs) string {
	if c.KnowledgeDir != "" {
		return expandHome(c.KnowledgeDir, d.Home)
	}
	return d.Data
}

// expandHome replaces a leading ~, $HOME or ${HOME} of p with home, when
// there is one ("~user" is not expanded).
func expandHome(p, home string) string {
	if home == "" {
		return p
	}
	for _, prefix := range []string{"~", "${HOME}", "$HOME"} {
		rest, ok := strings.CutPrefix(p, prefix)
		if ok && (rest == "" || rest[0] == '/' || rest[0] == filepath.Separator) {
			return filepath.Join(home, rest)
		}
	}
	return p
}

// Check refuses a knowledge_dir that is not absolute once ~ and $HOME are
// expanded (the worker would write wherever it was started), or that is
// inside a git work tree, unless knowledge_dir_in_repo says so. The error
// names the setting and wraps [ErrPath].
func (c Config) Check(d Dirs) error {
	if c.KnowledgeDir == "" {
		return nil
	}
	dir := c.Knowledge(d)
	if !filepath.IsAbs(dir) {
		why := "is relative"
		if d.Home == "" && expandHome(c.KnowledgeDir, string(filepath.Separator)) != c.KnowledgeDir {
			why = "starts with ~ or $HOME, but HOME is not set to an absolute path"
		}
		return fmt.Errorf("%w: knowledge_dir %q %s: write an absolute path (a leading ~/ or $HOME/ is expanded)", ErrPath, c.KnowledgeDir, why)
	}
	if c.KnowledgeDirInRepo {
		return nil
	}
	if tree, ok := WorkTree(dir); ok {
		return fmt.Errorf("%w: knowledge_dir %s is inside the git work tree %s, one git add from a commit: choose a directory outside every repository, or set \"knowledge_dir_in_repo\": true", ErrPath, dir, tree)
	}
	return nil
}

// WorkTree reports the git work tree that holds dir (which need not
// exist), looking for .git in dir and each parent, as written and with
// symbolic links resolved.
func WorkTree(dir string) (string, bool) {
	for _, p := range []string{filepath.Clean(dir), resolveLinks(dir)} {
		if root, ok := projroot.GitRoot(p); ok {
			return root, true
		}
	}
	return "", false
}

// resolveLinks is dir with the symbolic links of its longest existing
// prefix resolved.
func resolveLinks(dir string) string {
	rest := ""
	for d := filepath.Clean(dir); ; {
		if r, err := filepath.EvalSymlinks(d); err == nil {
			return filepath.Join(r, rest)
		}
		parent := filepath.Dir(d)
		if parent == d {
			return filepath.Clean(dir)
		}
		rest = filepath.Join(filepath.Base(d), rest)
		d = parent
	}
}

// Turn sets the pipeline on or off in the user's config (found through
// getenv) and returns the config file's path. A config with an unusable
// path ([ErrPath]) can be turned off, never on.
func Turn(getenv func(string) string, on bool) (string, error) {
	return update(getenv, !on, func(c *Config) { c.Pipeline = on })
}

// update loads the user's config (found through getenv), changes it with
// change and saves it, keeping every other setting, and returns the config
// file's path. A config with an unusable path ([ErrPath]) is changed only
// when badPathOK.
func update(getenv func(string) string, badPathOK bool, change func(*Config)) (string, error) {
	d, err := UserDirs(getenv)
	if err != nil {
		return "", err
	}
	path := filepath.Join(d.Config, configName)
	c, err := LoadConfig(d)
	if err != nil && (!badPathOK || !errors.Is(err, ErrPath)) {
		return path, err
	}
	change(&c)
	return path, SaveConfig(d, c)
}

// SetGuards turns the person's must-check guards on ("ask") or off in
// their config (found through getenv), keeping every other setting, and
// returns the config file's path.
func SetGuards(getenv func(string) string, on bool) (string, error) {
	return update(getenv, true, func(c *Config) {
		c.Guards = "off"
		if on {
			c.Guards = GuardsAsk
		}
	})
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

// SetHoldout sets the person's share of sessions without recall (0 turns
// a team's holdout off for them) and returns the config file's path.
func SetHoldout(getenv func(string) string, share float64) (string, error) {
	return update(getenv, true, func(c *Config) { c.Holdout = &share })
}

// Holdout is the person's own holdout share (see [Config.Holdout]), nil
// when they set none or their config cannot be read.
func Holdout(getenv func(string) string) *float64 {
	u, err := Load(getenv)
	if err != nil && !errors.Is(err, ErrPath) {
		return nil
	}
	return u.Config.Holdout
}

package userconf_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/userconf"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestUserDirs(t *testing.T) {
	d, err := userconf.UserDirs(env(map[string]string{"HOME": "/home/ada"}))
	if err != nil || d.Config != "/home/ada/.config/cairn" || d.Data != "/home/ada/.local/share/cairn" || d.State != "/home/ada/.local/state/cairn" {
		t.Errorf("HOME only: %+v, %v", d, err)
	}
	d, err = userconf.UserDirs(env(map[string]string{"HOME": "/home/ada", "XDG_CONFIG_HOME": "/cfg", "XDG_DATA_HOME": "relative/ignored", "XDG_STATE_HOME": "/st"}))
	if err != nil || d.Config != "/cfg/cairn" || d.Data != "/home/ada/.local/share/cairn" || d.State != "/st/cairn" {
		t.Errorf("XDG: %+v, %v", d, err)
	}
	if _, err := userconf.UserDirs(env(nil)); !errors.Is(err, userconf.ErrNoHome) {
		t.Errorf("no HOME: %v", err)
	}
}

// The pipeline is off until turned on; saving keeps keys a newer cairn
// wrote.
func TestConfig(t *testing.T) {
	d := userconf.Dirs{Config: filepath.Join(t.TempDir(), "cairn")}
	c, err := userconf.LoadConfig(d)
	if err != nil || c.Pipeline {
		t.Fatalf("default config = %+v, %v", c, err)
	}
	os.MkdirAll(d.Config, 0o755)
	os.WriteFile(filepath.Join(d.Config, "config.json"), []byte(`{"future_key": 7, "pipeline": false}`), 0o644)
	c.Pipeline = true
	if err := userconf.SaveConfig(d, c); err != nil {
		t.Fatal(err)
	}
	if c, err = userconf.LoadConfig(d); err != nil || !c.Pipeline {
		t.Fatalf("after on: %+v, %v", c, err)
	}
	var raw map[string]any
	data, _ := os.ReadFile(filepath.Join(d.Config, "config.json"))
	if json.Unmarshal(data, &raw) != nil || raw["future_key"] != float64(7) {
		t.Errorf("an unknown key was lost: %s", data)
	}
	os.WriteFile(filepath.Join(d.Config, "config.json"), []byte(`{`), 0o644)
	if _, err := userconf.LoadConfig(d); err == nil || !strings.Contains(err.Error(), "config.json") {
		t.Errorf("a broken config: %v", err)
	}
	if got := (userconf.Config{KnowledgeDir: "/vault"}).Knowledge(userconf.Dirs{Data: "/data"}); got != "/vault" {
		t.Errorf("Knowledge = %s", got)
	}
}

// knowledge_dir expands a leading ~ and $HOME; a relative path, a ~ with
// no HOME to expand it, and a directory inside a git work tree are
// refused with an error that names the setting, unless
// knowledge_dir_in_repo allows the last.
func TestKnowledgeDirChecked(t *testing.T) {
	home := t.TempDir()
	d := userconf.Dirs{Home: home, Data: filepath.Join(home, "data")}
	for in, want := range map[string]string{
		"~":                 home,
		"~/notes/cairn":     filepath.Join(home, "notes", "cairn"),
		"$HOME/notes":       filepath.Join(home, "notes"),
		"${HOME}/notes":     filepath.Join(home, "notes"),
		"/srv/vault":        "/srv/vault",
		"/srv/~/not-home":   "/srv/~/not-home",
		"~other/notes":      "~other/notes",
		"$HOMEWORK/notes":   "$HOMEWORK/notes",
		"notes/cairn":       "notes/cairn",
		"./notes":           "./notes",
		"~/../outside/home": filepath.Join(filepath.Dir(home), "outside", "home"),
	} {
		c := userconf.Config{KnowledgeDir: in}
		if got := c.Knowledge(d); got != want {
			t.Errorf("Knowledge(%q) = %q, want %q", in, got, want)
		}
		err := c.Check(d)
		if filepath.IsAbs(want) != (err == nil) {
			t.Errorf("Check(%q) = %v", in, err)
		}
		if err != nil && (!errors.Is(err, userconf.ErrPath) || !strings.Contains(err.Error(), "knowledge_dir")) {
			t.Errorf("Check(%q): the error does not name the setting: %v", in, err)
		}
	}
	if err := (userconf.Config{KnowledgeDir: "~/notes"}).Check(userconf.Dirs{}); !errors.Is(err, userconf.ErrPath) || !strings.Contains(err.Error(), "HOME") {
		t.Errorf("~ without HOME: %v", err)
	}

	repo := filepath.Join(home, "public-oss")
	os.MkdirAll(filepath.Join(repo, ".git"), 0o755)
	inRepo := userconf.Config{KnowledgeDir: filepath.Join(repo, "notes", "cairn")}
	if err := inRepo.Check(d); !errors.Is(err, userconf.ErrPath) || !strings.Contains(err.Error(), "knowledge_dir_in_repo") {
		t.Errorf("a knowledge_dir inside a work tree: %v", err)
	}
	inRepo.KnowledgeDirInRepo = true
	if err := inRepo.Check(d); err != nil {
		t.Errorf("knowledge_dir_in_repo: %v", err)
	}
	// A link outside every repository to a directory inside one.
	if err := os.Symlink(repo, filepath.Join(home, "link")); err == nil {
		if err := (userconf.Config{KnowledgeDir: "~/link/notes"}).Check(d); !errors.Is(err, userconf.ErrPath) {
			t.Errorf("a link into a work tree: %v", err)
		}
	}
	// A worktree's .git is a file.
	wt := filepath.Join(home, "wt")
	os.MkdirAll(wt, 0o755)
	os.WriteFile(filepath.Join(wt, ".git"), []byte("gitdir: /elsewhere\n"), 0o644)
	if err := (userconf.Config{KnowledgeDir: "~/wt/notes"}).Check(d); !errors.Is(err, userconf.ErrPath) {
		t.Errorf("a knowledge_dir inside a linked worktree: %v", err)
	}
}

// A config with an unusable knowledge_dir loads with an error (the
// pipeline stays off), can be turned off but not on, and a relative HOME
// is no home: no directory of cairn's depends on the working directory.
func TestConfigWithBadPath(t *testing.T) {
	home := t.TempDir()
	getenv := env(map[string]string{"HOME": home})
	d, err := userconf.UserDirs(getenv)
	if err != nil || d.Home != home {
		t.Fatalf("UserDirs: %+v, %v", d, err)
	}
	os.MkdirAll(d.Config, 0o755)
	os.WriteFile(filepath.Join(d.Config, "config.json"), []byte(`{"pipeline": true, "knowledge_dir": "notes/cairn"}`), 0o644)
	if c, err := userconf.LoadConfig(d); !errors.Is(err, userconf.ErrPath) || !c.Pipeline {
		t.Errorf("LoadConfig: %+v, %v", c, err)
	}
	if on, _, _, err := userconf.State(getenv); !errors.Is(err, userconf.ErrPath) || !on {
		t.Errorf("State: %v, %v", on, err)
	}
	if _, err := userconf.Turn(getenv, true); !errors.Is(err, userconf.ErrPath) {
		t.Errorf("turned on with a relative knowledge_dir: %v", err)
	}
	if _, err := userconf.Turn(getenv, false); err != nil {
		t.Errorf("turning off: %v", err)
	}
	data, _ := os.ReadFile(filepath.Join(d.Config, "config.json"))
	if !strings.Contains(string(data), `"pipeline": false`) || !strings.Contains(string(data), `"knowledge_dir": "notes/cairn"`) {
		t.Errorf("after off:\n%s", data)
	}
	if _, err := userconf.UserDirs(env(map[string]string{"HOME": "relative/home"})); !errors.Is(err, userconf.ErrNoHome) {
		t.Errorf("a relative HOME: %v", err)
	}
}

// What the knowledge_dir check adds to the Stop hook's producer, which
// loads the config: a few stats up the directory's parents.
func BenchmarkLoadConfig(b *testing.B) {
	for name, config := range map[string]string{
		"default":       `{"pipeline": true}`,
		"knowledge_dir": `{"pipeline": true, "knowledge_dir": "~/vault/notes/cairn"}`,
	} {
		b.Run(name, func(b *testing.B) {
			home := b.TempDir()
			d := userconf.Dirs{Home: home, Config: filepath.Join(home, ".config", "cairn")}
			os.MkdirAll(d.Config, 0o755)
			os.WriteFile(filepath.Join(d.Config, "config.json"), []byte(config), 0o644)
			for b.Loop() {
				if _, err := userconf.LoadConfig(d); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// Saving a config replaces every key the struct knows, guards included:
// a key set in the file and cleared in the struct is gone, whatever field
// it is, while a key of a newer cairn stays.
func TestSaveConfigReplacesEveryKnownKey(t *testing.T) {
	dir := t.TempDir()
	d := userconf.Dirs{Home: dir, Config: filepath.Join(dir, "config"), Data: filepath.Join(dir, "data"), State: filepath.Join(dir, "state")}
	full := userconf.Config{Pipeline: true, Headless: true, KnowledgeDir: "/k", KnowledgeDirInRepo: true,
		ModelCommand: []string{"m"}, Model: "x", TimeoutSeconds: 3, WikiDaily: true, Guards: "off"}
	data, err := json.Marshal(full)
	if err != nil {
		t.Fatal(err)
	}
	var set map[string]any
	if err := json.Unmarshal(data, &set); err != nil {
		t.Fatal(err)
	}
	set["from_a_newer_cairn"] = 1
	data, _ = json.Marshal(set)
	if err := os.MkdirAll(d.Config, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(d.Config, "config.json"), data, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := userconf.SaveConfig(d, userconf.Config{}); err != nil {
		t.Fatal(err)
	}
	out, err := os.ReadFile(filepath.Join(d.Config, "config.json"))
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	for k, v := range got {
		if k == "from_a_newer_cairn" || k == "pipeline" && v == false {
			continue
		}
		t.Errorf("SaveConfig kept %q = %v from the old file", k, v)
	}
	if _, ok := got["from_a_newer_cairn"]; !ok {
		t.Error("SaveConfig dropped a key it does not know")
	}
}

// The guards are the person's opt-in: off unless their own config says
// "ask"; `cairn guards on|off` saves it, and a saved config that clears
// it drops the key (it is one of the keys SaveConfig owns).
func TestGuardsOptIn(t *testing.T) {
	home := t.TempDir()
	getenv := env(map[string]string{"HOME": home})
	u, err := userconf.Load(getenv)
	if err != nil || u.Config.Asks() {
		t.Fatalf("guards are on by default: %+v, %v", u.Config, err)
	}
	if _, err := userconf.SetGuards(getenv, true); err != nil {
		t.Fatal(err)
	}
	if u, _ = userconf.Load(getenv); !u.Config.Asks() || u.Config.Guards != userconf.GuardsAsk {
		t.Fatalf("after on: %+v", u.Config)
	}
	if _, err := userconf.SetGuards(getenv, false); err != nil {
		t.Fatal(err)
	}
	if u, _ = userconf.Load(getenv); u.Config.Asks() {
		t.Fatalf("after off: %+v", u.Config)
	}
	u.Config.Guards = ""
	if err := userconf.SaveConfig(u.Dirs, u.Config); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(filepath.Join(u.Dirs.Config, "config.json"))
	if strings.Contains(string(data), "guards") {
		t.Errorf("a cleared guards setting stayed in the file: %s", data)
	}
}

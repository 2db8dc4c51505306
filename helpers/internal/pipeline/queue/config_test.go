package queue_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/pipeline/queue"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestUserDirs(t *testing.T) {
	d, err := queue.UserDirs(env(map[string]string{"HOME": "/home/ada"}))
	if err != nil || d.Config != "/home/ada/.config/cairn" || d.Data != "/home/ada/.local/share/cairn" || d.State != "/home/ada/.local/state/cairn" {
		t.Errorf("HOME only: %+v, %v", d, err)
	}
	d, err = queue.UserDirs(env(map[string]string{"HOME": "/home/ada", "XDG_CONFIG_HOME": "/cfg", "XDG_DATA_HOME": "relative/ignored", "XDG_STATE_HOME": "/st"}))
	if err != nil || d.Config != "/cfg/cairn" || d.Data != "/home/ada/.local/share/cairn" || d.State != "/st/cairn" {
		t.Errorf("XDG: %+v, %v", d, err)
	}
	if _, err := queue.UserDirs(env(nil)); !errors.Is(err, queue.ErrNoHome) {
		t.Errorf("no HOME: %v", err)
	}
}

// The pipeline is off until turned on; saving keeps keys a newer cairn
// wrote.
func TestConfig(t *testing.T) {
	d := queue.Dirs{Config: filepath.Join(t.TempDir(), "cairn")}
	c, err := queue.LoadConfig(d)
	if err != nil || c.Pipeline {
		t.Fatalf("default config = %+v, %v", c, err)
	}
	os.MkdirAll(d.Config, 0o755)
	os.WriteFile(filepath.Join(d.Config, "config.json"), []byte(`{"future_key": 7, "pipeline": false}`), 0o644)
	c.Pipeline = true
	if err := queue.SaveConfig(d, c); err != nil {
		t.Fatal(err)
	}
	if c, err = queue.LoadConfig(d); err != nil || !c.Pipeline {
		t.Fatalf("after on: %+v, %v", c, err)
	}
	var raw map[string]any
	data, _ := os.ReadFile(filepath.Join(d.Config, "config.json"))
	if json.Unmarshal(data, &raw) != nil || raw["future_key"] != float64(7) {
		t.Errorf("an unknown key was lost: %s", data)
	}
	os.WriteFile(filepath.Join(d.Config, "config.json"), []byte(`{`), 0o644)
	if _, err := queue.LoadConfig(d); err == nil || !strings.Contains(err.Error(), "config.json") {
		t.Errorf("a broken config: %v", err)
	}
	if got := (queue.Config{KnowledgeDir: "/vault"}).Knowledge(queue.Dirs{Data: "/data"}); got != "/vault" {
		t.Errorf("Knowledge = %s", got)
	}
}

package knowledge

import (
	"encoding/json"
	"fmt"
)

// Config is the team's settings in .cairn/config.json. Every field is
// optional; a missing file means the defaults.
type Config struct {
	Recall struct {
		// Budget is the SessionStart injection size in UTF-16 code units,
		// as Claude Code counts characters (default 6000, at most 9000).
		Budget int `json:"budget"`
		// PerPrompt turns per-prompt recall (UserPromptSubmit) on or off
		// (default on).
		PerPrompt *bool `json:"per_prompt"`
	} `json:"recall"`
	// StatusLine shows the person one quiet line when a session starts
	// (how many entries were recalled) and when a capture lands
	// (default on).
	StatusLine *bool `json:"status_line"`
	Capture    struct {
		// SubagentNudge asks a subagent that worked and recorded nothing,
		// once, to record what it learned (default off).
		SubagentNudge bool `json:"subagent_nudge"`
	} `json:"capture"`
}

// LoadConfig reads .cairn/config.json; a missing file gives the defaults.
func (s *Store) LoadConfig() (Config, error) {
	var c Config
	data, err := s.ReadFile(ConfigName, MaxConfigBytes)
	if err != nil || data == nil {
		return c, err
	}
	if err := json.Unmarshal(data, &c); err != nil {
		return c, fmt.Errorf("%s: %w", ConfigName, err)
	}
	return c, nil
}

// ShowStatus reports whether hooks show the person their status line.
func (c Config) ShowStatus() bool { return c.StatusLine == nil || *c.StatusLine }

package knowledge

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
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
	// MinVersion is the oldest cairn the team's log asks for; an older
	// cairn tells the session how to update and stays out ("" for any).
	MinVersion string `json:"min_version"`
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

// VersionLess reports whether version a (dotted numbers, "v" prefix and any
// "-suffix" ignored) is older than b. A part that is not a number counts
// as 0.
func VersionLess(a, b string) bool {
	pa, pb := versionParts(a), versionParts(b)
	for i := 0; i < max(len(pa), len(pb)); i++ {
		var x, y int
		if i < len(pa) {
			x = pa[i]
		}
		if i < len(pb) {
			y = pb[i]
		}
		if x != y {
			return x < y
		}
	}
	return false
}

func versionParts(v string) []int {
	v = strings.TrimPrefix(strings.TrimSpace(v), "v")
	if i := strings.IndexAny(v, "-+ "); i >= 0 {
		v = v[:i]
	}
	var out []int
	for _, p := range strings.Split(v, ".") {
		n, _ := strconv.Atoi(p)
		out = append(out, n)
	}
	return out
}

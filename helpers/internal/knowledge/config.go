package knowledge

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/cairn-dev/cairn/helpers/internal/jsonfield"
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
	// InstallHint is the command that installs cairn on a teammate's
	// machine, as the person who wired the project installed it (cairn
	// init records it; --install-hint sets it). The launcher and the
	// min_version notice show it, through [CleanInstallHint].
	InstallHint string `json:"install_hint"`
	// Guards "ask" recommends the must-check guards to the team's people;
	// it turns nothing on. Guards can ask a person before a tool call, so
	// only the person turns them on, in their own config (`cairn guards
	// on`); cairn doctor tells them the team recommends it. A committed
	// file never makes cairn ask, allow or deny a call.
	Guards string `json:"guards,omitempty"`
	// HoldForTool leaves the team notes anchored to files out of the
	// session start and the prompts, for an agent that is given them
	// before a tool touches the file (default on; false shows them at the
	// start as well, for a team whose teammates still run older wiring).
	HoldForTool *bool `json:"hold_for_tool"`
	// Holdout is the share of sessions (0 to 0.5) that go without recall,
	// so that `cairn report` can compare them with the rest (default 0;
	// a person's own "holdout" wins over it).
	Holdout *float64 `json:"holdout,omitempty"`
	Capture struct {
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

// MaxInstallHint caps an install hint's length, in bytes.
const MaxInstallHint = 300

// CleanInstallHint makes a committed install hint fit to show and to put
// in a shell string and a JSON string: one line of at most
// [MaxInstallHint] bytes, without control characters or any of ' " \ %
// and the backquote. It is a command a person reads and may run; whoever
// can commit it can commit the launcher too, which doctor checks.
func CleanInstallHint(hint string) string {
	var b strings.Builder
	for _, r := range hint {
		if r < 0x20 || r == 0x7f || strings.ContainsRune("'\"\\%`", r) || r >= 0x80 && r < 0xa0 {
			r = ' '
		}
		if r == ' ' && strings.HasSuffix(b.String(), " ") {
			continue
		}
		if b.Len()+utf8.RuneLen(r) > MaxInstallHint {
			break
		}
		b.WriteRune(r)
	}
	return strings.TrimSpace(b.String())
}

// SetInstallHint records hint as the config's install_hint, keeping every
// other setting and the file's layout, and reports whether it changed.
func (s *Store) SetInstallHint(hint string) (bool, error) {
	hint = CleanInstallHint(hint)
	data, err := s.ReadFile(ConfigName, MaxConfigBytes)
	if err != nil {
		return false, err
	}
	if len(bytes.TrimSpace(data)) == 0 {
		data = []byte("{}\n")
	}
	if !jsonfield.Valid(data) {
		return false, fmt.Errorf("%s: not valid JSON; fix it by hand, then run again", ConfigName)
	}
	cfg := jsonfield.Parse(data)
	if !cfg.IsObject() {
		return false, fmt.Errorf("%s: not a JSON object; fix it by hand, then run again", ConfigName)
	}
	cur := cfg.Get("install_hint")
	if cur.Type == jsonfield.String && cur.Str == hint {
		return false, nil
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // && stays readable
	enc.Encode(hint)
	value := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	var out []byte
	if cur.Exists() && cur.Index > 0 {
		// In place: the rest of the file stays byte for byte.
		out = append(append(append(out, data[:cur.Index]...), value...), data[cur.Index+len(cur.Raw):]...)
	} else {
		// A new last member, before the object's closing brace.
		end := bytes.LastIndexByte(data, '}')
		head := bytes.TrimRight(data[:end], " \t\r\n")
		sep := ",\n  "
		if len(cfg.Map()) == 0 {
			sep = "\n  "
		}
		out = append(append(append(append(out, head...), sep+`"install_hint": `...), value...), "\n"...)
		out = append(out, data[end:]...)
	}
	if !bytes.HasSuffix(out, []byte("\n")) {
		out = append(out, '\n')
	}
	return true, s.root.WriteAtomic(ConfigName, out, 0o644)
}

// ShowStatus reports whether hooks show the person their status line.
func (c Config) ShowStatus() bool { return c.StatusLine == nil || *c.StatusLine }

// HoldsForTool reports whether notes anchored to files wait for the moment
// before a tool (see HoldForTool; default on).
func (c Config) HoldsForTool() bool { return c.HoldForTool == nil || *c.HoldForTool }

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

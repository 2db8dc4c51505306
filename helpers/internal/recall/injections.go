package recall

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
	"github.com/cairn-dev/cairn/helpers/internal/relevance"
)

// The record of injections: what cairn put in front of an agent on this
// machine, and why (`cairn log`). It lives in .cairn/local (gitignored,
// this developer's only) as JSON lines in two generations: a hook appends
// one line to injections.jsonl (one write, no rename: a rename or a
// rewrite of a file costs a millisecond on some file systems, an append
// microseconds) and counts it in injections.count; once the current
// generation holds MaxInjections lines it becomes injections.1.jsonl (the
// older generation dropped). The record always holds the newest
// MaxInjections injections, and at most twice as many.
const (
	injectionsLog = knowledge.LocalDir + "/injections.jsonl"
	injectionsOld = knowledge.LocalDir + "/injections.1.jsonl"
	injectionsCtr = knowledge.LocalDir + "/injections.count"
	// MaxInjections is how many injections `cairn log` shows at most:
	// the newest.
	MaxInjections = 200
	// maxInjectionsBytes caps what is read of one generation.
	maxInjectionsBytes = 64 << 20
)

// Moments of a session an injection is made at.
const (
	MomentStart  = "session start"
	MomentPrompt = "prompt"
	MomentTool   = "before a tool"
)

// ReasonHoldout is how `cairn log` names a holdout session's start.
const ReasonHoldout = "holdout session: no recall, for measuring"

// Reasons an entry was chosen.
const (
	ReasonMustCheck = "must-check"
	ReasonHandoff   = "handoff"
	ReasonPersonal  = "personal"
	ReasonPrompt    = "prompt words"
	ReasonNewest    = "newest (the index was being built)"
	ReasonSearch    = "search match" // by a synonym or a stem no part of the context names
	ReasonAnchor    = "anchored to the file"
	ReasonCommand   = "must-check on the command"
	// ReasonHeld is why a session start or prompt left a matching entry
	// out: it waits for a tool to touch its file (see [HeldForTool]).
	ReasonHeld = "held for a tool on its file"
)

// Injection is one block cairn put in front of an agent.
type Injection struct {
	Time    int64  `json:"time"` // Unix nanoseconds
	Agent   string `json:"agent"`
	Session string `json:"session"`
	Branch  string `json:"branch,omitempty"`
	Moment  string `json:"moment"`
	// Budget is the block's budget and Used what it took, in UTF-16 code
	// units.
	Budget  int     `json:"budget"`
	Used    int     `json:"used"`
	Entries []Shown `json:"entries"`
	// Handoff counts the handoff items shown (they have no key).
	Handoff int `json:"handoff,omitempty"`
	// Held are the keys of entries this moment found but left for the
	// moment before a tool touches their files (see [HeldForTool]).
	Held []string `json:"held,omitempty"`
	// Text is the exact text injected.
	Text string `json:"text,omitempty"`
	// Holdout marks a session start that injected nothing on purpose: the
	// session is one of the holdout's, without recall (see package
	// holdout); Share is the share it was drawn at.
	Holdout bool    `json:"holdout,omitempty"`
	Share   float64 `json:"share,omitempty"`
}

// Shown is one entry of an injection and why it was chosen.
type Shown struct {
	Key    string `json:"key"`
	Reason string `json:"reason"`
}

// AddInjection appends in to the record. Two hooks at the same instant
// may count one line for two, or turn a generation over twice: the record
// then keeps fewer old lines, and loses nothing newer.
func AddInjection(s *knowledge.Store, in Injection) error {
	line, err := json.Marshal(in)
	if err != nil {
		return err
	}
	root := s.Root()
	f, err := root.OpenFile(injectionsLog, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(append(line, '\n'))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("record the injection: %w", err)
	}
	n := 0
	if data, err := s.ReadFile(injectionsCtr, 32); err == nil && data != nil {
		n, _ = strconv.Atoi(strings.TrimSpace(string(data)))
	}
	n++
	if n >= MaxInjections {
		if err := root.Rename(injectionsLog, injectionsOld); err != nil {
			return err
		}
		n = 0
	}
	// Rewritten in place at a fixed width: no rename, no truncation.
	c, err := root.OpenFile(injectionsCtr, os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	_, err = c.WriteAt(fmt.Appendf(nil, "%10d\n", n), 0)
	if cerr := c.Close(); err == nil {
		err = cerr
	}
	return err
}

// Injections reads the record: the newest MaxInjections injections,
// newest first. A line that cannot be decoded (torn by a crash, say) is
// left out.
func Injections(s *knowledge.Store) ([]Injection, error) {
	out, err := AllInjections(s)
	if err != nil {
		return nil, err
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].Time > out[b].Time })
	return out[:min(len(out), MaxInjections)], nil
}

// AllInjections reads both generations of the record, as written (at
// most twice [MaxInjections]), for `cairn report`.
func AllInjections(s *knowledge.Store) ([]Injection, error) {
	var out []Injection
	for _, name := range []string{injectionsOld, injectionsLog} {
		data, err := s.ReadFile(name, maxInjectionsBytes)
		if err != nil {
			return nil, err
		}
		for _, line := range bytes.Split(data, []byte{'\n'}) {
			var in Injection
			if len(line) > 0 && json.Unmarshal(line, &in) == nil {
				out = append(out, in)
			}
		}
	}
	return out, nil
}

// Why says which part of a session start's context an entry found by its
// query matches: "task words", "branch", "commit" (a recent commit's
// subject) or "commit files" (the names of the files they touched), joined
// with ", "; ReasonSearch when none does by itself.
func Why(c Context, e knowledge.Entry) string {
	var why []string
	has := func(text string) bool {
		terms := relevance.Terms(text)
		return len(terms) > 0 && Mentions(e, terms)
	}
	if len(c.Tasks) > 0 && has(strings.Join(c.Tasks, " ")) {
		why = append(why, "task words")
	}
	if !defaultBranches[c.Branch] {
		var words []string
		for _, w := range splitWords(c.Branch) {
			if !branchNoise[strings.ToLower(w)] {
				words = append(words, w)
			}
		}
		if has(strings.Join(words, " ")) {
			why = append(why, "branch")
		}
	}
	var subjects, files []string
	for i, cm := range c.Commits {
		if i < 3 {
			subjects = append(subjects, cm.Subject)
		}
		if i < 5 {
			files = append(files, cm.Files...)
		}
	}
	if has(strings.Join(subjects, " ")) {
		why = append(why, "commit")
	}
	if has(strings.Join(files, " ")) {
		why = append(why, "commit files")
	}
	if len(why) == 0 {
		return ReasonSearch
	}
	return strings.Join(why, ", ")
}

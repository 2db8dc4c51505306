package gemini

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/helpers/internal/agent"
	"github.com/cairn-dev/cairn/helpers/internal/event"
	"github.com/cairn-dev/cairn/helpers/internal/fsx"
)

// projectRootFile is the file in each of Gemini CLI's project directories
// (~/.gemini/tmp/<project>/) that names the project's root.
const projectRootFile = ".project_root"

// Transcripts lists Gemini CLI's session transcripts of the project at
// root on this machine: the chats/*.jsonl files of each directory under
// $GEMINI_CLI_HOME/.gemini/tmp (else ~/.gemini/tmp) whose .project_root
// names a directory inside root, and of the directory named after the
// SHA-256 of root's path (as versions before the project registry named
// it).
func (Adapter) Transcripts(getenv func(string) string, root string) ([]string, error) {
	home := getenv("GEMINI_CLI_HOME")
	if !filepath.IsAbs(home) {
		home = getenv("HOME")
	}
	if !filepath.IsAbs(home) {
		return nil, nil
	}
	base := filepath.Join(home, ".gemini", "tmp")
	roots := []string{filepath.Clean(root)}
	if r, err := filepath.EvalSymlinks(root); err == nil && r != roots[0] {
		roots = append(roots, r)
	}
	hashed := map[string]bool{}
	for _, r := range roots {
		sum := sha256.Sum256([]byte(r))
		hashed[hex.EncodeToString(sum[:])] = true
	}
	list, err := os.ReadDir(base)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []string
	for _, d := range list {
		if !d.IsDir() {
			continue
		}
		dir := filepath.Join(base, d.Name())
		if !hashed[d.Name()] && !inside(projectRoot(dir), roots) {
			continue
		}
		chats, err := os.ReadDir(filepath.Join(dir, "chats"))
		if err != nil {
			continue
		}
		for _, c := range chats {
			if c.Type().IsRegular() && strings.HasSuffix(c.Name(), ".jsonl") {
				out = append(out, filepath.Join(dir, "chats", c.Name()))
			}
		}
	}
	return out, nil
}

// projectRoot is the root a project directory's .project_root names, or
// "".
func projectRoot(dir string) string {
	f, err := fsx.OpenRegular(filepath.Join(dir, projectRootFile))
	if err != nil {
		return ""
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, 4<<10))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(data))
}

// inside reports whether dir is one of roots or under one.
func inside(dir string, roots []string) bool {
	if dir == "" || !filepath.IsAbs(dir) {
		return false
	}
	dir = filepath.Clean(dir)
	for _, r := range roots {
		if dir == r || strings.HasPrefix(dir, r+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// measureRecord is the part of a transcript line Measure reads.
type measureRecord struct {
	// Metadata.
	SessionID   string `json:"sessionId"`
	Kind        string `json:"kind"`
	StartTime   string `json:"startTime"`
	LastUpdated string `json:"lastUpdated"`
	// A message.
	ID        string          `json:"id"`
	Type      string          `json:"type"`
	Timestamp string          `json:"timestamp"`
	Content   json.RawMessage `json:"content"`
	Tokens    *struct {
		Input    int64 `json:"input"`
		Output   int64 `json:"output"`
		Cached   int64 `json:"cached"`
		Thoughts int64 `json:"thoughts"`
		Tool     int64 `json:"tool"`
	} `json:"tokens"`
	ToolCalls []measureCall `json:"toolCalls"`
	// An update, or a rewind.
	Set *struct {
		LastUpdated string           `json:"lastUpdated"`
		Messages    *[]measureRecord `json:"messages"`
	} `json:"$set"`
	RewindTo *string `json:"$rewindTo"`
}

// measureCall is one tool call of a message, as Measure reads it.
type measureCall struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Status    string `json:"status"`
	Timestamp string `json:"timestamp"`
	Args      struct {
		FilePath  string `json:"file_path"`
		Path      string `json:"path"`
		DirPath   string `json:"dir_path"`
		OldString string `json:"old_string"`
		NewString string `json:"new_string"`
		Content   string `json:"content"`
	} `json:"args"`
	Result []struct {
		FunctionResponse struct {
			Response struct {
				Output string `json:"output"`
			} `json:"response"`
		} `json:"functionResponse"`
	} `json:"result"`
}

// failed reports whether a call failed: Gemini CLI marked it an error, or
// it is the shell tool and the command exited non-zero (Gemini CLI marks
// that a success, with the exit code in the output).
func (c measureCall) failed() bool {
	if c.Status == "error" {
		return true
	}
	if c.Name != shellTool {
		return false
	}
	for _, r := range c.Result {
		if code, ok := exitCode(r.FunctionResponse.Response.Output); ok && code != 0 {
			return true
		}
	}
	return false
}

// shellTool is the name of Gemini CLI's shell tool.
const shellTool = "run_shell_command"

// exitCode is the "Exit Code: N" line of the shell tool's output.
func exitCode(output string) (int, bool) {
	const label = "Exit Code: "
	i := strings.LastIndex(output, "\n"+label)
	if i < 0 {
		return 0, false
	}
	rest := output[i+1+len(label):]
	line, _, _ := strings.Cut(rest, "\n")
	code, err := strconv.Atoi(strings.TrimSpace(line))
	return code, err == nil
}

// figures are one message's figures, as Measure keeps them: its latest
// version's, since Gemini CLI writes a message again whole when it
// changes.
type figures struct {
	id                    string
	prompt                bool
	input, output, cached int64
	calls, failed         int
}

// measurement folds a transcript's records; it keeps each message's
// figures, not its text, and the ids of what it already showed see.
type measurement struct {
	m        agent.Measured
	kind     string
	messages []figures
	index    map[string]int
	shown    map[string]bool // message and tool call ids passed to see
	see      func(agent.Seen)
}

// Measure reads a Gemini CLI transcript for `cairn report`: each model
// answer's tokens (the latest version of each message, after the
// transcript's updates and rewinds: input less the cached part, output
// with the thoughts), its tool calls and the failed ones (an error, or a
// shell command that exited non-zero), the person's prompts, and, for
// see, the prompts, the replies, the files tools read (SeenTouch) and the
// edits (replace, write_file). Gemini CLI records no compaction in its
// transcript: Compactions stays 0. It reads at most [event.MaxTranscript]
// bytes, skips a record longer than 16 MiB, and holds a few numbers per
// message, not their text.
func (Adapter) Measure(r io.Reader, see func(agent.Seen)) (agent.Measured, error) {
	if see == nil {
		see = func(agent.Seen) {}
	}
	t := measurement{index: map[string]int{}, shown: map[string]bool{}, see: see}
	_, err := agent.EachLine(agent.LimitTranscript(r, event.MaxTranscript), func(line []byte) bool {
		t.add(line)
		return true
	})
	if err != nil {
		return t.result(), fmt.Errorf("read gemini transcript: %w", err)
	}
	return t.result(), nil
}

// add folds one record.
func (t *measurement) add(line []byte) {
	var rec measureRecord
	if json.Unmarshal(line, &rec) != nil {
		return
	}
	switch {
	case rec.RewindTo != nil:
		if i, ok := t.index[*rec.RewindTo]; ok {
			for _, f := range t.messages[i:] {
				delete(t.index, f.id)
			}
			t.messages = t.messages[:i]
		} else {
			t.messages, t.index = nil, map[string]int{}
		}
	case rec.Set != nil:
		t.time(rec.Set.LastUpdated)
		if rec.Set.Messages != nil {
			t.messages, t.index = nil, map[string]int{}
			for _, m := range *rec.Set.Messages {
				t.put(m)
			}
		}
	case rec.ID != "":
		t.put(rec)
	case rec.SessionID != "":
		t.time(rec.StartTime)
		t.time(rec.LastUpdated)
		if t.m.Session == "" {
			t.m.Session = rec.SessionID
			t.see(agent.Seen{Kind: agent.SeenSession, Text: rec.SessionID})
		}
		if rec.Kind != "" {
			t.kind = rec.Kind
		}
	}
}

// time widens the transcript's span by a timestamp, and returns it.
func (t *measurement) time(ts string) time.Time {
	at, err := time.Parse(time.RFC3339Nano, ts)
	if err != nil {
		return time.Time{}
	}
	if t.m.Start.IsZero() || at.Before(t.m.Start) {
		t.m.Start = at
	}
	if at.After(t.m.End) {
		t.m.End = at
	}
	return at
}

// put adds a message, or replaces the figures of its id, and shows see
// what it has not seen of it.
func (t *measurement) put(rec measureRecord) {
	at := t.time(rec.Timestamp)
	f := figures{id: rec.ID}
	switch rec.Type {
	case "user":
		text := contentText(rec.Content)
		if t.m.Cwd == "" {
			t.m.Cwd = workspaceDir(text)
		}
		text, prompt := userText(rec.Content)
		f.prompt = prompt && strings.TrimSpace(text) != ""
		if f.prompt && !t.shown[rec.ID] {
			t.shown[rec.ID] = true
			t.see(agent.Seen{Kind: agent.SeenPrompt, At: at, Text: text})
		}
	case "gemini":
		if tk := rec.Tokens; tk != nil {
			f.input = max(tk.Input-tk.Cached, 0) + tk.Tool
			f.cached = tk.Cached
			f.output = tk.Output + tk.Thoughts
		}
		if text := strings.TrimSpace(contentText(rec.Content)); text != "" && !t.shown[rec.ID] {
			t.shown[rec.ID] = true
			t.see(agent.Seen{Kind: agent.SeenReply, At: at, Text: text})
		}
		for _, c := range rec.ToolCalls {
			f.calls++
			if c.failed() {
				f.failed++
			}
			if c.ID != "" && !t.shown["call:"+c.ID] {
				t.shown["call:"+c.ID] = true
				t.seeCall(c, at)
			}
		}
	default:
		return
	}
	if rec.ID == "" {
		return
	}
	if i, ok := t.index[rec.ID]; ok {
		t.messages[i] = f
		return
	}
	t.index[rec.ID] = len(t.messages)
	t.messages = append(t.messages, f)
}

// seeCall shows see the file a tool call touched or edited.
func (t *measurement) seeCall(c measureCall, at time.Time) {
	if ts := t.time(c.Timestamp); !ts.IsZero() {
		at = ts
	}
	path := c.Args.FilePath
	if path == "" {
		path = c.Args.Path
	}
	if path == "" {
		path = c.Args.DirPath
	}
	switch {
	case path == "" || c.Name == shellTool:
	case c.Name == "replace":
		t.see(agent.Seen{Kind: agent.SeenEdit, At: at, Path: path, Old: c.Args.OldString, New: c.Args.NewString})
	case c.Name == "write_file":
		t.see(agent.Seen{Kind: agent.SeenEdit, At: at, Path: path, New: c.Args.Content})
	default:
		t.see(agent.Seen{Kind: agent.SeenTouch, At: at, Path: path})
	}
}

// result sums the messages' figures.
func (t *measurement) result() agent.Measured {
	m := t.m
	m.Sidechain = t.kind == "subagent"
	for _, f := range t.messages {
		if f.prompt {
			m.Turns++
		}
		m.Input += f.input
		m.Output += f.output
		m.CacheRead += f.cached
		m.ToolCalls += f.calls
		m.FailedTools += f.failed
	}
	return m
}

// Unrecorded: Gemini CLI's transcript keeps no trace of a compaction.
func (Adapter) Unrecorded() []string { return []string{agent.FigureCompactions} }

package pipeline

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/cairn-dev/cairn/helpers/internal/event"
	"github.com/cairn-dev/cairn/helpers/internal/fsx"
	"github.com/cairn-dev/cairn/helpers/internal/redact"
	"github.com/cairn-dev/cairn/helpers/internal/when"
)

// MinMessages is the fewest messages a session needs to be exported.
const MinMessages = 4

// Worth reports whether conversation c is worth keeping: a person's
// session (a headless run only when headless is set) of at least
// MinMessages messages, not a subagent's.
func Worth(c event.Conversation, headless bool) bool {
	return (c.Interactive || headless) && !c.Sidechain && len(c.Messages) >= MinMessages
}

// ExportPath is where conversation c is exported under the knowledge
// directory: sessions/YYYY-MM/YYYY-MM-DD-<session>.md (see fileID), dated
// by its day (see [SessionDay]).
func ExportPath(knowledge string, c event.Conversation) string {
	return exportPath(knowledge, c, fileID(c.Session))
}

// legacyExportPath is where cairn before issue 24 exported c: named by the
// first eight characters of its id, which two sessions may share.
func legacyExportPath(knowledge string, c event.Conversation) string {
	return exportPath(knowledge, c, shortID(c.Session))
}

func exportPath(knowledge string, c event.Conversation, name string) string {
	return datedExportPath(knowledge, exportDay(c, SessionDay(c)), name)
}

// utcExportPath is where cairn before the one day rule exported c: dated
// by its first message's day in UTC.
func utcExportPath(knowledge string, c event.Conversation) string {
	day := "0000-00-00"
	if len(c.Messages) > 0 && !c.Messages[0].Time.IsZero() {
		day = when.MachineDay(c.Messages[0].Time)
	}
	return datedExportPath(knowledge, exportDay(c, day), fileID(c.Session))
}

// exportDay is day, or 0000-00-00 for a conversation with no time.
func exportDay(c event.Conversation, day string) string {
	if len(c.Messages) == 0 || c.Messages[0].Time.IsZero() {
		return "0000-00-00"
	}
	return day
}

func datedExportPath(knowledge, day, name string) string {
	return filepath.Join(knowledge, "sessions", day[:7], day+"-"+name+".md")
}

// maxFileID is the longest session id a file is named by as it is.
const maxFileID = 64

// fileID names a session's files (its export, its daily log entry) by its
// whole id: the id itself when it is at most maxFileID characters of
// [0-9A-Za-z_-] (Claude Code's, Codex's and Gemini CLI's UUIDs, OpenCode's
// ses_ ids), else its
// first such characters and a hash of the whole id. Never its first eight
// characters alone: Codex's ids are UUIDv7, and two sessions started
// within 65 s share them.
func fileID(id string) string {
	if id == "" {
		return "session"
	}
	plain := len(id) <= maxFileID
	for _, r := range id {
		if !idChar(r) && r != '_' { // OpenCode's ids are ses_...
			plain = false
			break
		}
	}
	if plain {
		return id
	}
	sum := sha256.Sum256([]byte(id))
	return shortID(id) + "-" + hex.EncodeToString(sum[:12])
}

// shortID is the session id's first eight characters of [0-9A-Za-z-], or
// "session": what named a session's files before issue 24, and what an
// entry keeps of it.
func shortID(id string) string {
	var b strings.Builder
	for _, r := range id {
		if b.Len() == 8 {
			break
		}
		if idChar(r) {
			b.WriteRune(r)
		}
	}
	if b.Len() == 0 {
		return "session"
	}
	return b.String()
}

// idChar reports whether r may name a file as it is.
func idChar(r rune) bool {
	return r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == '-'
}

// Markdown renders c as the exported file: YAML front matter (type,
// session_id, date, cwd, project, branch, agent, agent_version, messages),
// then a "## User" or "## Assistant" block per message. Secrets are
// redacted in every text, as everywhere else in cairn.
func Markdown(c event.Conversation) []byte {
	var b bytes.Buffer
	date := ""
	if len(c.Messages) > 0 && !c.Messages[0].Time.IsZero() {
		date = when.Machine(c.Messages[0].Time)
	}
	project := ""
	if c.Cwd != "" {
		project = filepath.Base(c.Cwd)
	}
	b.WriteString("---\n")
	for _, kv := range [][2]string{
		{"type", "session"}, {"session_id", c.Session}, {"date", date}, {"cwd", c.Cwd}, {"project", project},
		{"branch", c.Branch}, {"agent", c.Agent}, {"agent_version", c.Version},
	} {
		fmt.Fprintf(&b, "%s: %s\n", kv[0], yamlString(clean(kv[1])))
	}
	fmt.Fprintf(&b, "messages: %d\n---\n", len(c.Messages))
	for _, m := range c.Messages {
		title := "User"
		if m.Role == "assistant" {
			title = "Assistant"
		}
		fmt.Fprintf(&b, "\n## %s\n\n%s\n", title, clean(m.Text))
	}
	return b.Bytes()
}

// clean redacts secrets in s.
func clean(s string) string {
	out, _ := redact.String(s)
	return out
}

// cleanAll redacts secrets in each of list.
func cleanAll(list []string) []string {
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = clean(s)
	}
	return out
}

// yamlString quotes s as a YAML double-quoted scalar.
func yamlString(s string) string { return strconv.Quote(s) }

// Export writes c to its file under the knowledge directory, atomically,
// unless the file already holds as many messages or more; it returns the
// path and whether it wrote.
func Export(knowledge string, c event.Conversation) (string, bool, error) {
	path := ExportPath(knowledge, c)
	adoptLegacy(path, legacyExportPath(knowledge, c), c.Session)
	adoptLegacy(path, utcExportPath(knowledge, c), c.Session)
	if n, ok := exportedMessages(path); ok && n >= len(c.Messages) {
		return path, false, nil
	}
	if err := writeOwned(path, Markdown(c)); err != nil {
		return path, false, err
	}
	return path, true, nil
}

// adoptLegacy moves the session's export from its old name (legacy) to
// its new one (path), when the old file is this session's (its front
// matter says so) and the new one is not there yet; another session's
// file of the same eight characters is left as it is.
func adoptLegacy(path, legacy, session string) {
	if legacy == path {
		return
	}
	if id, ok := exportedField(legacy, "session_id"); !ok || id != session {
		return
	}
	if _, err := os.Lstat(path); err == nil {
		return
	}
	_ = os.Rename(legacy, path) // a failure leaves the old file, and the new one is written
}

// exportedMessages reads the messages count of an exported file's front
// matter.
func exportedMessages(path string) (int, bool) {
	v, ok := exportedField(path, "messages")
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(v)
	return n, err == nil
}

// exportedField reads a field of an exported file's front matter (a
// quoted string unquoted).
func exportedField(path, key string) (string, bool) {
	f, err := fsx.OpenRegular(path)
	if err != nil {
		return "", false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for i := 0; sc.Scan() && i < 20; i++ {
		if v, ok := strings.CutPrefix(sc.Text(), key+": "); ok {
			v = strings.TrimSpace(v)
			if u, err := strconv.Unquote(v); err == nil {
				v = u
			}
			return v, true
		}
	}
	return "", false
}

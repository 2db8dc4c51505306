package pipeline

import (
	"bufio"
	"bytes"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/cairn-dev/cairn/helpers/internal/event"
	"github.com/cairn-dev/cairn/helpers/internal/fsx"
	"github.com/cairn-dev/cairn/helpers/internal/pipeline/queue"
	"github.com/cairn-dev/cairn/helpers/internal/redact"
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
// directory: sessions/YYYY-MM/YYYY-MM-DD-<short id>.md, dated by its first
// message (UTC).
func ExportPath(knowledge string, c event.Conversation) string {
	day := "0000-00-00"
	if len(c.Messages) > 0 && !c.Messages[0].Time.IsZero() {
		day = c.Messages[0].Time.UTC().Format("2006-01-02")
	}
	return filepath.Join(knowledge, "sessions", day[:7], day+"-"+shortID(c.Session)+".md")
}

// shortID is the session id's first eight characters of [0-9A-Za-z-], or
// "session".
func shortID(id string) string {
	var b strings.Builder
	for _, r := range id {
		if b.Len() == 8 {
			break
		}
		if r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == '-' {
			b.WriteRune(r)
		}
	}
	if b.Len() == 0 {
		return "session"
	}
	return b.String()
}

// Markdown renders c as the exported file: YAML front matter (type,
// session_id, date, cwd, project, branch, agent, agent_version, messages),
// then a "## User" or "## Assistant" block per message. Secrets are
// redacted in every text, as everywhere else in cairn.
func Markdown(c event.Conversation) []byte {
	var b bytes.Buffer
	date := ""
	if len(c.Messages) > 0 && !c.Messages[0].Time.IsZero() {
		date = c.Messages[0].Time.UTC().Format("2006-01-02T15:04:05Z")
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
	if n, ok := exportedMessages(path); ok && n >= len(c.Messages) {
		return path, false, nil
	}
	if err := queue.WriteAtomic(path, Markdown(c)); err != nil {
		return path, false, err
	}
	return path, true, nil
}

// exportedMessages reads the messages count of an exported file's front
// matter.
func exportedMessages(path string) (int, bool) {
	f, err := fsx.OpenRegular(path)
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for i := 0; sc.Scan() && i < 20; i++ {
		if v, ok := strings.CutPrefix(sc.Text(), "messages: "); ok {
			n, err := strconv.Atoi(strings.TrimSpace(v))
			return n, err == nil
		}
	}
	return 0, false
}

package pipeline

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/helpers/internal/event"
	"github.com/cairn-dev/cairn/helpers/internal/fsx"
	"github.com/cairn-dev/cairn/helpers/internal/when"
)

// maxDaily caps a daily log read.
const maxDaily = 8 << 20

// DailyPath is the daily log a conversation's entry goes to: its day
// (see [SessionDay]), daily/YYYY-MM-DD.md under the knowledge directory.
func DailyPath(know string, c event.Conversation) string {
	return filepath.Join(know, "daily", SessionDay(c)+".md")
}

// SessionDay is the one rule for which day a session belongs to: the day
// it started (its first message), in the person's time zone (the
// process's local one, from TZ), "2006-01-02". Its export, its daily log
// entry and the learnings it gave are all filed under that day, so a
// session at 22:30 in New York is the 24th's everywhere, though it is
// already the 25th in UTC. A session with no time belongs to 1970-01-01.
func SessionDay(c event.Conversation) string { return when.Day(sessionStart(c)) }

// sessionStart is when the conversation began, local time.
func sessionStart(c event.Conversation) time.Time {
	if len(c.Messages) > 0 && !c.Messages[0].Time.IsZero() {
		return c.Messages[0].Time.Local()
	}
	return time.Unix(0, 0).Local()
}

// Markers around one session's entry in a daily log, each on a line of
// its own: a session distilled again replaces its entry, so the same
// turns are never logged twice. No text the model wrote can hold one (see
// inert), and only whole lines count.
const (
	dailyOpen  = "<!-- cairn:session %s -->"
	dailyClose = "<!-- cairn:end -->"
)

// inert makes s unable to open an HTML comment, so that no marker can be
// written by the model: "<!--" is written "&lt;!--" (the same text in
// rendered markdown).
func inert(s string) string { return strings.ReplaceAll(s, "<!--", "&lt;!--") }

// DailyEntry renders a session's entry: "### Session (HH:MM) - title",
// then Context, Key Exchanges, Decisions Made, Lessons Learned and Action
// Items (sections with nothing to say are left out). Every text is
// redacted.
func DailyEntry(c event.Conversation, d Distillation) string {
	var b strings.Builder
	title := inert(oneLine(clean(d.Daily.Title)))
	if title == "" {
		title = "untitled"
	}
	fmt.Fprintf(&b, dailyOpen+"\n", fileID(c.Session))
	fmt.Fprintf(&b, "### Session (%s) - %s\n", when.Clock(sessionStart(c)), title)
	if ctx := strings.TrimSpace(clean(d.Daily.Context)); ctx != "" {
		fmt.Fprintf(&b, "\n**Context:** %s\n", inert(oneLine(ctx)))
	}
	list := func(heading string, items []string) {
		if len(items) == 0 {
			return
		}
		fmt.Fprintf(&b, "\n**%s:**\n", heading)
		for _, it := range items {
			if it = inert(oneLine(clean(it))); it != "" {
				fmt.Fprintf(&b, "- %s\n", it)
			}
		}
	}
	list("Key Exchanges", d.Daily.KeyExchanges)
	var decisions, lessons []string
	for _, x := range d.Decisions {
		s := x.Summary
		if x.Rationale != "" {
			s += " (why: " + x.Rationale + ")"
		}
		decisions = append(decisions, s)
	}
	for _, f := range d.Failures {
		if f.Prevention != "" {
			lessons = append(lessons, f.Summary+": "+f.Prevention)
		}
	}
	for _, l := range d.Learnings {
		content := l.Content
		if content == "" {
			content = l.Learning
		}
		lessons = append(lessons, l.Title+": "+content)
	}
	list("Decisions Made", decisions)
	list("Lessons Learned", lessons)
	list("Action Items", d.Handoff)
	b.WriteString(dailyClose + "\n")
	return b.String()
}

// WriteDaily puts the session's entry in its daily log: in place of the
// session's earlier entry if it has one (one written before issue 24,
// under the first eight characters of its id, counts when it began at
// the same minute), else at the end (a new log starts with "# Daily Log:
// DATE"). The write is atomic.
func WriteDaily(know string, c event.Conversation, d Distillation) (string, error) {
	path := DailyPath(know, c)
	data, err := fsx.ReadRegular(path, maxDaily)
	if errors.Is(err, fs.ErrNotExist) {
		data = []byte("# Daily Log: " + SessionDay(c) + "\n")
	} else if err != nil {
		return path, err
	}
	entry := []byte(DailyEntry(c, d))
	start, end, ok := findEntry(data, fileID(c.Session), "")
	if !ok {
		start, end, ok = findEntry(data, shortID(c.Session), "### Session ("+when.Clock(sessionStart(c))+")")
	}
	if ok {
		out := append(append(append([]byte{}, data[:start]...), entry...), data[end:]...)
		return path, writeOwned(path, out)
	}
	if !bytes.HasSuffix(data, []byte("\n")) {
		data = append(data, '\n')
	}
	out := append(append(data, '\n'), entry...)
	return path, writeOwned(path, out)
}

// findEntry finds the entry of session id in a daily log: from its open
// marker's line to its close marker's, both whole lines; with heading
// set, only an entry whose next line starts with it.
func findEntry(data []byte, id, heading string) (start, end int, ok bool) {
	open := []byte("\n" + fmt.Sprintf(dailyOpen, id) + "\n")
	closing := []byte("\n" + dailyClose + "\n")
	for from := 0; ; {
		i := bytes.Index(data[from:], open)
		if i < 0 {
			return 0, 0, false
		}
		start = from + i + 1
		body := start + len(open) - 1
		from = body
		if heading != "" && !bytes.HasPrefix(data[body:], []byte(heading)) {
			continue
		}
		j := bytes.Index(data[body-1:], closing)
		if j < 0 {
			return 0, 0, false
		}
		return start, body - 1 + j + len(closing), true
	}
}

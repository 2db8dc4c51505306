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
	"github.com/cairn-dev/cairn/helpers/internal/pipeline/queue"
)

// maxDaily caps a daily log read.
const maxDaily = 8 << 20

// DailyPath is the daily log a conversation's entry goes to: the day (in
// the machine's time zone) of its first message,
// daily/YYYY-MM-DD.md under the knowledge directory.
func DailyPath(know string, c event.Conversation) string {
	return filepath.Join(know, "daily", sessionStart(c).Format("2006-01-02")+".md")
}

// sessionStart is when the conversation began, local time.
func sessionStart(c event.Conversation) time.Time {
	if len(c.Messages) > 0 && !c.Messages[0].Time.IsZero() {
		return c.Messages[0].Time.Local()
	}
	return time.Unix(0, 0).Local()
}

// Markers around one session's entry in a daily log: a session distilled
// again replaces its entry, so the same turns are never logged twice.
const (
	dailyOpen  = "<!-- cairn:session %s -->"
	dailyClose = "<!-- cairn:end -->"
)

// DailyEntry renders a session's entry: "### Session (HH:MM) - title",
// then Context, Key Exchanges, Decisions Made, Lessons Learned and Action
// Items (sections with nothing to say are left out). Every text is
// redacted.
func DailyEntry(c event.Conversation, d Distillation) string {
	var b strings.Builder
	title := oneLine(clean(d.Daily.Title))
	if title == "" {
		title = "untitled"
	}
	fmt.Fprintf(&b, dailyOpen+"\n", shortID(c.Session))
	fmt.Fprintf(&b, "### Session (%s) - %s\n", sessionStart(c).Format("15:04"), title)
	if ctx := strings.TrimSpace(clean(d.Daily.Context)); ctx != "" {
		fmt.Fprintf(&b, "\n**Context:** %s\n", oneLine(ctx))
	}
	list := func(heading string, items []string) {
		if len(items) == 0 {
			return
		}
		fmt.Fprintf(&b, "\n**%s:**\n", heading)
		for _, it := range items {
			if it = oneLine(clean(it)); it != "" {
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
// session's earlier entry if it has one, else at the end (a new log
// starts with "# Daily Log: DATE"). The write is atomic.
func WriteDaily(know string, c event.Conversation, d Distillation) (string, error) {
	path := DailyPath(know, c)
	data, err := fsx.ReadRegular(path, maxDaily)
	if errors.Is(err, fs.ErrNotExist) {
		data = []byte("# Daily Log: " + sessionStart(c).Format("2006-01-02") + "\n")
	} else if err != nil {
		return path, err
	}
	entry := []byte(DailyEntry(c, d))
	open := []byte(fmt.Sprintf(dailyOpen, shortID(c.Session)))
	if i := bytes.Index(data, open); i >= 0 {
		if j := bytes.Index(data[i:], []byte(dailyClose+"\n")); j >= 0 {
			end := i + j + len(dailyClose) + 1
			out := append(append(append([]byte{}, data[:i]...), entry...), data[end:]...)
			return path, queue.WriteAtomic(path, out)
		}
	}
	if !bytes.HasSuffix(data, []byte("\n")) {
		data = append(data, '\n')
	}
	out := append(append(data, '\n'), entry...)
	return path, queue.WriteAtomic(path, out)
}

package pipeline

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/helpers/internal/event"
	"github.com/cairn-dev/cairn/helpers/internal/fsx"
	"github.com/cairn-dev/cairn/helpers/internal/knowledge"

	"github.com/cairn-dev/cairn/helpers/internal/when"
)

// learnedOn is the day a session's learnings are filed under: the day the
// session started, as its export and daily entry are (so a session
// distilled after midnight, or a week later, files them where the rest of
// it is), else now for a transcript without times.
func learnedOn(c event.Conversation, now time.Time) time.Time {
	if len(c.Messages) > 0 && !c.Messages[0].Time.IsZero() {
		return sessionStart(c)
	}
	return now
}

// LearningPath is where a learning titled title, filed under now's day in
// the person's time zone (see [SessionDay]), lives under the knowledge
// directory: learnings/YYYY-MM/YYYY-MM-DD-<slug>.md.
func LearningPath(know, title string, now time.Time) string {
	day := when.Day(now)
	slug := knowledge.Slug(title, 50)
	if slug == "" {
		slug = "learning"
	}
	return filepath.Join(know, "learnings", day[:7], day+"-"+slug+".md")
}

// WriteLearning writes a learning's file once: front matter (title,
// origin, origin_session, tags, scope, status, deprecated_*), then
// "## Learning" and "## Context". A file already there is left as it is
// (wrote is false).
func WriteLearning(know string, l Learning, origin, session string, now time.Time) (wrote bool, err error) {
	content := l.Content
	if strings.TrimSpace(content) == "" {
		content = l.Learning
	}
	title := oneLine(clean(l.Title))
	if title == "" || strings.TrimSpace(content) == "" {
		return false, nil
	}
	scope := knowledge.Slug(clean(l.Scope), 30)
	if scope == "" {
		scope = "universal"
	}
	tags, _ := json.Marshal(knowledge.CleanTags(cleanAll(l.Tags)))
	if string(tags) == "null" {
		tags = []byte("[]")
	}
	var b bytes.Buffer
	b.WriteString("---\n")
	fmt.Fprintf(&b, "title: %s\norigin: %s\norigin_session: %s\ntags: %s\nscope: %s\nstatus: active\n",
		strconv.Quote(title), strconv.Quote(clean(origin)), strconv.Quote(shortID(session)), tags, scope)
	b.WriteString("deprecated_by: null\ndeprecated_on: null\ndeprecated_reason: null\n---\n\n")
	fmt.Fprintf(&b, "## Learning\n\n%s\n\n## Context\n\n%s\n", strings.TrimSpace(clean(content)), strings.TrimSpace(clean(l.Context)))
	path := LearningPath(know, title, now)
	if err := fsx.MkdirPrivate(filepath.Dir(path)); err != nil {
		return false, err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	_, werr := f.Write(b.Bytes())
	if err := errors.Join(werr, f.Close()); err != nil {
		os.Remove(path)
		return false, err
	}
	return true, nil
}

// LearningTitles lists the titles of the learnings under the knowledge
// directory, newest first, at most promptTitles.
func LearningTitles(know string) []string {
	paths, _ := filepath.Glob(filepath.Join(know, "learnings", "*", "*.md"))
	sort.Sort(sort.Reverse(sort.StringSlice(paths)))
	var titles []string
	for _, p := range paths {
		if len(titles) == promptTitles {
			break
		}
		f, err := fsx.OpenRegular(p)
		if err != nil {
			continue
		}
		head := make([]byte, 1024)
		n, _ := f.Read(head)
		f.Close()
		for _, line := range strings.Split(string(head[:n]), "\n") {
			if v, ok := strings.CutPrefix(line, "title: "); ok {
				if t, err := strconv.Unquote(v); err == nil {
					titles = append(titles, t)
				}
				break
			}
		}
	}
	return titles
}

// jsonMarshal encodes v without HTML escapes.
func jsonMarshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

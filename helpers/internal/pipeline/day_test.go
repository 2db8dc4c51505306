package pipeline

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/helpers/internal/event"
)

// inZone runs fn with the process's time zone, the person's, set to zone
// (as TZ would set it), and puts the old one back.
func inZone(t *testing.T, zone *time.Location, fn func()) {
	t.Helper()
	old := time.Local
	time.Local = zone
	defer func() { time.Local = old }()
	fn()
}

// One rule for a session's day, its start in the person's time zone, for
// its export, its daily log entry and its learnings: a session that
// starts at 22:30 in New York on the 24th and runs past midnight is the
// 24th's in all three, though it is the 25th in UTC; the same session
// seen from Tokyo (12:30 on the 25th) is the 25th's in all three. Fixed
// times, no clock.
func TestSessionDayAcrossMidnight(t *testing.T) {
	start := time.Date(2026, 11, 25, 3, 30, 0, 0, time.UTC)
	c := event.Conversation{Session: "5f0c6b1e-0d7e-4d38-9a31-2c2f8f0e4b7a", Interactive: true}
	for i := range 6 {
		role := "user"
		if i%2 == 1 {
			role = "assistant"
		}
		// 22:30 to 00:20 in New York: across its midnight.
		c.Messages = append(c.Messages, event.Message{Role: role, Text: "turn", Time: start.Add(time.Duration(i) * 22 * time.Minute)})
	}
	for _, tc := range []struct {
		zone      *time.Location
		day, hhmm string
	}{
		{time.FixedZone("EST", -5*3600), "2026-11-24", "22:30"},
		{time.FixedZone("JST", 9*3600), "2026-11-25", "12:30"},
	} {
		inZone(t, tc.zone, func() {
			know := t.TempDir()
			if got := SessionDay(c); got != tc.day {
				t.Errorf("%s: SessionDay = %s, want %s", tc.zone, got, tc.day)
			}
			path, wrote, err := Export(know, c)
			if err != nil || !wrote {
				t.Fatalf("Export: %v %v", wrote, err)
			}
			if want := filepath.Join(know, "sessions", tc.day[:7], tc.day+"-"+c.Session+".md"); path != want {
				t.Errorf("%s: export %s, want %s", tc.zone, path, want)
			}
			daily, err := WriteDaily(know, c, Distillation{Daily: Daily{Title: "late fix"}})
			if err != nil {
				t.Fatal(err)
			}
			if want := filepath.Join(know, "daily", tc.day+".md"); daily != want {
				t.Errorf("%s: daily log %s, want %s", tc.zone, daily, want)
			}
			body, _ := os.ReadFile(daily)
			if !strings.HasPrefix(string(body), "# Daily Log: "+tc.day+"\n") || !strings.Contains(string(body), "### Session ("+tc.hhmm+") - late fix") {
				t.Errorf("%s: daily log:\n%s", tc.zone, body)
			}
			// Distilled two days later: the learnings still go under the
			// session's day.
			later := start.Add(48 * time.Hour)
			if _, err := WriteLearning(know, Learning{Title: "retry budget", Learning: "three attempts"}, "shop", c.Session, learnedOn(c, later)); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(filepath.Join(know, "learnings", tc.day[:7], tc.day+"-retry-budget.md")); err != nil {
				t.Errorf("%s: the learning is not under %s: %v", tc.zone, tc.day, err)
			}
		})
	}
}

// A session exported under its UTC day by an older cairn is moved to its
// day, not exported twice.
func TestExportAdoptsTheUTCDay(t *testing.T) {
	c := event.Conversation{Session: "5f0c6b1e-0d7e-4d38-9a31-2c2f8f0e4b7a", Interactive: true}
	start := time.Date(2026, 11, 25, 3, 30, 0, 0, time.UTC)
	for i := range 4 {
		c.Messages = append(c.Messages, event.Message{Role: "user", Text: "turn", Time: start.Add(time.Duration(i) * time.Minute)})
	}
	inZone(t, time.FixedZone("EST", -5*3600), func() {
		know := t.TempDir()
		old := utcExportPath(know, c)
		if err := os.MkdirAll(filepath.Dir(old), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(old, Markdown(event.Conversation{Session: c.Session, Messages: c.Messages[:3]}), 0o644); err != nil {
			t.Fatal(err)
		}
		path, _, err := Export(know, c)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(old); err == nil || path == old {
			t.Errorf("the UTC-dated export %s is still there beside %s", old, path)
		}
	})
}

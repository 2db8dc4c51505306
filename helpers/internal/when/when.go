// Package when is the one place that says how cairn writes a time: for a
// person, in local time with the zone stated ([Person], [Day]); for a
// program (JSON, logs, front matter), in RFC 3339 in UTC ([Machine]). Every
// command and page writes its times through it.
package when

import "time"

// Person writes t for a person: local time to the second, with the zone
// stated, "2026-12-06 17:30:05 EST".
func Person(t time.Time) string { return t.Local().Format("2006-01-02 15:04:05 MST") }

// Day writes the day of t for a person, in local time: "2026-12-06".
func Day(t time.Time) string { return t.Local().Format("2006-01-02") }

// Clock writes the time of day of t for a person, in local time, "17:30":
// for a line under a heading that [Day] wrote, which names the day and so
// the zone (a daily log's session).
func Clock(t time.Time) string { return t.Local().Format("15:04") }

// MachineDay writes the day of t for a program: RFC 3339's full-date, in
// UTC, "2026-12-06" (front matter, a file's day, an agent's context).
func MachineDay(t time.Time) string { return t.UTC().Format(time.DateOnly) }

// Machine writes t for a program: RFC 3339 in UTC, to the second,
// "2026-12-06T22:30:05Z".
func Machine(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// PersonNanos is a time in Unix nanoseconds (a queue's, an injection
// record's) as Person writes it; "-" for none (0).
func PersonNanos(ns int64) string {
	if ns == 0 {
		return "-"
	}
	return Person(time.Unix(0, ns))
}

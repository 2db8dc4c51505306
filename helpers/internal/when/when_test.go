package when

import (
	"testing"
	"time"

	"github.com/cairn-dev/cairn/helpers/internal/testharness/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// One instant, 03:30 UTC on the 25th, as each reader is given it: a
// person in New York reads the 24th, 22:30, with the zone stated; a
// program reads RFC 3339 in UTC wherever it runs.
func TestFormats(t *testing.T) {
	at := time.Date(2026, 11, 25, 3, 30, 5, 0, time.UTC)
	old := time.Local
	defer func() { time.Local = old }()
	for _, tc := range []struct {
		zone                     *time.Location
		person, day, clock, mach string
	}{
		{time.FixedZone("EST", -5*3600), "2026-11-24 22:30:05 EST", "2026-11-24", "22:30", "2026-11-25T03:30:05Z"},
		{time.FixedZone("JST", 9*3600), "2026-11-25 12:30:05 JST", "2026-11-25", "12:30", "2026-11-25T03:30:05Z"},
		{time.UTC, "2026-11-25 03:30:05 UTC", "2026-11-25", "03:30", "2026-11-25T03:30:05Z"},
	} {
		time.Local = tc.zone
		if got := Person(at); got != tc.person {
			t.Errorf("%s: Person = %q, want %q", tc.zone, got, tc.person)
		}
		if got := Day(at); got != tc.day {
			t.Errorf("%s: Day = %q, want %q", tc.zone, got, tc.day)
		}
		if got := Clock(at); got != tc.clock {
			t.Errorf("%s: Clock = %q, want %q", tc.zone, got, tc.clock)
		}
		if got := Machine(at.In(tc.zone)); got != tc.mach {
			t.Errorf("%s: Machine = %q, want %q", tc.zone, got, tc.mach)
		}
		if got := MachineDay(at.In(tc.zone)); got != tc.mach[:10] {
			t.Errorf("%s: MachineDay = %q, want %q", tc.zone, got, tc.mach[:10])
		}
	}
}

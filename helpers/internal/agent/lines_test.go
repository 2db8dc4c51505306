package agent_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/cairn-dev/cairn/helpers/internal/agent"
)

// lines is what EachLine passes for input, copied.
func lines(t testing.TB, input string) ([]string, int, error) {
	t.Helper()
	var got []string
	skipped, err := agent.EachLine(strings.NewReader(input), func(line []byte) bool {
		got = append(got, string(line))
		return true
	})
	return got, skipped, err
}

func TestEachLine(t *testing.T) {
	long := strings.Repeat("x", agent.MaxTranscriptLine+1)
	wide := strings.Repeat("y", 200<<10) // past the reader's buffer, under the cap
	for _, tc := range []struct {
		name, input string
		want        []string
		skipped     int
	}{
		{"empty", "", nil, 0},
		{"blank lines", "\n  \n\t\r\n", nil, 0},
		{"trimmed, CRLF", " {\"a\":1} \r\n{\"b\":2}\n", []string{`{"a":1}`, `{"b":2}`}, 0},
		{"no last newline", "a\nb", []string{"a", "b"}, 0},
		{"wider than the buffer", "a\n" + wide + "\nb\n", []string{"a", wide, "b"}, 0},
		{"too long, read past", "a\n" + long + "\nb\n", []string{"a", "b"}, 1},
		{"too long, last", "a\n" + long, []string{"a"}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, skipped, err := lines(t, tc.input)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(got, "|") != strings.Join(tc.want, "|") || len(got) != len(tc.want) || skipped != tc.skipped {
				t.Errorf("got %d lines (skipped %d), want %d (skipped %d)", len(got), skipped, len(tc.want), tc.skipped)
			}
		})
	}
}

func TestEachLineStopsAndFails(t *testing.T) {
	n := 0
	if _, err := agent.EachLine(strings.NewReader("a\nb\nc\n"), func([]byte) bool { n++; return n < 2 }); err != nil || n != 2 {
		t.Errorf("stopped after %d lines (%v), want 2", n, err)
	}
	boom := errors.New("boom")
	got := 0
	_, err := agent.EachLine(iotest.TimeoutReader(strings.NewReader("a\nb\n")), func([]byte) bool { got++; return true })
	if err == nil {
		t.Errorf("a failing reader: no error (lines %d)", got)
	}
	_, err = agent.EachLine(iotest.ErrReader(boom), func([]byte) bool { return true })
	if !errors.Is(err, boom) {
		t.Errorf("error %v, want %v", err, boom)
	}
}

// FuzzEachLine holds EachLine to splitting at newlines, trimming, and
// dropping blank lines, whatever the bytes.
func FuzzEachLine(f *testing.F) {
	for _, s := range []string{"", "a\nb", "\r\n\r\n", " x \n\n y", "\x00\n\xff"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var want []string
		for l := range bytes.SplitSeq(data, []byte("\n")) {
			if l = bytes.TrimSpace(l); len(l) > 0 {
				want = append(want, string(l))
			}
		}
		got, skipped, err := lines(t, string(data))
		if err != nil || skipped != 0 || strings.Join(got, "\n") != strings.Join(want, "\n") || len(got) != len(want) {
			t.Errorf("EachLine(%q) = %q (skipped %d, %v), want %q", data, got, skipped, err, want)
		}
	})
}

package recall

import (
	"fmt"
	"io"
	"strings"

	"github.com/cairn-dev/cairn/helpers/internal/untrusted"
	"github.com/cairn-dev/cairn/helpers/internal/when"
)

// Select is the first last injections of list (session's alone, when it
// is set), their text kept only with text.
func Select(list []Injection, last int, session string, text bool) []Injection {
	out := []Injection{}
	for _, in := range list {
		if len(out) == last {
			break
		}
		if session != "" && in.Session != session {
			continue
		}
		if !text {
			in.Text = ""
		}
		out = append(out, in)
	}
	return out
}

// WriteInjections writes injections for a person, every text from the
// record on one terminal line (untrusted.Line) but the text injected,
// which the caller's writer filters (cli's terminal writer).
func WriteInjections(w io.Writer, list []Injection) {
	for i, in := range list {
		if i > 0 {
			fmt.Fprintln(w)
		}
		head := []string{when.PersonNanos(in.Time), orNone(untrusted.Line(in.Agent, 40)), "session " + orNone(untrusted.Line(in.Session, 80))}
		if in.Branch != "" {
			head = append(head, "branch "+untrusted.Line(in.Branch, 80))
		}
		if in.Holdout {
			fmt.Fprintln(w, strings.Join(append(head, in.Moment, ReasonHoldout), "  "))
			continue
		}
		head = append(head, in.Moment, fmt.Sprintf("%d of %d used", in.Used, in.Budget))
		fmt.Fprintln(w, strings.Join(head, "  "))
		for _, e := range in.Entries {
			fmt.Fprintf(w, "  %-28s %s\n", untrusted.Line(e.Reason, 40), untrusted.Line(e.Key, 120))
		}
		for _, k := range in.Held {
			fmt.Fprintf(w, "  %-28s %s\n", ReasonHeld, untrusted.Line(k, 120))
		}
		if in.Handoff > 0 {
			fmt.Fprintf(w, "  %-28s %d items\n", ReasonHandoff, in.Handoff)
		}
		if in.Text != "" {
			fmt.Fprintln(w, "  --- the text injected ---")
			fmt.Fprintln(w, in.Text)
			fmt.Fprintln(w, "  --- end ---")
		}
	}
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

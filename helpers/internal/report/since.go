package report

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/helpers/internal/agent"
)

// ParseSince reads a --since: a Go duration or a number of days ("30d");
// "0" or "" is no bound.
func ParseSince(s string) (time.Duration, error) {
	if s == "0" || s == "" {
		return 0, nil
	}
	if days, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.Atoi(days)
		if err == nil && n >= 0 {
			return time.Duration(n) * 24 * time.Hour, nil
		}
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("not a number of days or a duration: %q", s)
	}
	return d, nil
}

// Measured are the names of the agents, of agents, whose sessions cairn
// reports on (each an [agent.Measurer]).
func Measured(agents []agent.Adapter) []string {
	var out []string
	for _, a := range agents {
		if _, ok := a.(agent.Measurer); ok {
			out = append(out, a.Name())
		}
	}
	return out
}

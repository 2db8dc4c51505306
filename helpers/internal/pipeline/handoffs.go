package pipeline

import (
	"path/filepath"
	"sort"
)

// Handoffs are the handoffs of every branch, the newest first.
func (p Personal) Handoffs() []Handoff {
	paths, _ := filepath.Glob(filepath.Join(p.Dir, "handoff", "*.md"))
	var out []Handoff
	for _, path := range paths {
		if h, ok := readHandoff(path); ok {
			out = append(out, h)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Written.After(out[j].Written) })
	return out
}

package accept

import (
	"slices"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/hookgate"
)

// Every agent whose capture events hookgate lets through has an adapter
// here, and no other: an agent missing here would still be captured, by
// the full hook, but without the fast path.
func TestAdaptersAgreeWithHookgate(t *testing.T) {
	var here []string
	for name := range adapters {
		here = append(here, name)
	}
	gate := hookgate.Agents()
	slices.Sort(here)
	slices.Sort(gate)
	if !slices.Equal(here, gate) {
		t.Errorf("accept's adapters %v, hookgate's agents %v", here, gate)
	}
}

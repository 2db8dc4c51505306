package pipeline

import (
	"testing"
	"time"
)

func TestHandoffs(t *testing.T) {
	p := Personal{Dir: t.TempDir()}
	if got := p.Handoffs(); len(got) != 0 {
		t.Fatalf("no handoff yet: %+v", got)
	}
	t0 := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	for _, h := range []Handoff{
		{Branch: "main", Session: "s1", Written: t0, Items: []string{"finish the index"}},
		{Branch: "feature/ui", Session: "s2", Written: t0.Add(time.Hour), Items: []string{"style the list", "add the timeline"}},
	} {
		if err := p.WriteHandoff(h); err != nil {
			t.Fatal(err)
		}
	}
	got := p.Handoffs()
	if len(got) != 2 || got[0].Branch != "feature/ui" || got[1].Branch != "main" || len(got[0].Items) != 2 || got[0].Session != "s2" {
		t.Fatalf("Handoffs = %+v", got)
	}
	if h, ok := p.ReadHandoff("main"); !ok || h.Branch != "main" || h.Items[0] != "finish the index" {
		t.Errorf("ReadHandoff(main) = %+v, %v", h, ok)
	}
}

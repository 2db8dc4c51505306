package holdout_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/holdout"
	"github.com/cairn-dev/cairn/helpers/internal/testharness/testenv"
)

// TestMain gives the tests their own HOME and XDG directories (see testenv).
func TestMain(m *testing.M) { testenv.Main(m) }

func ptr(f float64) *float64 { return &f }

func TestShare(t *testing.T) {
	for _, c := range []struct {
		name         string
		team, person *float64
		want         float64
	}{
		{"off by default", nil, nil, 0},
		{"the team's", ptr(0.1), nil, 0.1},
		{"the person's wins", ptr(0.1), ptr(0.2), 0.2},
		{"the person's 0 turns it off", ptr(0.1), ptr(0), 0},
		{"negative is off", ptr(-1), nil, 0},
		{"clamped", ptr(0.9), nil, holdout.MaxShare},
		{"not a number is off", ptr(math.NaN()), nil, 0},
	} {
		if got := holdout.Share(c.team, c.person); got != c.want {
			t.Errorf("%s: Share = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestOutIsStableAndProportional(t *testing.T) {
	const n = 20000
	out := 0
	for i := range n {
		id := fmt.Sprintf("session-%d", i)
		a, b := holdout.Out(id, 0.1), holdout.Out(id, 0.1)
		if a != b {
			t.Fatalf("%s: two answers", id)
		}
		if a {
			out++
			if !holdout.Out(id, 0.2) {
				t.Fatalf("%s: out at 0.1 but not at 0.2", id)
			}
		}
	}
	if got := float64(out) / n; got < 0.09 || got > 0.11 {
		t.Errorf("share held out = %.3f, want about 0.1", got)
	}
	if holdout.Out("", 0.5) || holdout.Out("x", 0) {
		t.Error("an empty id or a zero share held out")
	}
}

package anchor

import (
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
)

// sorted is m with each anchor's keys sorted, for comparing maps whose
// lines list the same keys in another order.
func sorted(m Map) Map {
	out := Map{Sources: m.Sources, Files: map[string][]string{}, Commands: map[string][]string{}}
	for n, k := range m.Files {
		out.Files[n] = slices.Sorted(slices.Values(k))
	}
	for n, k := range m.Commands {
		out.Commands[n] = slices.Sorted(slices.Values(k))
	}
	return out
}

func sameMap(a, b Map) bool {
	a, b = sorted(a), sorted(b)
	eq := func(x, y map[string][]string) bool {
		return maps.EqualFunc(x, y, func(p, q []string) bool { return slices.Equal(p, q) })
	}
	return a.Sources == b.Sources && eq(a.Files, b.Files) && eq(a.Commands, b.Commands)
}

// Update changes a map as a full Encode of the changed anchors would:
// random keys move between random anchors, appear and go, over many
// rounds, each applied to the previous round's output.
func TestUpdateEqualsEncode(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	names := []string{"a", "a/b", "a/b/c.go", "b.go", "db/migrations", "z", "ß/ü.go", "terraform apply", "go test", "make"}
	type anchors struct{ files, cmds []string }
	state := map[string]anchors{} // key -> its anchors
	pick := func() anchors {
		var a anchors
		for range rng.IntN(3) {
			if f := names[rng.IntN(7)]; !slices.Contains(a.files, f) {
				a.files = append(a.files, f)
			}
		}
		if rng.IntN(4) == 0 {
			a.cmds = append(a.cmds, names[7+rng.IntN(3)])
		}
		return a
	}
	build := func(src string) Map {
		m := Map{Sources: src, Files: map[string][]string{}, Commands: map[string][]string{}}
		for k, a := range state {
			for _, f := range a.files {
				m.Files[f] = append(m.Files[f], k)
			}
			for _, c := range a.cmds {
				m.Commands[c] = append(m.Commands[c], k)
			}
		}
		return m
	}
	data := Encode(build("0"))
	for round := 1; round < 300; round++ {
		c := Change{Keys: map[string]bool{}, Old: Map{Files: map[string][]string{}, Commands: map[string][]string{}}, New: Map{Files: map[string][]string{}, Commands: map[string][]string{}}}
		for range 1 + rng.IntN(4) {
			k := "k" + strconv.Itoa(rng.IntN(40))
			if c.Keys[k] {
				continue
			}
			c.Keys[k] = true
			for _, f := range state[k].files {
				c.Old.Files[f] = append(c.Old.Files[f], k)
			}
			for _, cmd := range state[k].cmds {
				c.Old.Commands[cmd] = append(c.Old.Commands[cmd], k)
			}
			if rng.IntN(3) == 0 {
				delete(state, k)
				continue
			}
			a := pick()
			state[k] = a
			for _, f := range a.files {
				c.New.Files[f] = append(c.New.Files[f], k)
			}
			for _, cmd := range a.cmds {
				c.New.Commands[cmd] = append(c.New.Commands[cmd], k)
			}
		}
		src := strconv.Itoa(round)
		out, ok := Update(data, src, c)
		if !ok {
			t.Fatalf("round %d: Update refused its own map:\n%s", round, data)
		}
		got, err := Parse(out)
		if err != nil {
			t.Fatalf("round %d: %v\n%s", round, err, out)
		}
		if want := build(src); !sameMap(got, want) {
			t.Fatalf("round %d: got %v, want %v", round, sorted(got), sorted(want))
		}
		for _, n := range names[:7] {
			hits := Lookup(out, []string{n}, "")
			if want := build(src).Files[n]; len(want) > 0 && (len(hits) == 0 || hits[0].Anchor != n) {
				t.Fatalf("round %d: Lookup(%q) = %v after an update", round, n, hits)
			}
		}
		data = out
	}
}

// Update puts a changed key first on its line and refuses what is not a
// map.
func TestUpdateOrderAndRefusal(t *testing.T) {
	data := Encode(Map{Sources: "s", Files: map[string][]string{"a.go": {"k1", "k2"}}})
	out, ok := Update(data, "t", Change{Keys: map[string]bool{"k3": true}, New: Map{Files: map[string][]string{"a.go": {"k3"}}}})
	if m, err := Parse(out); !ok || err != nil || !slices.Equal(m.Files["a.go"], []string{"k3", "k1", "k2"}) || m.Sources != "t" {
		t.Errorf("Update = %q, %v", out, ok)
	}
	for _, bad := range []string{"", "cairn-anchors 1\n", "cairn-anchors 1\nsrc x\nq a\tk\n", "cairn-anchors 1\nsrc x\nf a\tk\nc b\tk\n"} {
		if _, ok := Update([]byte(bad), "t", Change{}); ok {
			t.Errorf("Update(%q) accepted", bad)
		}
	}
}

// Encode is linear in the keys of a line: a hostile log's 150,000 notes
// on one file (quadratic, this took minutes).
func BenchmarkEncodeOnePath(b *testing.B) {
	keys := make([]string, 150_000)
	for i := range keys {
		keys[i] = "learned-note-" + strconv.Itoa(i)
	}
	m := Map{Sources: "s", Files: map[string][]string{"a.go": keys}}
	for b.Loop() {
		Encode(m)
	}
}

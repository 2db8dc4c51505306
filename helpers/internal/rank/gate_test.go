package rank

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/index"
	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
)

// gateLog is a small log: common words (driver, app, build, test) in many
// entries, each entry's own rare words in one, and one long note whose
// rare words stand far apart.
func gateLog(t *testing.T) *knowledge.Store {
	t.Helper()
	var es []knowledge.Entry
	for i := range 12 {
		es = append(es, knowledge.Entry{Key: fmt.Sprintf("fact-common-%06d", i), Type: "fact", TS: int64(100 + i),
			Content: fmt.Sprintf("The driver app build %d runs the test suite before release.", i)})
	}
	es = append(es,
		knowledge.Entry{Key: "learned-geofence-aaaaaa", Type: "learned", TS: 200,
			Content: "Auto-arrive needs the truck inside the geofence radius for two pings; the driver app sends them."},
		knowledge.Entry{Key: "learned-long-bbbbbb", Type: "learned", TS: 201,
			Content: "Rotated the carrier password today. " + strings.Repeat("Unrelated notes about the console. ", 20) + "The office printer is fine."},
	)
	return newStore(t, es...)
}

func TestGateWeighsRareWordsTogether(t *testing.T) {
	ix := openSynced(t, gateLog(t))
	for _, weigh := range []bool{false, true} {
		for _, tc := range []struct {
			query  string
			passed bool
		}{
			{"geofence radius", true},                  // the rare words, together
			{"driver app geofence", true},              // a rare word carries common ones
			{"iOS driver app TestFlight build", false}, // only the common words are held
			{"kafka consumer rebalance", false},        // nothing held
			{"office password zebra yak gnu", false},   // held, but forty words apart
			{"carrier password zebra yak gnu", true},   // held together
			{"geofence", true},                         // one word, held
		} {
			hits, g, err := searchGate(ix, Query{Text: tc.query, Limit: 10, Floor: true}, weigh)
			if err != nil {
				t.Fatal(err)
			}
			if g == nil || g.Passed != tc.passed || (len(hits) > 0) != tc.passed {
				t.Errorf("%q: gate %+v, %d hits; want passed %v", tc.query, g, len(hits), tc.passed)
				continue
			}
			if tc.passed && g.By == "" || !tc.passed && g.By != "" || g.Need != Default.GateShare {
				t.Errorf("%q: by %q need %v", tc.query, g.By, g.Need)
			}
		}
	}
	// The weights: a word in every entry weighs least, one in none most.
	_, g, err := searchGate(ix, Query{Text: "driver geofence zebra", Limit: 10, Floor: true}, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Words) != 3 || !(g.Words[0].Weight < g.Words[1].Weight && g.Words[1].Weight < g.Words[2].Weight) || g.Words[2].DF != 0 {
		t.Errorf("weights: %+v", g.Words)
	}
	// Without Floor there is no gate.
	if hits, g, _ := searchGate(ix, Query{Text: "iOS driver app TestFlight build", Limit: 10}, false); g != nil || len(hits) == 0 {
		t.Errorf("no floor: gate %v, %d hits", g, len(hits))
	}
}

// The note that says the query's words together comes before the one
// that holds them apart, and the bonus is on the hit.
func TestProximityLiftsWordsTogether(t *testing.T) {
	s := newStore(t,
		knowledge.Entry{Key: "fact-apart-aaaaaa", Type: "fact", TS: 100,
			Content: "The board meeting moved. Load the fixtures first."},
		knowledge.Entry{Key: "fact-together-bbbbbb", Type: "fact", TS: 101,
			Content: "The load board query needs the composite index on tenant and status, or it scans every row of the table."},
	)
	ix := openSynced(t, s)
	hits := mustSearch(t, ix, Query{Text: "load board", Limit: 5})
	if got := keys(hits); len(got) != 2 || got[0] != "fact-together-bbbbbb" {
		t.Fatalf("order: %v", got)
	}
	// Both say the words within ProximityPhrase words; only one says them
	// side by side.
	if k := Default; hits[0].Proximity != (1+k.ProximityBonus)*(1+k.ProximityPhraseBonus) || hits[1].Proximity != 1+k.ProximityPhraseBonus {
		t.Errorf("proximity: %v, %v", hits[0].Proximity, hits[1].Proximity)
	}
	// One word: nothing to stand together.
	if hits := mustSearch(t, ix, Query{Text: "board", Limit: 5}); len(hits) != 2 || hits[0].Proximity != 0 {
		t.Errorf("one word: %+v", hits)
	}
}

// Of two notes of one length that each say the query's words once, never
// side by side, the one that says them within a phrase comes first.
func TestProximityPhrase(t *testing.T) {
	filler := strings.Repeat("filler words here ", 10)
	s := newStore(t,
		knowledge.Entry{Key: "fact-apart-aaaaaa", Type: "fact", TS: 101,
			Content: "The sensor reported. " + filler + "Then the gateway rebooted."},
		knowledge.Entry{Key: "fact-phrase-bbbbbb", Type: "fact", TS: 100,
			Content: "The sensor reported and then the gateway rebooted. " + filler},
	)
	ix := openSynced(t, s)
	hits := mustSearch(t, ix, Query{Text: "sensor gateway", Limit: 5})
	if got := keys(hits); len(got) != 2 || got[0] != "fact-phrase-bbbbbb" {
		t.Fatalf("order: %v", got)
	}
	if hits[0].Proximity != 1+Default.ProximityPhraseBonus || hits[0].Phrase != hits[0].Proximity || hits[1].Proximity != 1 || hits[1].Phrase != 1 {
		t.Errorf("proximity: %v, %v", hits[0].Proximity, hits[1].Proximity)
	}
}

// A branch name finds by its words, not its kind of change.
func TestBranchPrefixIsNoContentWord(t *testing.T) {
	s := newStore(t,
		knowledge.Entry{Key: "fact-fix-aaaaaa", Type: "fact", TS: 100, Content: "Fix the flaky fix script before every fix release."},
		knowledge.Entry{Key: "fact-eta-bbbbbb", Type: "fact", TS: 101, Content: "The ETA flapped because two writers updated it."},
	)
	ix := openSynced(t, s)
	if got := keys(mustSearch(t, ix, Query{Text: "fix/eta", Limit: 5})); len(got) != 1 || got[0] != "fact-eta-bbbbbb" {
		t.Errorf("fix/eta: %v", got)
	}
}

// A session's context (branch, commit subjects, files) is many unrelated
// words: the question's gate would stop it, the context's lets an entry
// through that holds two of them, and still stops one that holds fewer.
func TestContextGate(t *testing.T) {
	ix := openSynced(t, gateLog(t))
	context := "payments retry timeout init notes driver app README.md go.mod ci.yml"
	hits, g, err := searchGate(ix, Query{Text: context, Limit: 10, Floor: true}, false)
	if err != nil || g == nil || g.Passed || len(hits) != 0 {
		t.Fatalf("as a question: gate %+v, %d hits, %v; want stopped", g, len(hits), err)
	}
	hits, g, err = searchGate(ix, Query{Text: context, Limit: 10, Floor: true, Context: true}, false)
	if err != nil || g == nil || !g.Passed || len(hits) == 0 {
		t.Fatalf("as a context: gate %+v, %d hits, %v; want passed", g, len(hits), err)
	}
	hits, g, err = searchGate(ix, Query{Text: "kafka consumer rebalance driver", Limit: 10, Floor: true, Context: true}, false)
	if err != nil || g == nil || g.Passed || len(hits) != 0 {
		t.Fatalf("a context with one word held: gate %+v, %d hits, %v; want stopped", g, len(hits), err)
	}
}

// A best hit that holds enough of the weight passes only when it says the
// words in one sentence or holds words too rare to meet by chance: two
// fairly common words in different sentences of one note are no answer.
func TestGateWantsOneSentenceOrRareWords(t *testing.T) {
	log := func(note string) *index.Index {
		var es []knowledge.Entry
		for i := range 12 {
			word := "printer"
			if i%2 == 1 {
				word = "password"
			}
			es = append(es, knowledge.Entry{Key: fmt.Sprintf("fact-common-%06d", i), Type: "fact", TS: int64(100 + i),
				Content: fmt.Sprintf("Entry %d mentions the %s once.", i, word)})
		}
		es = append(es,
			knowledge.Entry{Key: "fact-toner-aaaaaa", Type: "fact", TS: 200, Content: "Toner is in the cupboard."},
			knowledge.Entry{Key: "fact-note-bbbbbb", Type: "fact", TS: 201, Content: note})
		return openSynced(t, newStore(t, es...))
	}
	for _, tc := range []struct {
		note, query, why string
		passed           bool
	}{
		{"The printer password is on the wall by the door.", "printer password toner", "in one sentence", true},
		{"The printer jammed on Monday. The password rotated on Friday.", "printer password toner", "neither in one sentence nor too rare", false},
		{"The printer jammed on Monday. The password rotated on Friday.", "printer password", "every word", true},
		{"Alpha rose. Bravo fell. Charlie ran. Delta hid. Echo sang.", "alpha bravo charlie delta echo foxtrot", "too rare to meet by chance", true},
	} {
		ix := log(tc.note)
		for _, weigh := range []bool{false, true} {
			hits, g, err := searchGate(ix, Query{Text: tc.query, Limit: 10, Floor: true}, weigh)
			if err != nil {
				t.Fatal(err)
			}
			if g.Passed != tc.passed || (len(hits) > 0) != tc.passed || weigh && !strings.Contains(g.Why, tc.why) {
				t.Errorf("%q in %q (weighed %v): %+v; want passed %v, %q", tc.query, tc.note, weigh, g, tc.passed, tc.why)
			}
		}
	}
}

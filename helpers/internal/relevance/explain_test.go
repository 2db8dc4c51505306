package relevance

import (
	"slices"
	"testing"
)

func TestAnalyseAgreesWithTerms(t *testing.T) {
	for _, q := range []string{
		"parseConfig in the db",
		"How do I fix the OAuth redirect for the k8s auth service?",
		"a the of",
		"HTTPServer HTTPServer httpserver",
		"one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen",
		"",
	} {
		a := Analyse(q)
		var got []string
		for _, tm := range a.Terms {
			got = append(got, tm.Term)
			if (tm.Origin == FromSplit) != (tm.Of != "") {
				t.Errorf("%q: term %+v: origin and source disagree", q, tm)
			}
		}
		if want := Terms(q); !slices.Equal(got, want) {
			t.Errorf("Analyse(%q) terms %v, Terms %v", q, got, want)
		}
		syns := []string{}
		for _, s := range a.Synonyms {
			syns = append(syns, s.Term)
		}
		if want := Expand(got)[len(got):]; !slices.Equal(syns, want) {
			t.Errorf("Analyse(%q) synonyms %v, Expand %v", q, syns, want)
		}
	}
	a := Analyse("parseConfig in the db")
	if a.Terms[1] != (Term{Term: "parse", Origin: FromSplit, Of: "parseConfig"}) {
		t.Errorf("split term: %+v", a.Terms[1])
	}
	if !slices.Contains(a.Dropped, "the") || !slices.Contains(a.Dropped, "in") {
		t.Errorf("dropped: %v", a.Dropped)
	}
	if !slices.ContainsFunc(a.Synonyms, func(s Term) bool { return s.Term == "database" && s.Of == "db" }) {
		t.Errorf("synonyms: %+v", a.Synonyms)
	}
}

package knowledge

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// A made-up token of GitHub's classic shape.
const ghToken = "ghp_" + "Zq3vT8mK2pL9xW4nR7bY1cF6hJ0sD5gA2eUi"

// TestInsertRedactsEveryField: whatever field a secret hides in, Insert
// writes the entry without it, says what it removed, and keys the entry
// from the redacted content.
func TestInsertRedactsEveryField(t *testing.T) {
	s := Open(t.TempDir())
	// Every text field, present and future, gets the token: the entry is
	// filled through EachText, so a field added to Entry is covered here
	// without a change to this test.
	e := Entry{Type: "learned", Content: "the bot uses " + ghToken + " for releases", TS: 1763770000,
		Tags: []string{"ci"}, Files: []string{"deploy/x.env"}, MergedFrom: []string{"m"},
		Detail: &Detail{Alternatives: []string{"a"}}}
	filled := 0
	EachText(&e, func(f *string) {
		if f != &e.Type && f != &e.Content {
			*f += " " + ghToken
			filled++
		}
	})
	if filled < 20 {
		t.Fatalf("filled only %d text fields", filled)
	}
	e.Key = MakeKey(e.Type, e.Content)
	res, err := s.Insert([]Entry{e})
	if err != nil || len(res.Added) != 1 {
		t.Fatalf("Insert = %+v, %v", res, err)
	}
	data, _ := s.ReadLog()
	if strings.Contains(string(data), ghToken) || strings.Contains(string(data), ghToken[4:20]) {
		t.Fatalf("the token reached the log:\n%s", data)
	}
	got := res.Added[0]
	if got.Key != MakeKey(got.Type, got.Content) {
		t.Errorf("key %q is not made from the redacted content %q", got.Key, got.Content)
	}
	if strings.Contains(got.Key, "ghp") {
		t.Errorf("key carries the token: %q", got.Key)
	}
	if len(got.Redacted) == 0 {
		t.Error("the entry does not record that it was redacted")
	}
}

// TestInsertLinesRedacts: raw lines (retract, curate --apply) and imports
// are redacted at any depth, keys and order kept, and a clean line is
// written byte for byte.
func TestInsertLinesRedacts(t *testing.T) {
	s := Open(t.TempDir())
	clean := `{"key":"learned-a-111111","type":"learned","content":"plain","ts":1,"x":{"y":[1,"two"]}}`
	dirty := `{"key":"learned-b-222222","type":"learned","content":"ok","ts":2,"review_reason":"token ` + ghToken + `","extra":{"deep":["` + ghToken + `"]}}`
	if err := s.InsertLines([][]byte{[]byte(clean), []byte(dirty)}); err != nil {
		t.Fatal(err)
	}
	data, _ := s.ReadLog()
	if strings.Contains(string(data), ghToken) {
		t.Fatalf("token reached the log:\n%s", data)
	}
	if !strings.Contains(string(data), clean+"\n") {
		t.Errorf("a clean line was rewritten:\n%s", data)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Errorf("invalid line %q: %v", line, err)
		}
		if m["key"] == "learned-b-222222" {
			if !strings.HasPrefix(line, `{"key":"learned-b-222222","type":"learned"`) {
				t.Errorf("field order changed: %s", line)
			}
			if m["redacted"] == nil {
				t.Errorf("redacted line does not say so: %s", line)
			}
		}
	}
	imp := Open(t.TempDir())
	res, err := imp.Import([]byte(`{"key":"learned-c","type":"learned","content":"deploy with ` + ghToken + `","tags":["` + ghToken + `"],"ts":3}` + "\n"))
	if err != nil || res.Imported != 1 {
		t.Fatalf("Import = %+v, %v", res, err)
	}
	if data, _ := imp.ReadLog(); strings.Contains(string(data), ghToken) || !strings.Contains(string(data), `"key":"learned-c"`) {
		t.Errorf("import: token kept or key lost:\n%s", data)
	}
}

func TestRedactLineTable(t *testing.T) {
	for _, tc := range []struct{ in, mustNot, must string }{
		{`{"a":"` + ghToken + `"}`, ghToken, `"redacted":["github-token"]`},
		{`{"a":["x","` + ghToken + `"],"redacted":["jwt"]}`, ghToken, `"redacted":["jwt"]`},
		{`{"a":"\u0067hp_` + ghToken[4:] + `"}`, ghToken[4:], `"redacted"`}, // escaped in JSON
		{`{"a":1,"b":true,"c":null,"d":"plain <b>"}`, "", `"d":"plain <b>"`},
		{`not json`, "", `not json`},
	} {
		out, _ := redactLine([]byte(tc.in))
		if tc.mustNot != "" && strings.Contains(string(out), tc.mustNot) {
			t.Errorf("redactLine(%s) = %s: secret kept", tc.in, out)
		}
		if !strings.Contains(string(out), tc.must) {
			t.Errorf("redactLine(%s) = %s; want it to contain %s", tc.in, out, tc.must)
		}
		if strings.HasPrefix(tc.in, "{") && !json.Valid(out) {
			t.Errorf("redactLine(%s) = %s: invalid JSON", tc.in, out)
		}
	}
}

// TestFutureLineNeverWins: a line dated beyond the clock skew cannot take
// a key over from a line of the present; among future lines the later
// wins; a retraction still wins over everything.
func TestFutureLineNeverWins(t *testing.T) {
	now := time.Now().Unix()
	present := Entry{Key: "k", Type: "learned", Content: "good", TS: now - 3600}
	future := Entry{Key: "k", Type: "learned", Content: "evil", TS: now + 10*365*86400}
	further := Entry{Key: "k", Type: "learned", Content: "eviler", TS: now + 20*365*86400}
	skewed := Entry{Key: "k", Type: "learned", Content: "skewed", TS: now + 600}
	retracted := Entry{Key: "k", Type: "learned", Content: "gone", TS: now - 7200, Status: StatusRetracted}
	for _, tc := range []struct {
		name string
		a, b Entry
		want bool
	}{
		{"present over future", present, future, true},
		{"future not over present", future, present, false},
		{"later future over earlier future", further, future, true},
		{"small skew counts as now", skewed, present, true},
		{"retraction over future", retracted, future, true},
	} {
		a, b := Record{Entry: tc.a, JSON: []byte(tc.a.Content)}, Record{Entry: tc.b, JSON: []byte(tc.b.Content)}
		if got := a.Version().Newer(b.Version()); got != tc.want {
			t.Errorf("%s: Newer = %v; want %v", tc.name, got, tc.want)
		}
	}
	latest := Latest([]Record{{Entry: future}, {Entry: present}})
	if len(latest) != 1 || latest[0].Entry.Content != "good" {
		t.Errorf("Latest = %+v; want the present line", latest)
	}
}

// EachText reaches a string however a struct holds it, so a field added
// to a type is walked without a list to update.
func TestEachTextWalksEveryString(t *testing.T) {
	type inner struct{ D string }
	type withNewField struct {
		A      string
		B      []string
		C      *inner
		Nil    *inner
		N      int
		Added  string
		hidden string
	}
	v := withNewField{A: "a", B: []string{"b1", "b2"}, C: &inner{D: "d"}, Added: "new", hidden: "h"}
	var seen []string
	EachText(&v, func(s *string) { seen = append(seen, *s); *s = "x" })
	if strings.Join(seen, ",") != "a,b1,b2,d,new" {
		t.Errorf("EachText saw %v", seen)
	}
	if v.A != "x" || v.B[1] != "x" || v.C.D != "x" || v.Added != "x" || v.hidden != "h" {
		t.Errorf("EachText did not write through: %+v", v)
	}
}

// A clone shares nothing a walk could change.
func TestCloneIsDeep(t *testing.T) {
	e := Entry{Key: "k", Tags: []string{"t"}, Files: []string{"f"}, Detail: &Detail{Context: "c", Alternatives: []string{"a"}}, Note: "n"}
	c := e.Clone()
	EachText(&c, func(s *string) { *s = "x" })
	if e.Key != "k" || e.Tags[0] != "t" || e.Files[0] != "f" || e.Detail.Context != "c" || e.Detail.Alternatives[0] != "a" {
		t.Errorf("walking the clone changed the original: %+v %+v", e, *e.Detail)
	}
	if c.Note != "x" || c.Detail.Alternatives[0] != "x" {
		t.Errorf("clone not walked: %+v", c)
	}
}

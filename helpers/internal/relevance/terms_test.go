package relevance

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
)

func TestTerms(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"OAuth redirect URI", []string{"oauth", "redirect", "uri"}},
		{"the redirect of the URI", []string{"redirect", "uri"}},
		{"a b c", nil},
		{"", nil},
		{"café naïve 日本語", []string{"café", "naïve", "日本語"}},
		{"dup DUP Dup", []string{"dup"}},
		{"foo-bar_baz.qux", []string{"foo", "bar", "baz", "foobarbaz", "qux"}}, // joined at - and _, not at .
		{`"quoted" OR NEAR(x y)`, []string{"quoted", "near"}},
		{"parseConfig failed", []string{"parseconfig", "parse", "config", "failed"}},
	} {
		if got := Terms(tc.in); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Terms(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	long := strings.Repeat("alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma ", 3)
	if n := len(Terms(long)); n != MaxTerms {
		t.Errorf("Terms of a long text = %d, want %d", n, MaxTerms)
	}
}

func TestSplitIdent(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"parseConfig", []string{"parse", "config"}},
		{"HTTPServer", []string{"http", "server"}},
		{"OAuth", nil},
		{"OAuth2Client", []string{"oauth", "2", "client"}},
		{"iPhone", nil},
		{"utf8", []string{"utf", "8"}},
		{"plain", nil},
		{"", nil},
	} {
		if got := SplitIdent(tc.in); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("SplitIdent(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if got := Idents("call parseConfig, then HTTPServer.Start"); got != "parse config http server" {
		t.Errorf("Idents = %q", got)
	}
}

func TestExpand(t *testing.T) {
	if got := Expand([]string{"db", "zebra"}); !reflect.DeepEqual(got, []string{"db", "zebra", "database"}) {
		t.Errorf("Expand(db zebra) = %q", got)
	}
	// A synonym already asked for is not added twice.
	if got := Expand([]string{"repo", "repository"}); !reflect.DeepEqual(got, []string{"repo", "repository"}) {
		t.Errorf("Expand(repo repository) = %q", got)
	}
	many := Terms(strings.Repeat("auth config db env repo perf deps msg err req resp conn tx mem pkg lib ", 2))
	if len(many) != MaxTerms {
		t.Fatalf("%d terms", len(many))
	}
	if got := Expand(many); len(got) != maxExpanded || !reflect.DeepEqual(got[:MaxTerms], many) {
		t.Errorf("Expand of %d terms = %d terms %q", len(many), len(got), got)
	}
}

func TestCoverage(t *testing.T) {
	e := knowledge.Entry{Key: "k", Type: "fact", Content: "Authentication retries use parseConfig backoff", Tags: []string{"deploys"}, TS: 1}
	for _, tc := range []struct {
		terms   []string
		matched int
	}{
		{[]string{"authenticate"}, 1},    // one stem: authenticat / authentic
		{[]string{"retry", "config"}, 2}, // retries -> retr(y); parseConfig split
		{[]string{"deploy", "zebra"}, 1}, // one word of a longer query
		{[]string{"zebra"}, 0},           // nothing
		{[]string{"backoff", "parse", "zebra"}, 2},
		{nil, 0}, // nothing asked, nothing missing
	} {
		matched, share := Coverage(e, tc.terms)
		if matched != tc.matched || (len(tc.terms) > 0 && share != float64(tc.matched)/float64(len(tc.terms))) {
			t.Errorf("Coverage(%q) = %d, %v; want %d", tc.terms, matched, share, tc.matched)
		}
	}
}

func TestPrefixed(t *testing.T) {
	for _, tc := range []struct {
		term string
		want bool
	}{
		{"health", true},      // finds healthz
		{"service", true},     // stem servic: finds serviceaccount
		{"webhook", true},     // finds webhooksecret
		{"connections", true}, // stem connect
		{"stripe", false},     // stem strip
		{"running", false},    // stem runn; FTS5 would search run*
		{"caching", false},    // stem cach
		{"pgx", false},        // short
		{"idempotency", true}, // long
		{"deadlock", true},    // no suffix to strip
		{"db", false},         // short
		{"authentication", true},
	} {
		if got := Prefixed(tc.term); got != tc.want {
			t.Errorf("Prefixed(%q) = %v, want %v", tc.term, got, tc.want)
		}
	}
}

func TestStripBranchPrefix(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"fix/eta-flapping", "eta-flapping"},
		{"feat/per-facility-geofence", "per-facility-geofence"},
		{"chore: tenant offboarding script", " tenant offboarding script"},
		{"feat(api)!: idempotent create", " idempotent create"},
		{"  Fix: load board slow", " load board slow"},
		{"docs: recall table", " recall table"},
		{"docs/recall.md", "docs/recall.md"},     // a folder, not a branch
		{"test/fixtures", "test/fixtures"},       // a folder
		{"fixture loading", "fixture loading"},   // a word, not a prefix
		{"fix the ETA", "fix the ETA"},           // no separator
		{"feat(api: broken", "feat(api: broken"}, // an unclosed scope
		{"release/v1.2", "release/v1.2"},         // not a kind of change
		{"config/app.yaml", "config/app.yaml"},   // a path
		{"", ""},
	} {
		if got := StripBranchPrefix(tc.in); got != tc.want {
			t.Errorf("StripBranchPrefix(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestTermsJoinIdentifiers(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"max_ack_pending", []string{"max", "ack", "pending", "maxackpending"}},
		{"Idempotency-Key header", []string{"idempotency", "key", "idempotencykey", "header"}},
		{"fix/eta-flapping", []string{"eta", "flapping", "etaflapping"}},
		{"after_commit", []string{"commit", "aftercommit"}}, // a stop word still joins
		{"parseConfig", []string{"parseconfig", "parse", "config"}},
	} {
		if got := Terms(tc.in); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Terms(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	// The gate weighs the words, not their joins.
	if got := GateTerms("fix/max_ack_pending"); !reflect.DeepEqual(got, []string{"max", "ack", "pending"}) {
		t.Errorf("GateTerms = %q", got)
	}
	a := Analyse("max_ack_pending")
	if last := a.Terms[len(a.Terms)-1]; last.Origin != FromJoin || last.Of != "max_ack_pending" {
		t.Errorf("Analyse: the joined term is %+v", last)
	}
}

func TestIdentsJoinAndSplit(t *testing.T) {
	got := Idents("Send the Idempotency-Key; eta_recalc_interval and parseConfig.")
	want := "idempotencykey etarecalcinterval parse config" // the words apart are in the content
	if got != want {
		t.Errorf("Idents = %q, want %q", got, want)
	}
}

func TestWindowsAndTogether(t *testing.T) {
	e := knowledge.Entry{Content: "The load board was slow. " + strings.Repeat("filler ", 50) + "A signed URL expires; the database is fine.", Tags: []string{"db"}}
	terms := []string{"load", "board", "signed", "url", "db"}
	pos, held := Positions(e, terms, true)
	// load, board, signed, url, database (db's synonym), the db tag.
	if len(pos) != 6 {
		t.Fatalf("Positions = %v %v", pos, held)
	}
	if n := Together(pos, held, 2); n != 2 { // load board, signed url
		t.Errorf("Together = %d, want 2", n)
	}
	w := []float64{1, 2, 4, 8, 16}
	if got := BestWindow(pos, held, w, 10); got != 4+8+16 { // signed url database (+ the tag, apart)
		t.Errorf("BestWindow(10) = %v", got)
	}
	if got := BestWindow(pos, held, w, 1<<30); got != 31 {
		t.Errorf("BestWindow(all) = %v", got)
	}
	if pos, held := Positions(e, terms, false); BestWindow(pos, held, w, 1<<30) != 15+16 { // the tag holds db itself
		t.Errorf("without synonyms: %v %v", pos, held)
	}
}

// A stop word of a note holds no term, though the crude stem would match
// it ("them" is "theme" less its e).
func TestPositionsSkipStopWords(t *testing.T) {
	e := knowledge.Entry{Content: "The update broke them; the theme is fine."}
	pos, held := Positions(e, []string{"theme", "update"}, false)
	want := map[int][]int{1: {1}, 5: {0}}
	if len(pos) != len(want) {
		t.Fatalf("Positions = %v %v, want the words at 1 and 5 only", pos, held)
	}
	for i, p := range pos {
		if !reflect.DeepEqual(held[i], want[p]) {
			t.Errorf("word %d holds %v, want %v", p, held[i], want[p])
		}
	}
}

// A sentence ends at . ! ? ; before a space or the end, and at a line
// break; a dot inside a word ends nothing. BestSentence weighs the terms
// of the best sentence, never the tags.
func TestSentences(t *testing.T) {
	for _, tc := range []struct {
		content string
		starts  []int
	}{
		{"Bumped Go to 1.24 and chi to v5.1. Renamed geo; kept it", []int{10, 12}},
		{"see api/openapi.yaml now\nnext line", []int{5}},
		{"no end at all", nil},
		{"Trailing dot.", nil},
		{"Why? Because! Yes.", []int{1, 2}},
	} {
		if got := SentenceStarts(tc.content); !slices.Equal(got, tc.starts) {
			t.Errorf("SentenceStarts(%q) = %v, want %v", tc.content, got, tc.starts)
		}
	}
	e := knowledge.Entry{Content: "The printer jammed. The password rotated. The printer password is on the wall.", Tags: []string{"printer", "password"}}
	terms := []string{"printer", "password", "wall"}
	pos, held := Positions(e, terms, false)
	starts := SentenceStarts(e.Content)
	if got := BestSentence(pos, held, []float64{1, 2, 4}, starts); got != 7 {
		t.Errorf("best sentence: %v, want 7", got)
	}
	e.Content = "The printer jammed. The password rotated. The wall is white."
	pos, held = Positions(e, terms, false)
	if got := BestSentence(pos, held, []float64{1, 2, 4}, SentenceStarts(e.Content)); got != 4 {
		t.Errorf("apart: %v, want 4 (the tags hold printer and password, and are no sentence)", got)
	}
}

// BenchmarkGateSentence is what the gate adds for one best hit of a long
// note (2,000 characters): its sentences, and the best one's weight.
func BenchmarkGateSentence(b *testing.B) {
	e := knowledge.Entry{Content: strings.Repeat("The console polled GET /v1/loads every five seconds per open tab; the load board now listens to the stream. ", 19)}
	terms := []string{"console", "load", "board", "stream", "wifi"}
	weights := []float64{1, 2, 3, 4, 5}
	pos, held := Positions(e, terms, true)
	for b.Loop() {
		BestSentence(pos, held, weights, SentenceStarts(e.Content))
	}
}

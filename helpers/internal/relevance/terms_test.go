package relevance

import (
	"reflect"
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
		{"foo-bar_baz.qux", []string{"foo", "bar", "baz", "qux"}},
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

func TestCoverageAndConfident(t *testing.T) {
	e := knowledge.Entry{Key: "k", Type: "fact", Content: "Authentication retries use parseConfig backoff", Tags: []string{"deploys"}, TS: 1}
	for _, tc := range []struct {
		terms     []string
		matched   int
		confident bool
	}{
		{[]string{"authenticate"}, 1, true},     // one stem: authenticat / authentic
		{[]string{"retry", "config"}, 2, true},  // retries -> retr(y); parseConfig split
		{[]string{"deploy", "zebra"}, 1, false}, // one word of a longer query
		{[]string{"zebra"}, 0, false},           // nothing
		{[]string{"backoff", "parse", "zebra"}, 2, true},
		{nil, 0, true}, // nothing asked, nothing missing
	} {
		matched, share := Coverage(e, tc.terms)
		if matched != tc.matched || (len(tc.terms) > 0 && share != float64(tc.matched)/float64(len(tc.terms))) {
			t.Errorf("Coverage(%q) = %d, %v; want %d", tc.terms, matched, share, tc.matched)
		}
		if got := Confident(e, tc.terms); got != tc.confident {
			t.Errorf("Confident(%q) = %v, want %v", tc.terms, got, tc.confident)
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

package redact

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// The corpus lives at the repository root so that other packages' tests
// can read it too. Every secret in it is synthetic: random text of the
// right shape.
const corpusDir = "../../../testdata/redact"

// corpusLine is one line of secrets.jsonl or nonsecrets.jsonl.
type corpusLine struct {
	Kind   string `json:"kind"`
	Text   string `json:"text"`
	Secret string `json:"secret"` // secrets.jsonl only
	line   int
}

func loadCorpus(t *testing.T, name string) []corpusLine {
	t.Helper()
	f, err := os.Open(filepath.Join(corpusDir, name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []corpusLine
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for n := 1; sc.Scan(); n++ {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var c corpusLine
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatalf("%s:%d: %v", name, n, err)
		}
		c.line = n
		out = append(out, c)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// leaked reports whether out still holds secret: the secret itself, or,
// for a secret of 16 bytes or more, any 12 consecutive bytes of it.
func leaked(out, secret string) (string, bool) {
	if strings.Contains(out, secret) {
		return secret, true
	}
	const chunk = 12
	if len(secret) < 16 {
		return "", false
	}
	for i := 0; i+chunk <= len(secret); i++ {
		if strings.Contains(out, secret[i:i+chunk]) {
			return secret[i : i+chunk], true
		}
	}
	return "", false
}

// TestCorpus runs String on every line of the corpus: every secret must be
// gone from the output (recall, at least 98% overall), and every
// non-secret must come out byte for byte unchanged (no false positive at
// all). It logs recall per kind, overall recall and precision.
func TestCorpus(t *testing.T) {
	secrets := loadCorpus(t, "secrets.jsonl")
	nonsecrets := loadCorpus(t, "nonsecrets.jsonl")

	type tally struct{ total, caught int }
	perKind := map[string]*tally{}
	caught := 0
	var misses []string
	for _, c := range secrets {
		if c.Kind == "" || c.Secret == "" {
			t.Errorf("secrets.jsonl:%d: kind and secret are required", c.line)
			continue
		}
		if !strings.Contains(Normalize(c.Text), c.Secret) {
			t.Errorf("secrets.jsonl:%d: the secret is not in the normalised text", c.line)
		}
		k := perKind[c.Kind]
		if k == nil {
			k = &tally{}
			perKind[c.Kind] = k
		}
		k.total++
		out, fs := String(c.Text)
		if part, bad := leaked(out, c.Secret); bad {
			misses = append(misses, c.Kind+" (secrets.jsonl:"+itoa(c.line)+"): "+quote(part)+" survives in "+quote(out))
			continue
		}
		if fs == nil {
			t.Errorf("secrets.jsonl:%d: redacted without findings", c.line)
		}
		k.caught++
		caught++
	}

	falsePos := 0
	var fps []string
	for _, c := range nonsecrets {
		out, fs := String(c.Text)
		if out != c.Text || fs != nil {
			falsePos++
			fps = append(fps, c.Kind+" (nonsecrets.jsonl:"+itoa(c.line)+"): "+quote(c.Text)+" -> "+quote(out))
		}
	}

	kinds := make([]string, 0, len(perKind))
	for k := range perKind {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	for _, k := range kinds {
		v := perKind[k]
		t.Logf("recall %-24s %3d/%-3d %6.1f%%", k, v.caught, v.total, pct(v.caught, v.total))
	}
	recall := pct(caught, len(secrets))
	precision := pct(caught, caught+falsePos)
	for _, m := range misses {
		t.Errorf("missed %s", m)
	}
	for _, fp := range fps {
		t.Errorf("false positive %s", fp)
	}
	t.Logf("corpus: %d secrets of %d kinds, %d non-secrets", len(secrets), len(perKind), len(nonsecrets))
	t.Logf("recall %d/%d = %.1f%%; false positives %d/%d; precision %.1f%%",
		caught, len(secrets), recall, falsePos, len(nonsecrets), precision)
	if recall < 98 {
		t.Errorf("overall recall %.1f%% is below 98%%", recall)
	}
	if len(secrets) < 150 || len(perKind) < 35 || len(nonsecrets) < 150 {
		t.Errorf("the corpus is too small: %d secrets, %d kinds, %d non-secrets (want 150, 35, 150)",
			len(secrets), len(perKind), len(nonsecrets))
	}
}

func pct(a, b int) float64 {
	if b == 0 {
		return 100
	}
	return 100 * float64(a) / float64(b)
}

func itoa(n int) string { return strconv.Itoa(n) }

func quote(s string) string { return strconv.Quote(s) }

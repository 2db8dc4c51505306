package curate

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
	"github.com/cairn-dev/cairn/helpers/internal/sanitize"
)

func ent(key, content string, ts int64) knowledge.Entry {
	return knowledge.Entry{Key: key, Type: "fact", Content: content, TS: ts, Author: "ana", Tags: []string{"t"}}
}

func logOf(t testing.TB, entries ...knowledge.Entry) []byte {
	t.Helper()
	var b bytes.Buffer
	for i := range entries {
		line, err := knowledge.Marshal(&entries[i])
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

func gitRepo(t *testing.T, files map[string]string) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("the tests need the git binary on PATH")
	}
	dir := t.TempDir()
	for name, content := range files {
		p := dir + "/" + name
		if err := os.MkdirAll(p[:strings.LastIndexByte(p, '/')], 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"commit", "-q", "-m", "init"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_CONFIG_NOSYSTEM=1",
			"GIT_AUTHOR_NAME=Test", "GIT_AUTHOR_EMAIL=test@example.com", "GIT_COMMITTER_NAME=Test", "GIT_COMMITTER_EMAIL=test@example.com")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return dir
}

func byKey(lines []knowledge.Entry) map[string][]knowledge.Entry {
	m := map[string][]knowledge.Entry{}
	for _, l := range lines {
		m[l.Key] = append(m[l.Key], l)
	}
	return m
}

func TestProposeCluster(t *testing.T) {
	kept := ent("fact-c", "The API rate limit is 100 requests per minute.", 300)
	kept.MergedFrom = []string{"fact-zz-earlier"}
	log := logOf(t,
		ent("fact-b", "the API rate limit is 100 requests per minute", 200),
		ent("fact-a", "The API rate limit is 100 requests per minute!", 100),
		kept,
		ent("fact-other", "Deploys run on Tuesdays.", 100),
	)
	res := sanitize.Build(log, nil, sanitize.Options{})
	now := time.Unix(50, 0) // earlier than every entry
	p := Propose(res, now)
	if p.LogSHA256 != knowledge.Sum(log) || p.Created != 50 {
		t.Errorf("proposal header %q %d", p.LogSHA256, p.Created)
	}
	if len(p.Lines) != 3 {
		t.Fatalf("%d lines, want 3: %+v", len(p.Lines), p.Lines)
	}
	m := byKey(p.Lines)
	c := m["fact-c"]
	if len(c) != 1 || c[0].Status != knowledge.StatusCanonical || !slices.Equal(c[0].MergedFrom, []string{"fact-a", "fact-b", "fact-zz-earlier"}) ||
		c[0].ReviewReason == "" || c[0].TS != 301 || c[0].Content != kept.Content || c[0].Author != "ana" {
		t.Errorf("canonical line %+v", c)
	}
	for _, k := range []string{"fact-a", "fact-b"} {
		s := m[k]
		own := res.Latest[k]
		if len(s) != 1 || s[0].Status != knowledge.StatusSuperseded || s[0].SupersededBy != "fact-c" || s[0].ReviewReason != "duplicate of fact-c" || s[0].TS != own.TS+1 || s[0].Content != own.Content {
			t.Errorf("superseded line of %s: %+v", k, s)
		}
	}
	if _, ok := m["fact-other"]; ok {
		t.Error("an entry without duplicates was proposed")
	}
	// Later than the entries, lines are dated now.
	late := time.Unix(2_000_000_000, 0)
	for _, l := range Propose(res, late).Lines {
		if l.TS != late.Unix() {
			t.Errorf("%s: ts %d, want %d", l.Key, l.TS, late.Unix())
		}
	}
}

func TestProposeStale(t *testing.T) {
	root := gitRepo(t, map[string]string{"pkg/a.go": "package pkg\n"})
	curated := ent("fact-already", "old/gone.go was curated already.", 100)
	curated.Status, curated.ReviewReason = knowledge.StatusNeedsReview, "stale: old/gone.go"
	log := logOf(t,
		ent("fact-stale", "old/removed.go holds the retry loop.", 100),
		ent("fact-fine", "pkg/a.go holds the retry loop.", 100),
		ent("fact-partly", "pkg/a.go and old/x.go share a lock.", 100),
		curated,
	)
	res := sanitize.Build(log, nil, sanitize.Options{Root: root})
	p := Propose(res, time.Unix(50, 0))
	if len(p.Lines) != 1 {
		t.Fatalf("lines %+v, want only fact-stale", p.Lines)
	}
	l := p.Lines[0]
	if l.Key != "fact-stale" || l.Status != knowledge.StatusNeedsReview || !strings.Contains(l.ReviewReason, "old/removed.go") || l.TS != 101 {
		t.Errorf("needs_review line %+v", l)
	}
}

// Applying a proposal and proposing again gives nothing.
func TestProposeIdempotent(t *testing.T) {
	root := gitRepo(t, map[string]string{"pkg/a.go": "package pkg\n"})
	log := logOf(t,
		ent("fact-a", "Wrap errors with %w.", 100),
		ent("fact-b", "wrap errors with %w", 200),
		ent("fact-c", "Wrap  errors with %w!", 150),
		ent("fact-stale", "old/removed.go holds the retry loop.", 100),
	)
	now := time.Unix(1_000, 0)
	p := Propose(sanitize.Build(log, nil, sanitize.Options{Root: root}), now)
	if len(p.Lines) != 4 {
		t.Fatalf("first proposal %+v", p.Lines)
	}
	applied := append(bytes.Clone(log), logOf(t, p.Lines...)...)
	res := sanitize.Build(applied, nil, sanitize.Options{Root: root})
	if again := Propose(res, now.Add(time.Hour)); len(again.Lines) != 0 {
		t.Errorf("second proposal %+v", again.Lines)
	}
	// The canonical entry stays; the stale one, now needs_review, is
	// still out of the working set.
	if len(res.Active) != 1 || res.Active[0].Entry.Key != "fact-b" {
		t.Errorf("working set after applying: %+v", res.Active)
	}

	// A canonical entry that does not yet list a new duplicate is
	// proposed again, with the union of both.
	applied = append(applied, logOf(t, ent("fact-d", "WRAP errors with %w.", 50))...)
	again := Propose(sanitize.Build(applied, nil, sanitize.Options{Root: root}), now)
	m := byKey(again.Lines)
	if len(again.Lines) != 2 || len(m["fact-b"]) != 1 || !slices.Equal(m["fact-b"][0].MergedFrom, []string{"fact-a", "fact-c", "fact-d"}) ||
		len(m["fact-d"]) != 1 || m["fact-d"][0].SupersededBy != "fact-b" {
		t.Errorf("proposal for a new duplicate %+v", again.Lines)
	}
}

func TestEncodeDecodeRoundTrip(t *testing.T) {
	e := ent("fact-x", "Use <b> & \"quotes\" freely.", 100)
	c := e
	c.Status, c.ReviewReason, c.MergedFrom, c.TS = knowledge.StatusCanonical, "kept for 1 duplicate(s): fact-y", []string{"fact-y"}, 101
	s := ent("fact-y", "use <b> & \"quotes\" freely", 90)
	s.Status, s.ReviewReason, s.SupersededBy, s.TS = knowledge.StatusSuperseded, "duplicate of fact-x", "fact-x", 101
	r := Retraction(ent("fact-z", "Wrong.", 10), "no longer true", time.Unix(500, 0))
	p := Proposal{LogSHA256: strings.Repeat("ab", 32), Created: 1234, Lines: []knowledge.Entry{c, s, r}}
	data, err := p.Encode()
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(lines) != 4 {
		t.Fatalf("%d lines", len(lines))
	}
	var h map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &h); err != nil || h["cairn_curation"] != float64(FormatVersion) || h["lines"] != float64(3) || h["apply"] == "" {
		t.Errorf("header %s: %v", lines[0], err)
	}
	// Each change line is exactly the log line it will add.
	for i, l := range p.Lines {
		want, _ := knowledge.Marshal(&l)
		if lines[i+1] != string(want) {
			t.Errorf("line %d %s, want %s", i+2, lines[i+1], want)
		}
	}
	got, err := Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	if got.LogSHA256 != p.LogSHA256 || got.Created != p.Created || len(got.Lines) != len(p.Lines) {
		t.Fatalf("decoded %+v", got)
	}
	for i := range p.Lines {
		a, _ := knowledge.Marshal(&got.Lines[i])
		b, _ := knowledge.Marshal(&p.Lines[i])
		if !bytes.Equal(a, b) {
			t.Errorf("line %d: %s, want %s", i, a, b)
		}
	}
	// An empty proposal round-trips too, and CRLF and blank lines are fine.
	empty, _ := Proposal{LogSHA256: "x", Created: 1}.Encode()
	if got, err := Decode(empty); err != nil || len(got.Lines) != 0 || got.LogSHA256 != "x" {
		t.Errorf("empty proposal: %+v %v", got, err)
	}
	crlf := strings.ReplaceAll(string(data), "\n", "\r\n\r\n")
	if got, err := Decode([]byte(crlf)); err != nil || len(got.Lines) != 3 {
		t.Errorf("CRLF proposal: %d lines, %v", len(got.Lines), err)
	}
}

func TestDecodeErrors(t *testing.T) {
	header := `{"cairn_curation":1,"log_sha256":"abc","created":1,"lines":1,"apply":"x"}`
	line := func(status, reason string) string {
		e := ent("fact-x", "Some content here.", 5)
		e.Status, e.ReviewReason = status, reason
		b, _ := knowledge.Marshal(&e)
		return string(b)
	}
	good := line(knowledge.StatusNeedsReview, "stale")
	tests := []struct {
		name, data string
		notProp    bool   // want ErrNotProposal
		errHas     string // else an error containing this
	}{
		{"empty", "", true, ""},
		{"no header", good + "\n", true, ""},
		{"no header after a blank line", "\n" + good + "\n", true, ""},
		{"only blank lines", "\n\n  \n", true, ""},
		{"not json", "hello\n" + good, true, ""},
		{"wrong version", `{"cairn_curation":2,"log_sha256":"abc"}` + "\n" + good, true, ""},
		{"no log sum", `{"cairn_curation":1}` + "\n" + good, true, ""},
		{"no status", header + "\n" + line("", "why"), false, `status "" is not a curation status`},
		{"wrong status", header + "\n" + line("active", "why"), false, `line 2: status "active" is not a curation status`},
		{"missing review_reason", header + "\n" + good + "\n" + line(knowledge.StatusCanonical, "  "), false, "line 3: fact-x has no review_reason"},
		{"invalid entry", header + "\n" + `{"key":"k","type":"fact","ts":1,"status":"retracted","review_reason":"x"}`, false, "line 2:"},
		{"not json entry", header + "\nnot json", false, "line 2:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Decode([]byte(tt.data))
			switch {
			case tt.notProp && !errors.Is(err, ErrNotProposal):
				t.Errorf("err %v, want ErrNotProposal", err)
			case !tt.notProp && (err == nil || errors.Is(err, ErrNotProposal) || !strings.Contains(err.Error(), tt.errHas)):
				t.Errorf("err %v, want one containing %q", err, tt.errHas)
			}
		})
	}
}

func TestRetraction(t *testing.T) {
	e := ent("fact-x", "Deploys run from Jenkins.", 1_000)
	e.Status, e.SupersededBy, e.Note = knowledge.StatusSuperseded, "fact-y", "local note"
	e.Files = []string{"ci/Jenkinsfile"}
	for _, tc := range []struct {
		now    int64
		wantTS int64
	}{{500, 1_001}, {1_000, 1_001}, {5_000, 5_000}} {
		r := Retraction(e, "we left Jenkins", time.Unix(tc.now, 0))
		if r.Status != knowledge.StatusRetracted || r.ReviewReason != "we left Jenkins" || r.TS != tc.wantTS ||
			r.SupersededBy != "" || r.Note != "" || r.Key != e.Key || r.Content != e.Content || !slices.Equal(r.Files, e.Files) {
			t.Errorf("now %d: %+v", tc.now, r)
		}
		// The retraction wins over the entry's line.
		if got := knowledge.Latest([]knowledge.Record{{Entry: e}, {Entry: r}}); len(got) != 1 || got[0].Entry.Status != knowledge.StatusRetracted {
			t.Errorf("the retraction does not win over the entry: %+v", got)
		}
	}
	if e.Status != knowledge.StatusSuperseded || e.TS != 1_000 {
		t.Error("Retraction changed its argument")
	}
}

func TestDescribe(t *testing.T) {
	c := ent("fact-a", "x y", 1)
	c.Status, c.MergedFrom = knowledge.StatusCanonical, []string{"fact-b", "fact-c"}
	s := ent("fact-b", "x y", 1)
	s.Status, s.SupersededBy = knowledge.StatusSuperseded, "fact-a"
	n := ent("fact-d", "x y", 1)
	n.Status, n.ReviewReason = knowledge.StatusNeedsReview, "stale: a.go"
	r := ent("fact-e", "x y", 1)
	r.Status, r.ReviewReason = knowledge.StatusRetracted, "wrong"
	for e, want := range map[*knowledge.Entry]string{
		&c: "canonical     fact-a (merges fact-b, fact-c)",
		&s: "superseded    fact-b -> fact-a",
		&n: "needs_review  fact-d: stale: a.go",
		&r: "retracted     fact-e: wrong",
	} {
		if got := Describe(*e); got != want {
			t.Errorf("Describe = %q, want %q", got, want)
		}
	}
}

// FuzzDecode: Decode never panics; what it accepts has curation lines
// only, and encodes back to a file that decodes to the same proposal.
func FuzzDecode(f *testing.F) {
	e := ent("fact-x", "Some content here.", 5)
	e.Status, e.ReviewReason = knowledge.StatusNeedsReview, "stale"
	good, _ := Proposal{LogSHA256: "abc", Created: 1, Lines: []knowledge.Entry{e}}.Encode()
	for _, s := range []string{
		"",
		"\n",
		string(good),
		"\n" + string(good),
		strings.ReplaceAll(string(good), "\n", "\r\n"),
		`{"cairn_curation":1,"log_sha256":"x"}`,
		`{"cairn_curation":1,"log_sha256":"x"}` + "\n{}\n",
		`{"cairn_curation":1,"log_sha256":"x"}` + "\n" + `"{\"key\":\"k\"}"` + "\n",
		`{"cairn_curation":"1"}`,
		"[1,2]\n{}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Decode(data)
		if err != nil {
			return
		}
		if p.LogSHA256 == "" {
			t.Fatalf("accepted a proposal without log sum: %q", data)
		}
		for _, l := range p.Lines {
			switch l.Status {
			case knowledge.StatusCanonical, knowledge.StatusSuperseded, knowledge.StatusNeedsReview, knowledge.StatusRetracted:
			default:
				t.Fatalf("accepted status %q", l.Status)
			}
			if strings.TrimSpace(l.ReviewReason) == "" {
				t.Fatalf("accepted a line without reason: %+v", l)
			}
		}
		enc, err := p.Encode()
		if err != nil {
			t.Fatal(err)
		}
		q, err := Decode(enc)
		if err != nil {
			t.Fatalf("re-decode: %v\n%s", err, enc)
		}
		again, _ := q.Encode()
		if !bytes.Equal(enc, again) {
			t.Fatalf("round trip differs:\n%s\n%s", enc, again)
		}
	})
}

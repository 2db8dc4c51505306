package review

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
)

// Committed secrets, as a hand-written line could carry them past cairn
// add's redaction.
const (
	awsKey      = "AKIA2E0A8F3B244C9986"
	githubToken = "ghp_4f8Jd9Kq2Lm7Np3Rs6Tv1Wx5Yz0Ab8Cd2Ef"
)

// check --markdown and diff --markdown redact every field and stay under
// a pull-request comment's size, ending with what was left out and the
// command that lists it all.
func TestPullRequestMarkdownIsRedactedAndFits(t *testing.T) {
	secret := "deploy with " + awsKey + " and " + githubToken
	var entries []knowledge.Entry
	for i := range 3000 {
		entries = append(entries, knowledge.Entry{Key: fmt.Sprintf("fact-%04d", i), Type: "fact", Content: fmt.Sprintf("%d %s %s", i, secret, strings.Repeat("x", 400)), Author: "ana " + githubToken})
	}
	var changes []knowledge.Change
	var checked []CheckEntry
	for _, e := range entries {
		changes = append(changes, knowledge.Change{Kind: knowledge.ChangeAdded, Entry: e})
		checked = append(checked, CheckEntry{Entry: e, Changed: []string{"cmd/" + awsKey + ".go"}, Reasons: []string{"renamed " + awsKey}})
	}
	for _, tc := range []struct {
		name, all string
		print     func(*strings.Builder)
	}{
		{"diff", "cairn diff 'origin/main...HEAD'", func(b *strings.Builder) {
			WriteDiffMarkdown(b, DiffReport{From: "origin/main", To: "HEAD", Changes: changes}, "cairn diff 'origin/main...HEAD'")
		}},
		{"check", "cairn check --base origin/main", func(b *strings.Builder) {
			WriteCheckMarkdown(b, CheckReport{Base: "origin/main " + awsKey, Head: "working tree", Entries: checked, Added: entries}, "cairn check --base origin/main")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			tc.print(&b)
			out := b.String()
			if n := len([]rune(out)); n >= maxComment || len(out) >= maxComment {
				t.Errorf("%d characters, %d bytes", n, len(out))
			}
			if strings.Contains(out, awsKey) || strings.Contains(out, githubToken) {
				t.Errorf("a secret is printed")
			}
			if !strings.Contains(out, "[REDACTED:") {
				t.Errorf("no redaction marker:\n%s", out[:500])
			}
			last := strings.TrimSpace(out[strings.LastIndexByte(strings.TrimSpace(out), '\n'):])
			if !strings.HasPrefix(last, "_…and ") || !strings.HasSuffix(last, "All of them: `"+tc.all+"`_") {
				t.Errorf("the comment ends with %q", last)
			}
		})
	}
	// A short one is whole, with no such line.
	var b strings.Builder
	WriteDiffMarkdown(&b, DiffReport{From: "a", To: "b", Changes: changes[:3]}, "cairn diff a..b")
	if strings.Contains(b.String(), "not shown") || strings.Count(b.String(), "\n- ") != 3 {
		t.Errorf("three changes:\n%s", b.String())
	}
}

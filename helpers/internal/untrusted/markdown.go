package untrusted

import "strings"

// ForMarkdown makes untrusted text inert in Markdown read on a forge (a
// pull-request comment): the text, made safe for a terminal line (see
// [ForTerminal]: no control character, no line break), inside an inline
// code span (see [CodeSpan]), where no emphasis, link, autolink, mention,
// heading, list or raw HTML is rendered.
func ForMarkdown(s string) string { return CodeSpan(ForTerminal(s)) }

// CodeSpan writes s as a Markdown inline code span, fenced by more
// backticks than any run in s (padded with a space when s has a backtick,
// so one at either end stays inside).
func CodeSpan(s string) string {
	longest, run := 0, 0
	for _, c := range []byte(s) {
		if c == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	if longest > 0 {
		return fence + " " + s + " " + fence
	}
	return fence + s + fence
}

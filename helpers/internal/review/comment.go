package review

import (
	"fmt"
	"io"
	"strings"

	"github.com/cairn-dev/cairn/helpers/internal/redact"
	"github.com/cairn-dev/cairn/helpers/internal/untrusted"
)

// maxComment caps what check --markdown and diff --markdown print, in
// bytes (so in characters too): a pull-request comment holds at most
// 65,536 characters, and the last lines say what was left out.
const maxComment = 60000

// commentReserve is kept free for the closing lines.
const commentReserve = 600

// mdField is a field of the log for a pull-request comment: redacted
// (a committed secret prints as its redaction marker), cut to n runes,
// and an inline code span (see untrusted.ForMarkdown), so nothing in it
// can render.
func mdField(s string, n int) string {
	clean, _ := redact.String(untrusted.ForTerminal(s)) // control characters shown, then redacted
	return untrusted.ForMarkdown(untrusted.CutRunes(clean, n))
}

// comment writes a pull-request comment whose item lines stop before
// [maxComment]; the rest are counted for [comment.close].
type comment struct {
	b    strings.Builder
	left int // the items left out
}

// head writes text that introduces what follows (a title, a section's
// heading); once items are being left out, a heading is left out too.
func (c *comment) head(format string, args ...any) {
	if c.left == 0 {
		fmt.Fprintf(&c.b, format, args...)
	}
}

// item writes one line, or counts it as left out when it would not fit.
func (c *comment) item(line string) {
	if c.left > 0 || c.b.Len()+len(line)+1 > maxComment-commentReserve {
		c.left++
		return
	}
	c.b.WriteString(line)
	c.b.WriteByte('\n')
}

// close writes the comment to w, ending, when items were left out, with
// how many (noun: what an item is) and the command that lists them all.
func (c *comment) close(w io.Writer, noun, all string) {
	if c.left > 0 {
		fmt.Fprintf(&c.b, "\n_…and %d more %s not shown, to keep this comment under %d characters. All of them: %s_\n",
			c.left, noun, maxComment, untrusted.ForMarkdown(all))
	}
	io.WriteString(w, c.b.String())
}

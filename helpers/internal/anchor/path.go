package anchor

import (
	"bytes"
	"path"
	"slices"
	"strings"
)

// Clean is the one rule for an anchor's path: relative to the project
// root, forward slashes, cleaned ("./", "//", "a/../b" and a trailing
// slash folded away). ok is false for what cannot name a path inside the
// project: empty, the root itself, absolute, leaving the root, or holding
// a control character or a backslash. Every reader and writer of anchor
// data (capture, the log's input, sanitize, the anchor map, check, show)
// compares paths only after Clean.
func Clean(p string) (string, bool) {
	p = strings.TrimSpace(p)
	if p == "" || strings.HasPrefix(p, "/") || strings.ContainsRune(p, '\\') {
		return "", false
	}
	for _, c := range p {
		if c < 0x20 || c == 0x7f {
			return "", false
		}
	}
	p = path.Clean(p)
	if p == "." || p == ".." || strings.HasPrefix(p, "../") {
		return "", false
	}
	return p, true
}

// cleansTo reports whether [Clean] of p is one of cands, without
// allocating for the p Clean would keep as it is: one with no blank or
// other byte outside ASCII at either end, no "//" and no "./" in it, and
// no '/' or '.' at its end (Clean then keeps it, or refuses it).
func cleansTo(p []byte, cands []string) bool {
	for _, c := range cands {
		if string(p) == c {
			return true
		}
	}
	if len(p) == 0 {
		return false
	}
	first, last := p[0], p[len(p)-1]
	if first > ' ' && first < 0x80 && last > ' ' && last < 0x80 && last != '/' && last != '.' &&
		!bytes.Contains(p, []byte("//")) && !bytes.Contains(p, []byte("./")) {
		return false
	}
	c, ok := Clean(string(p))
	return ok && slices.Contains(cands, c)
}

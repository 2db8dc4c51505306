package anchor

import (
	"path"
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

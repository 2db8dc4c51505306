package sanitize

import (
	"bytes"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode"

	"github.com/cairn-dev/cairn/helpers/internal/anchor"
	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
)

// Anchors are what an entry names that the repository can confirm.
type Anchors struct {
	// Files are paths with a directory (internal/auth/redirect.go) and the
	// entry's own files field: all gone means the entry is stale.
	Files []string
	// Names are bare file names (install.sh): found, they confirm the
	// entry; not found, they say nothing (prose names files of other
	// projects, "Node.js" reads like one).
	Names []string
	// Symbols are identifiers (buildQuery, Client.Do, stop_hook_active):
	// one not found in any tracked file means the entry needs review.
	Symbols []string
}

// Empty reports whether there is nothing to check.
func (a Anchors) Empty() bool { return len(a.Files)+len(a.Names)+len(a.Symbols) == 0 }

// Caps on what one entry contributes.
const (
	maxFileAnchors   = 8
	maxSymbolAnchors = 6
)

// sourceExt lists the extensions of files worth anchoring to.
var sourceExt = func() map[string]bool {
	m := map[string]bool{}
	for _, e := range strings.Fields(`go mod sum ts tsx js jsx mjs cjs py pyi rb rs java kt kts scala swift m mm c h cc cpp cxx hpp hh cs fs
php ex exs erl hrl hs ml mli clj cljs lua pl pm r jl dart zig nim vue svelte astro html htm css scss sass less
md mdx rst txt json jsonl yaml yml toml ini cfg conf env xml proto graphql gql sql sh bash zsh fish ps1 bat
tf tfvars hcl gradle properties lock dockerfile mk cmake nix el vim`) {
		m[e] = true
	}
	return m
}()

var (
	backticked = lazy("`([^`\n]{3,100})`")
	identPath  = lazy(`^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*$`)
	callLike   = lazy(`(?:^|[^\w.$])([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)\(\)`)
	camelCase  = lazy(`(?:^|[^\w.$/-])([a-z][a-z0-9]+[A-Z][A-Za-z0-9]*[a-z0-9][A-Za-z0-9]*)(?:$|[^\w/-])`)
	snakeCase  = lazy(`(?:^|[^\w.$/-])([a-z][a-z0-9]*(?:_[a-z0-9]+)+)(?:$|[^\w/-])`)
	dotted     = lazy(`(?:^|[^\w.$/-])([A-Za-z][A-Za-z0-9]*\.[A-Z][A-Za-z0-9_]*)(?:$|[^\w./-])`)
)

// FindAnchors extracts the anchors of an entry from its files field and its
// content, keeping case.
func FindAnchors(e knowledge.Entry) Anchors { return findAnchors(e, scanContent(e.Content)) }

// findAnchors is FindAnchors for content that holds what has says (with
// every bit set, it tries every expression: the fuzz test compares).
func findAnchors(e knowledge.Entry, has int) Anchors {
	var a Anchors
	if len(e.Files) == 0 && has == 0 {
		return a // most prose: no character any anchor needs
	}
	var seen map[string]bool
	mark := func(s string) bool {
		if seen[s] {
			return false
		}
		if seen == nil {
			seen = map[string]bool{}
		}
		seen[s] = true
		return true
	}
	addFile := func(p string) {
		if len(a.Files) < maxFileAnchors && !seen[p] {
			mark(p)
			a.Files = append(a.Files, p)
		}
	}
	for _, f := range e.Files {
		if p, ok := repoPath(f); ok {
			addFile(p)
		}
	}
	if has&(hasSlash|hasDot) != 0 {
		for _, w := range knowledge.MentionedPaths(e.Content) {
			p, ok := repoPath(w)
			if !ok || !sourceExt[strings.ToLower(strings.TrimPrefix(path.Ext(p), "."))] {
				continue
			}
			if strings.Contains(p, "/") {
				addFile(p)
			} else if len(a.Names) < maxFileAnchors && !seen[p] {
				mark(p)
				a.Names = append(a.Names, p)
			}
		}
	}
	addSym := func(s string) {
		s = strings.TrimSuffix(s, "()")
		if len(a.Symbols) >= maxSymbolAnchors || len(s) < 3 || seen[s] || !identPath().MatchString(s) || commonWords[strings.ToLower(s)] {
			return
		}
		// A file name is a file anchor, not a symbol.
		if i := strings.LastIndexByte(s, '.'); i > 0 && sourceExt[strings.ToLower(s[i+1:])] {
			return
		}
		mark(s)
		a.Symbols = append(a.Symbols, s)
	}
	if has&hasBacktick != 0 {
		for _, m := range backticked().FindAllStringSubmatch(e.Content, -1) {
			s := strings.TrimSpace(m[1])
			if i := strings.IndexByte(s, '('); i > 0 {
				s = s[:i]
			}
			addSym(s)
		}
	}
	// Each expression runs only on content with the characters it needs.
	for _, x := range []struct {
		need int
		re   func() *regexp.Regexp
	}{{hasCall, callLike}, {hasCamel, camelCase}, {hasUnderscore, snakeCase}, {hasDotUpper, dotted}} {
		if has&x.need == 0 {
			continue
		}
		for _, m := range x.re().FindAllStringSubmatchIndex(e.Content, -1) {
			if !fileStem(e.Content, m[3]) {
				addSym(e.Content[m[2]:m[3]])
			}
		}
	}
	return a
}

// pascalCase is a CamelCase name with a capital inside (GetWithRetry,
// HTTPClient): not a symbol for the working set, where a name no file
// holds would flag prose (GitHub, JavaScript), but one for a check, which
// holds it against a note only when a changed file held it before.
var pascalCase = lazy(`(?:^|[^\w.$/-])([A-Z][A-Za-z0-9]*[a-z0-9][A-Z][A-Za-z0-9]*|[A-Z]{2,}[a-z][A-Za-z0-9]*)(?:$|[^\w/-])`)

// Identifiers are the names a note's content gives that a change can
// remove: the symbols of [FindAnchors], then the CamelCase names with a
// capital inside (GetWithRetry; a capitalised word at a sentence's start,
// which has none, is not one), each once, in order, at most
// maxSymbolAnchors of the latter.
func Identifiers(e knowledge.Entry) []string {
	out := FindAnchors(e).Symbols
	n := 0
	for _, m := range pascalCase().FindAllStringSubmatchIndex(e.Content, -1) {
		s, rest := e.Content[m[2]:m[3]], e.Content[m[3]:]
		dotted := len(rest) > 1 && rest[0] == '.' && unicode.IsLetter(rune(rest[1])) // HTTPClient.Do is one symbol
		if n < maxSymbolAnchors && !dotted && !fileStem(e.Content, m[3]) && !slices.Contains(out, s) {
			out = append(out, s)
			n++
		}
	}
	return out
}

// What scanContent finds in content: the characters without which an
// expression of FindAnchors cannot match.
const (
	hasSlash      = 1 << iota // a path
	hasDot                    // a file name's extension
	hasBacktick               // quoted code
	hasCall                   // "()": callLike
	hasCamel                  // a lower-case letter or digit, then an upper-case one: camelCase
	hasUnderscore             // snakeCase
	hasDotUpper               // ".", then an upper-case letter: dotted

	hasAll = 1<<iota - 1
)

func scanContent(s string) int {
	has := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '/':
			has |= hasSlash
		case c == '.':
			has |= hasDot
			if i+1 < len(s) && 'A' <= s[i+1] && s[i+1] <= 'Z' {
				has |= hasDotUpper
			}
		case c == '`':
			has |= hasBacktick
		case c == '(':
			if i+1 < len(s) && s[i+1] == ')' {
				has |= hasCall
			}
		case c == '_':
			has |= hasUnderscore
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
			if i+1 < len(s) && 'A' <= s[i+1] && s[i+1] <= 'Z' {
				has |= hasCamel
			}
		}
	}
	return has
}

// fileStem reports whether the word that ends at end in content is the
// stem of a file name (cache_test in cache_test.go), which is no symbol.
func fileStem(content string, end int) bool {
	if end >= len(content) || content[end] != '.' {
		return false
	}
	ext := content[end+1:]
	if n := strings.IndexFunc(ext, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }); n >= 0 {
		ext = ext[:n]
	}
	return sourceExt[strings.ToLower(ext)]
}

// commonWords are identifier-shaped words of prose and tooling that no
// repository needs to contain.
var commonWords = map[string]bool{"e.g": true, "i.e": true, "etc": true, "todo": true, "fixme": true, "print": true, "len": true}

// repoPath is a mention or an entry's file as an anchor's path
// ([anchor.Clean]), or reports that it cannot be one: outside the tree,
// absolute, home, a URL, a glob.
func repoPath(p string) (string, bool) {
	p, ok := anchor.Clean(p)
	if !ok || strings.ContainsAny(p, "~$*?<>| ") || strings.Contains(p, ":/") {
		return "", false
	}
	// "install.sh/uninstall.sh" names two files, not a directory.
	if dir := path.Dir(p); dir != "." && sourceExt[strings.ToLower(strings.TrimPrefix(path.Ext(dir), "."))] {
		return "", false
	}
	return p, true
}

// repoView is what anchor checks know of the repository.
type repoView struct {
	root    string
	tracked map[string]string   // path -> staged content hash
	dirs    map[string]bool     // every directory that holds a tracked file
	byBase  map[string][]string // base name -> tracked paths and directories
	git     bool
}

func newRepoView(root string, tracked map[string]string, git bool) *repoView {
	v := &repoView{root: root, tracked: tracked, dirs: map[string]bool{}, byBase: map[string][]string{}, git: git}
	for p := range tracked {
		v.byBase[path.Base(p)] = append(v.byBase[path.Base(p)], p)
		for d := path.Dir(p); d != "." && !v.dirs[d]; d = path.Dir(d) {
			v.dirs[d] = true
			v.byBase[path.Base(d)] = append(v.byBase[path.Base(d)], d)
		}
	}
	return v
}

// resolve finds a mentioned path in the repository, case-sensitively: the
// tracked file itself or a directory that holds tracked files (an anchor
// on db/migrations stands while anything tracked is under it), a tracked
// file or directory it is the tail of (auth/redirect.go for
// internal/auth/redirect.go), or, outside git, a file or directory on
// disk whose name has exactly that case.
func (v *repoView) resolve(p string) (string, bool) {
	if _, ok := v.tracked[p]; ok || v.dirs[p] {
		return p, true
	}
	for _, cand := range v.byBase[path.Base(p)] {
		if strings.HasSuffix(cand, "/"+p) {
			return cand, true
		}
	}
	if v.git {
		return "", false
	}
	return p, existsExact(v.root, p)
}

// existsExact reports whether root/p exists with exactly the case of p,
// even on a case-insensitive file system.
func existsExact(root, p string) bool {
	dir := root
	for _, part := range strings.Split(p, "/") {
		ents, err := os.ReadDir(dir)
		if err != nil {
			return false
		}
		found := false
		for _, e := range ents {
			if e.Name() == part {
				found = true
				break
			}
		}
		if !found {
			return false
		}
		dir = filepath.Join(dir, part)
	}
	return true
}

// Bounds of the symbol search.
const (
	maxSymbolFileSize = 1 << 20   // larger tracked files are skipped
	maxSymbolBytes    = 256 << 20 // total bytes read
)

// symbolSearch finds which symbols occur in tracked files: a dotted
// symbol needs all its parts as identifiers in one file. It reads each
// tracked file at most once, stops when every symbol is found, and stops
// early at the deadline or after maxSymbolBytes; complete is false then,
// and the symbols not reached are unknown rather than missing.
func symbolSearch(root string, files []string, symbols []string, deadline time.Time) (found map[string]bool, complete bool) {
	found = map[string]bool{}
	parts := map[string][]string{}
	want := map[string][]string{} // identifier -> symbols that need it
	for _, s := range symbols {
		if _, dup := parts[s]; dup {
			continue
		}
		ps := symbolParts(s)
		parts[s] = ps
		for _, p := range ps {
			want[p] = append(want[p], s)
		}
	}
	remaining := len(parts)
	if remaining == 0 {
		return found, true
	}
	sort.Strings(files)
	var read int64
	seen := map[string]bool{}
	for _, f := range files {
		if time.Now().After(deadline) || read > maxSymbolBytes {
			return found, false
		}
		data, err := readSmall(filepath.Join(root, filepath.FromSlash(f)))
		if err != nil || bytes.IndexByte(data[:min(len(data), 8000)], 0) >= 0 {
			continue
		}
		read += int64(len(data))
		clear(seen)
		forEachIdent(data, func(id []byte) {
			if _, ok := want[string(id)]; ok {
				seen[string(id)] = true
			}
		})
		for id := range seen {
			for _, s := range want[id] {
				if found[s] {
					continue
				}
				if allSeen(parts[s], seen) {
					found[s] = true
					remaining--
				}
			}
		}
		if remaining == 0 {
			return found, true
		}
	}
	return found, true
}

// SymbolsIn reports which of symbols occur in data by the rule of the
// anchor check: a dotted symbol needs all its parts as identifiers of data.
func SymbolsIn(data []byte, symbols []string) map[string]bool {
	seen := map[string]bool{}
	forEachIdent(data, func(id []byte) {
		if !seen[string(id)] {
			seen[string(id)] = true
		}
	})
	found := map[string]bool{}
	for _, s := range symbols {
		if allSeen(symbolParts(s), seen) {
			found[s] = true
		}
	}
	return found
}

// symbolParts are the identifiers a symbol needs: Client.Do needs Client
// and Do.
func symbolParts(s string) []string { return strings.Split(s, ".") }

// allSeen reports whether every one of parts is in seen.
func allSeen(parts []string, seen map[string]bool) bool {
	for _, p := range parts {
		if !seen[p] {
			return false
		}
	}
	return true
}

// readSmall reads a file unless it is larger than maxSymbolFileSize.
func readSmall(p string) ([]byte, error) {
	fi, err := os.Lstat(p)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > maxSymbolFileSize {
		return nil, os.ErrNotExist
	}
	return os.ReadFile(p)
}

// forEachIdent calls fn for every identifier ([A-Za-z_][A-Za-z0-9_]*) in
// data; id is only valid during the call.
func forEachIdent(data []byte, fn func(id []byte)) {
	start := -1
	for i := 0; i <= len(data); i++ {
		var c byte
		if i < len(data) {
			c = data[i]
		}
		isWord := c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
		switch {
		case isWord && start < 0:
			if c < '0' || c > '9' {
				start = i
			}
		case !isWord && start >= 0:
			fn(data[start:i])
			start = -1
		}
	}
}

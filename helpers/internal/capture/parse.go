// Package capture turns what a coding agent writes into typed knowledge
// items: `bd comments add` commands it runs in Bash (PostToolUse and
// PostToolUseFailure) and typed lines in its final reply (Stop,
// SubagentStop).
//
// The parsers FromCommand, FromReply and MightContain are pure: they read no
// files, run nothing and never fail; input they cannot understand yields no
// items.
//
// # Typed lines
//
// A typed line starts with one of the prefixes of package typed's table:
// LEARNED:, DECISION:, FACT:, PATTERN:, INVESTIGATION:, DEVIATION: or
// MUST-CHECK: (MUST CHECK: and MUST_CHECK: are accepted as spellings of
// must-check). Prefixes are matched
// in upper case only: "Learned:" or "Decision:" is ordinary prose in a
// reply ("Decision: let's ship it") far more often than a deliberate entry,
// and the injected instructions ask for the upper-case form. A prefix counts
// only at the start of a line, after optional blanks and, optionally, one
// markdown list marker ("- ", "* ", "+ ", "1. ", "1) ") and/or bold markers
// ("**LEARNED:** x", "**LEARNED**: x", "__LEARNED:__ x"). Headings
// ("## LEARNED: x") and italics are not typed lines. SKIP: is a suppressor,
// never an item.
//
// Content is the text after the prefix with invalid UTF-8 replaced,
// every run of white space (newlines included) collapsed to one space,
// trimmed, and cut to 2,000 runes. An empty content yields no item.
//
// # Commands (FromCommand)
//
// Commands are tokenized like bash does (quotes, escapes, $'...', heredocs,
// command substitution, pipes and lists) instead of being matched with
// regular expressions, so chained commands, heredoc bodies and escaped
// quotes come out right. Only beads comment commands are captured:
//
//	bd comments add ID BODY...     bd comment add ID BODY...
//	bd comment ID BODY...          (beads' own deprecated alias)
//
// anywhere in the command line: in lists (&&, ||, ;, &, newlines),
// pipelines, subshells, if/for/while bodies, command substitutions,
// backquotes, `bash -c STRING`, `eval STRING` and `bash <<EOF` scripts.
// Leading variable assignments and the wrappers command, env, exec, nohup,
// time and sudo (without options) are skipped. Flags may appear anywhere;
// -a/--author, --db, --actor and --lock-timeout take a value. Several
// positional words after the ID are joined with spaces (an agent that
// forgets to quote the body still means all of it). A word that starts with
// "-" but contains white space is taken as body text, not as a flag.
// -f/--file FILE cannot be read by a pure parser and yields nothing, except
// -f - and -f /dev/stdin, whose body is taken from a heredoc or here-string
// on the command, or from the output of `cat <<EOF`, `echo` or `printf`
// piped into it.
//
// The value of a command substitution (or backquotes) is known when it is
// `cat` reading a heredoc, a here-string or a pipe, `echo`, or `printf`
// with %s/%b/%% directives only; any other substitution, and every
// parameter or arithmetic expansion ($X, ${X}, $((1+2))), is kept as the
// text that was written. Heredoc bodies are taken literally when the
// delimiter is quoted and have \$ \` \\ and \newline undone otherwise.
// Unquoted substitutions are not word-split and globs are not expanded (the
// body is white-space-collapsed anyway). The tokenizer is tolerant:
// unterminated quotes, substitutions and heredocs run to the end of the
// input, so a command that bash rejects as a syntax error may still yield
// the items its author meant.
//
// A body yields items only if its first non-blank line is a typed line.
// Every later line that is a typed line starts a new item; any other line
// continues the content of the item before it. A line beginning with SKIP:
// anywhere in a body suppresses that body only; other bodies in the same
// command are still captured, and "SKIP:" in the middle of a line means
// nothing. Commands that run `cairn add` are never captured (cairn add
// writes its entry itself), and neither is anything nested inside them;
// `echo "LEARNED: x"` on its own is not captured either.
//
// A typed prefix that exists only after shell unescaping (LEARN""ED:,
// $'LEARNED\x3a ...') is not captured: FromCommand returns nothing when
// MightContain is false (or when "bd" does not appear in the command), which
// keeps the hook's reject path exact. CRLF line endings are read as LF.
//
// # Replies (FromReply)
//
// Each typed line of the reply is one item whose content is the rest of that
// line only. Lines after it are not appended: replies interleave entries and
// prose for the user ("LEARNED: backoff must cap at 30s.\nThat should fix
// it."), and gluing the prose on would corrupt the entry. Lines inside fenced
// code blocks (``` or ~~~, any info string, indented or not, an unclosed
// fence runs to the end) and blockquote lines (starting with ">") are
// ignored. Indented code blocks are not treated specially: indentation also
// marks nested list items, and a typed line must still begin with an
// upper-case prefix to count. SKIP: lines are ignored.
package capture

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/cairn-dev/cairn/helpers/internal/typed"
)

// Item is one typed knowledge line found in agent output.
type Item struct {
	Type    string // lowercase type, e.g. "learned", "must-check"
	Content string // the text after the prefix, trimmed, unescaped, whitespace-collapsed to one line
	Bead    string // the bead id for `bd comments add ID ...`, else ""
}

// MaxContentRunes is the longest Content an Item can have; longer content
// is cut at a rune boundary.
const MaxContentRunes = 2000

const (
	// maxDepth bounds nesting of subshells, substitutions and `bash -c`.
	maxDepth = 32
	// maxPipeHops bounds how far back a pipeline is followed for stdin.
	maxPipeHops = 64
	// baseBudget is the number of bytes of derived text (re-parsed strings,
	// printf output) one FromCommand call may produce beyond its input size.
	baseBudget = 1 << 20
	// maxBeadLen is the longest bead id kept in Item.Bead.
	maxBeadLen = 128
)

// typeSkip is matchTyped's type for a SKIP: line, a suppressor that is
// never an item; skipWord is its prefix. The entry types' prefixes come
// from package typed.
const (
	typeSkip = "skip"
	skipWord = "SKIP"
)

// MightContain reports cheaply whether s could contain a typed prefix at all
// (the hook's reject path): [typed.MightContain]. It does not allocate.
// When it returns false, FromCommand(s) and FromReply(s) both return
// nothing.
func MightContain(s string) bool { return typed.MightContain(s) }

// matchTyped reports whether line is a typed line and returns its type
// (possibly "skip") and the raw text after the prefix.
func matchTyped(line string) (typ, rest string, ok bool) {
	s := trimBlanks(line)
	// One list marker: "- ", "* ", "+ ", "12. ", "12) ".
	if len(s) >= 2 && (s[0] == '-' || s[0] == '*' || s[0] == '+') && (s[1] == ' ' || s[1] == '\t') {
		s = trimBlanks(s[2:])
	} else if n := leadingDigits(s); n > 0 && n <= 9 && len(s) > n+1 &&
		(s[n] == '.' || s[n] == ')') && (s[n+1] == ' ' || s[n+1] == '\t') {
		s = trimBlanks(s[n+2:])
	}
	bold := ""
	if strings.HasPrefix(s, "**") || strings.HasPrefix(s, "__") {
		bold = s[:2]
		s = s[2:]
	}
	typ, n := typed.Match(s)
	if n == 0 && strings.HasPrefix(s, skipWord) {
		typ, n = typeSkip, len(skipWord)
	}
	if n == 0 {
		return "", "", false
	}
	after := s[n:]
	switch {
	case bold != "" && strings.HasPrefix(after, bold+":"):
		// **LEARNED**: text
		return typ, after[len(bold)+1:], true
	case strings.HasPrefix(after, ":"):
		rest = after[1:]
		if bold != "" {
			if strings.HasPrefix(rest, bold) {
				// **LEARNED:** text
				rest = rest[len(bold):]
			} else {
				// **LEARNED: text**
				rest = strings.TrimSuffix(strings.TrimRight(rest, " \t"), bold)
			}
		}
		return typ, rest, true
	}
	return "", "", false
}

// trimBlanks drops leading spaces and tabs.
func trimBlanks(s string) string {
	i := 0
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return s[i:]
}

// leadingDigits returns how many ASCII digits s starts with.
func leadingDigits(s string) int {
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return n
}

// normalize makes s valid UTF-8, collapses white space runs (newlines
// included) to one space, trims it and cuts it to MaxContentRunes runes.
func normalize(s string) string {
	s = strings.Trim(s, " ") // cheap, and often enough for isNormal
	if isNormal(s) {
		return s
	}
	var b strings.Builder
	b.Grow(min(len(s), MaxContentRunes*utf8.UTFMax))
	runes := 0
	space := false
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		if isSpace(r) {
			space = true
			continue
		}
		need := 1
		if space && b.Len() > 0 {
			need = 2
		}
		if runes+need > MaxContentRunes {
			break
		}
		if need == 2 {
			b.WriteByte(' ')
		}
		b.WriteRune(r) // U+FFFD for an invalid byte
		runes += need
		space = false
	}
	return b.String()
}

// isNormal reports whether normalize(s) == s, for the common case of short
// ASCII text that is already one clean line.
func isNormal(s string) bool {
	if s == "" || len(s) > MaxContentRunes || s[0] == ' ' || s[len(s)-1] == ' ' {
		return s == ""
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf || c <= '\r' && c >= '\t' || c == ' ' && s[i+1] == ' ' {
			return false
		}
	}
	return true
}

// isSpace reports whether r is white space (ASCII or Unicode).
func isSpace(r rune) bool {
	if r < utf8.RuneSelf {
		return r == ' ' || '\t' <= r && r <= '\r'
	}
	return unicode.IsSpace(r)
}

// parseBody turns one comment body into items (see the package comment).
func parseBody(body, bead string) []Item {
	var items []Item
	started := false
	typ := ""
	var content strings.Builder
	flush := func() {
		if typ == "" {
			return
		}
		if c := normalize(content.String()); c != "" {
			items = append(items, Item{Type: typ, Content: c, Bead: bead})
		}
		content.Reset()
	}
	for rest := body; rest != ""; {
		var line string
		line, rest, _ = strings.Cut(rest, "\n")
		t, text, ok := matchTyped(line)
		if !started {
			if strings.TrimSpace(line) == "" {
				continue
			}
			if !ok {
				return nil
			}
			started = true
		}
		if ok && t == typeSkip {
			return nil
		}
		if ok {
			flush()
			typ = t
			content.WriteString(text)
			continue
		}
		content.WriteByte(' ')
		content.WriteString(line)
	}
	flush()
	return items
}

// FromReply extracts typed lines from an assistant's final message (the
// last_assistant_message of Stop and SubagentStop). See the package comment
// for the rules.
func FromReply(text string) []Item {
	if !MightContain(text) {
		return nil
	}
	var items []Item
	var fenceChar byte
	fenceLen := 0 // > 0 while inside a fenced code block
	for rest := text; rest != ""; {
		var line string
		line, rest, _ = strings.Cut(rest, "\n")
		line = strings.TrimSuffix(line, "\r")
		trimmed := trimBlanks(line)
		if fenceLen > 0 {
			if n := fenceRun(trimmed, fenceChar); n >= fenceLen && strings.TrimSpace(trimmed[n:]) == "" {
				fenceLen = 0
			}
			continue
		}
		if strings.HasPrefix(trimmed, ">") {
			continue
		}
		if len(trimmed) >= 3 && (trimmed[0] == '`' || trimmed[0] == '~') {
			if n := fenceRun(trimmed, trimmed[0]); n >= 3 &&
				(trimmed[0] == '~' || !strings.Contains(trimmed[n:], "`")) {
				fenceChar, fenceLen = trimmed[0], n
				continue
			}
		}
		typ, content, ok := matchTyped(line)
		if !ok || typ == typeSkip {
			continue
		}
		if c := normalize(content); c != "" {
			items = append(items, Item{Type: typ, Content: c})
		}
	}
	return items
}

// fenceRun returns how many times c repeats at the start of s.
func fenceRun(s string, c byte) int {
	n := 0
	for n < len(s) && s[n] == c {
		n++
	}
	return n
}

// FromCommand extracts typed items from a Bash command line (the
// tool_input.command of PostToolUse and PostToolUseFailure). See the package
// comment for the rules.
func FromCommand(cmd string) []Item {
	if !MightContain(cmd) || !strings.Contains(cmd, "bd") {
		return nil
	}
	if strings.Contains(cmd, "\r\n") {
		cmd = strings.ReplaceAll(cmd, "\r\n", "\n")
	}
	var items []Item
	for _, c := range comments(cmd) {
		items = append(items, parseBody(c.body, c.bead)...)
	}
	return items
}

// comment is one beads comment found in a command: its bead id (validated,
// else "") and its body as bd receives it.
type comment struct{ bead, body string }

// comments parses cmd and returns its beads comments in execution order.
func comments(cmd string) []comment {
	budget := baseBudget + len(cmd)
	p := &parser{src: cmd, budget: &budget}
	var out []comment
	collect(p.parseList(false), &out, 0, &budget)
	return out
}

// collect walks parsed commands in execution order (substitutions before
// the command that uses them) and appends the comments they carry.
func collect(nodes []*command, out *[]comment, depth int, budget *int) {
	for _, n := range nodes {
		args := commandWords(n.words)
		if isCairnAdd(args) {
			continue
		}
		collect(n.nested, out, depth, budget)
		if script, ok := shellScript(n, args, budget); ok && depth < maxDepth && *budget >= len(script) {
			*budget -= len(script)
			sp := &parser{src: script, depth: depth + 1, budget: budget}
			collect(sp.parseList(false), out, depth+1, budget)
		}
		if bead, body, ok := bdComment(n, args, budget); ok {
			*out = append(*out, comment{bead, body})
		}
	}
}

// commandWords strips leading assignments, reserved words and simple
// wrappers so that the first word is the command that runs.
func commandWords(words []string) []string {
	for len(words) > 0 {
		w := words[0]
		switch w {
		case "!", "{", "}", "if", "then", "else", "elif", "while", "until", "do",
			"time", "command", "exec", "nohup", "env", "sudo":
			words = words[1:]
			continue
		}
		if isAssignment(w) {
			words = words[1:]
			continue
		}
		break
	}
	return words
}

// isAssignment reports whether w is a variable assignment (NAME=value).
func isAssignment(w string) bool {
	eq := strings.IndexByte(w, '=')
	if eq <= 0 {
		return false
	}
	name := strings.TrimSuffix(w[:eq], "+")
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c != '_' && (c < 'a' || c > 'z') && (c < 'A' || c > 'Z') && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return name != ""
}

// baseName returns the last element of a command path.
func baseName(w string) string {
	return w[strings.LastIndexByte(w, '/')+1:]
}

// isCairnAdd reports whether args run `cairn add`.
func isCairnAdd(args []string) bool {
	if len(args) == 0 || baseName(args[0]) != "cairn" {
		return false
	}
	for i := 1; i < len(args); i++ {
		a := args[i]
		if a == "--dir" {
			i++
			continue
		}
		if strings.HasPrefix(a, "-") {
			continue
		}
		return a == "add"
	}
	return false
}

// shellScript returns the script a shell invocation runs: the argument of
// `bash -c`, the words of `eval`, or the stdin of an argument-less shell.
func shellScript(n *command, args []string, budget *int) (string, bool) {
	if len(args) == 0 {
		return "", false
	}
	switch baseName(args[0]) {
	case "eval":
		return strings.Join(args[1:], " "), len(args) > 1
	case "bash", "sh", "zsh", "dash", "ksh":
	default:
		return "", false
	}
	for i := 1; i < len(args); i++ {
		a := args[i]
		if len(a) < 2 || a[0] != '-' && a[0] != '+' {
			return "", false // runs a script file
		}
		if a == "-o" || a == "+o" || a == "-O" || a == "+O" {
			i++ // the option name
			continue
		}
		if a[0] == '-' && a[1] != '-' && strings.IndexByte(a, 'c') > 0 {
			if i+1 < len(args) {
				return args[i+1], true
			}
			return "", false
		}
	}
	return stdinOf(n, budget, 0)
}

// bdComment recognizes a beads comment command and returns its bead id
// (validated, else "") and its body.
func bdComment(n *command, args []string, budget *int) (bead, body string, ok bool) {
	if len(args) < 3 || baseName(args[0]) != "bd" {
		return "", "", false
	}
	var pos []string
	file, hasFile, endFlags := "", false, false
	for i := 1; i < len(args); i++ {
		a := args[i]
		if !endFlags && a == "--" {
			endFlags = true
			continue
		}
		if endFlags || len(a) < 2 || a[0] != '-' || strings.ContainsAny(a, " \t\n") {
			pos = append(pos, a)
			continue
		}
		name, val, hasVal := strings.Cut(a, "=")
		switch name {
		case "-f", "--file":
			if !hasVal && i+1 < len(args) {
				i++
				val = args[i]
			}
			file, hasFile = val, true
		case "-a", "--author", "--db", "--actor", "--lock-timeout":
			if !hasVal {
				i++
			}
		default:
			if a[1] == 'f' {
				file, hasFile = a[2:], true // -fnotes.md
			}
		}
	}
	var rest []string
	switch {
	case len(pos) >= 3 && (pos[0] == "comments" || pos[0] == "comment") && pos[1] == "add":
		bead, rest = pos[2], pos[3:]
	case len(pos) >= 2 && pos[0] == "comment":
		bead, rest = pos[1], pos[2:]
	default:
		return "", "", false
	}
	if hasFile {
		if file != "-" && file != "/dev/stdin" {
			return "", "", false
		}
		body, ok = stdinOf(n, budget, 0)
	} else {
		body, ok = strings.Join(rest, " "), len(rest) > 0
	}
	if !validBead(bead) {
		bead = ""
	}
	return bead, body, ok
}

// validBead reports whether id looks like a beads issue id (bd-42,
// lavra-ziy.7) rather than an unexpanded $VAR or junk.
func validBead(id string) bool {
	if id == "" || len(id) > maxBeadLen {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if c != '.' && c != '_' && c != '-' && (c < 'a' || c > 'z') && (c < 'A' || c > 'Z') && (c < '0' || c > '9') {
			return false
		}
	}
	return id[0] != '-' && id[0] != '.'
}

// command is one simple command of a Bash command line.
type command struct {
	words   []string   // words after quote removal and known expansions
	stdin   input      // the last input redirection
	outFile bool       // stdout is redirected away
	pipeIn  *command   // the command whose output is piped into this one
	pipeOut bool       // this command's output goes to the next one
	nested  []*command // commands run by substitutions in its words
}

// inputKind says where a command's stdin comes from.
type inputKind uint8

const (
	inNone    inputKind = iota
	inHeredoc           // <<EOF, <<-EOF
	inString            // <<<word
	inFile              // < file, <&fd: unknown content
)

// input is a command's stdin redirection.
type input struct {
	kind inputKind
	doc  *heredoc
	text string
}

// heredoc is one here-document; its body is read at the next newline.
type heredoc struct {
	delim     string
	quoted    bool // no expansion in the body
	stripTabs bool // <<-
	done      bool // body has been read
	body      string
}

// parser is a small bash tokenizer. It builds simple commands with their
// words, input redirections and pipes; it never fails, and unterminated
// constructs run to the end of the input.
type parser struct {
	src     string
	pos     int
	depth   int
	budget  *int // bytes of derived text still allowed
	pending []*heredoc
}

// peek returns the byte k after p.pos, or 0 past the end.
func (p *parser) peek(k int) byte {
	if p.pos+k < len(p.src) {
		return p.src[p.pos+k]
	}
	return 0
}

// isMeta reports whether c ends an unquoted word.
func isMeta(c byte) bool {
	switch c {
	case ' ', '\t', '\r', '\n', ';', '&', '|', '(', ')', '<', '>':
		return true
	}
	return false
}

// skipBlanks skips blanks and line continuations.
func (p *parser) skipBlanks() {
	for p.pos < len(p.src) {
		switch c := p.src[p.pos]; {
		case c == ' ' || c == '\t' || c == '\r':
			p.pos++
		case c == '\\' && p.peek(1) == '\n':
			p.pos += 2
		default:
			return
		}
	}
}

// parseList parses commands until the end of the input or, when inSubst is
// set, an unmatched ')'. It returns the simple commands in order; those of
// subshells are included, those of substitutions hang off their command.
func (p *parser) parseList(inSubst bool) []*command {
	var out []*command
	var cur, pipeFrom *command
	end := func(pipe bool) {
		if cur == nil {
			return
		}
		cur.pipeOut = pipe
		out = append(out, cur)
		pipeFrom = nil
		if pipe {
			pipeFrom = cur
		}
		cur = nil
	}
	begin := func() {
		if cur == nil {
			cur = &command{pipeIn: pipeFrom}
			pipeFrom = nil
		}
	}
	for p.pos < len(p.src) {
		switch c := p.src[p.pos]; c {
		case ' ', '\t', '\r':
			p.pos++
		case '\n':
			p.pos++
			end(false)
			p.readHeredocs(inSubst)
		case '#': // a comment: '#' here always starts a word
			if j := strings.IndexByte(p.src[p.pos:], '\n'); j >= 0 {
				p.pos += j
			} else {
				p.pos = len(p.src)
			}
		case ';':
			p.pos++
			end(false)
		case '&':
			if p.peek(1) == '>' {
				begin()
				p.redirect(cur, "")
				continue
			}
			p.pos++
			if p.peek(0) == '&' {
				p.pos++
			}
			end(false)
		case '|':
			p.pos++
			switch p.peek(0) {
			case '|':
				p.pos++
				end(false)
			case '&':
				p.pos++
				end(true)
			default:
				end(true)
			}
		case '(':
			if cur != nil && len(cur.words) > 0 {
				// "name ()" starts a function definition.
				p.pos++
				p.skipBlanks()
				if p.peek(0) == ')' {
					p.pos++
				}
				end(false)
				continue
			}
			if p.peek(1) == '(' { // (( arithmetic ))
				p.skipParens()
				continue
			}
			p.pos++
			end(false)
			if p.depth >= maxDepth {
				continue
			}
			p.depth++
			out = append(out, p.parseList(true)...)
			p.depth--
		case ')':
			p.pos++
			end(false)
			if inSubst {
				return out
			}
		case '<', '>':
			begin()
			if p.peek(1) == '(' { // process substitution
				w, _ := p.word(cur)
				cur.words = append(cur.words, w)
				continue
			}
			p.redirect(cur, "")
		case '\\':
			if p.peek(1) == '\n' { // line continuation
				p.pos += 2
				continue
			}
			fallthrough
		default:
			begin()
			w, digits := p.word(cur)
			if digits && (p.peek(0) == '<' || p.peek(0) == '>') && p.peek(1) != '(' {
				p.redirect(cur, w) // 2>&1, 0<file
				continue
			}
			cur.words = append(cur.words, w)
		}
	}
	end(false)
	return out
}

// word reads one shell word and returns its value. digits reports whether
// the word was nothing but unquoted digits (a redirection's fd).
func (p *parser) word(cur *command) (w string, digits bool) {
	var b strings.Builder
	start := p.pos
	digits = true
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		switch c {
		case ' ', '\t', '\r', '\n', ';', '&', '|', '(', ')':
			return b.String(), digits && p.pos > start
		case '<', '>':
			if p.peek(1) != '(' {
				return b.String(), digits && p.pos > start
			}
			digits = false
			p.pos++
			p.substitution(&b, cur, p.pos-1, false)
		case '\\':
			digits = false
			switch {
			case p.pos+1 >= len(p.src):
				b.WriteByte('\\')
				p.pos++
			case p.src[p.pos+1] == '\n':
				p.pos += 2
			default:
				b.WriteByte(p.src[p.pos+1])
				p.pos += 2
			}
		case '\'':
			digits = false
			p.pos++
			if j := strings.IndexByte(p.src[p.pos:], '\''); j >= 0 {
				b.WriteString(p.src[p.pos : p.pos+j])
				p.pos += j + 1
			} else {
				b.WriteString(p.src[p.pos:])
				p.pos = len(p.src)
			}
		case '"':
			digits = false
			p.pos++
			p.doubleQuoted(&b, cur)
		case '`':
			digits = false
			p.backquoted(&b, cur)
		case '$':
			digits = false
			p.dollar(&b, cur, false)
		default:
			j := p.pos + 1
			for j < len(p.src) && !isWordSpecial(p.src[j]) {
				j++
			}
			if digits {
				for i := p.pos; i < j; i++ {
					if p.src[i] < '0' || p.src[i] > '9' {
						digits = false
						break
					}
				}
			}
			if b.Len() == 0 && (j == len(p.src) || isMeta(p.src[j])) {
				// The whole word is one plain run: no copy.
				w, p.pos = p.src[p.pos:j], j
				return w, digits
			}
			b.WriteString(p.src[p.pos:j])
			p.pos = j
		}
	}
	return b.String(), digits && p.pos > start
}

// isWordSpecial reports whether c ends a run of plain word characters.
func isWordSpecial(c byte) bool {
	switch c {
	case '\\', '\'', '"', '`', '$':
		return true
	}
	return isMeta(c)
}

// doubleQuoted reads the rest of a "..." string (p.pos is after the quote).
func (p *parser) doubleQuoted(b *strings.Builder, cur *command) {
	for p.pos < len(p.src) {
		switch c := p.src[p.pos]; c {
		case '"':
			p.pos++
			return
		case '\\':
			switch n := p.peek(1); n {
			case '$', '`', '"', '\\':
				b.WriteByte(n)
				p.pos += 2
				continue
			case '\n':
				p.pos += 2
				continue
			}
			b.WriteByte('\\')
			p.pos++
		case '$':
			p.dollar(b, cur, true)
		case '`':
			p.backquoted(b, cur)
		default:
			j := p.pos + 1
			for j < len(p.src) && !isDQSpecial(p.src[j]) {
				j++
			}
			b.WriteString(p.src[p.pos:j])
			p.pos = j
		}
	}
}

// isDQSpecial reports whether c is special inside double quotes.
func isDQSpecial(c byte) bool {
	return c == '"' || c == '\\' || c == '$' || c == '`'
}

// dollar reads an expansion starting at '$'.
func (p *parser) dollar(b *strings.Builder, cur *command, inDQ bool) {
	start := p.pos
	switch p.peek(1) {
	case '(':
		p.pos++
		if p.peek(1) == '(' { // $(( arithmetic ))
			p.skipParens()
			b.WriteString(p.src[start:p.pos])
			return
		}
		p.substitution(b, cur, start, true)
	case '{':
		p.pos++
		p.skipBraces()
		b.WriteString(p.src[start:p.pos])
	case '\'':
		if inDQ {
			break
		}
		p.pos += 2
		for p.pos < len(p.src) {
			c := p.src[p.pos]
			if c == '\'' {
				p.pos++
				return
			}
			p.pos++
			if c == '\\' {
				p.pos += unescapeOne(b, p.src[p.pos:])
				continue
			}
			b.WriteByte(c)
		}
		return
	case '"':
		if inDQ {
			break
		}
		p.pos += 2
		p.doubleQuoted(b, cur)
		return
	}
	if p.pos == start {
		b.WriteByte('$')
		p.pos++
	}
}

// substitution parses $(...) or <(...) with p.pos at the '(' and writes its
// value when useValue is set and the value is known, else the text as
// written (from start).
func (p *parser) substitution(b *strings.Builder, cur *command, start int, useValue bool) {
	p.pos++
	if p.depth >= maxDepth {
		b.WriteString(p.src[start:p.pos])
		return
	}
	p.depth++
	sub := p.parseList(true)
	p.depth--
	cur.nested = append(cur.nested, sub...)
	if useValue {
		if v, ok := listOutput(sub, p.budget); ok {
			b.WriteString(v)
			return
		}
	}
	b.WriteString(p.src[start:p.pos])
}

// backquoted parses `...` with p.pos at the opening backquote.
func (p *parser) backquoted(b *strings.Builder, cur *command) {
	start := p.pos
	p.pos++
	var inner strings.Builder
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		if c == '\\' && strings.IndexByte("$`\\", p.peek(1)) >= 0 && p.peek(1) != 0 {
			inner.WriteByte(p.src[p.pos+1])
			p.pos += 2
			continue
		}
		p.pos++
		if c == '`' {
			break
		}
		inner.WriteByte(c)
	}
	raw := p.src[start:p.pos]
	script := inner.String()
	if p.depth >= maxDepth || *p.budget < len(script) {
		b.WriteString(raw)
		return
	}
	*p.budget -= len(script)
	sp := &parser{src: script, depth: p.depth + 1, budget: p.budget}
	sub := sp.parseList(false)
	cur.nested = append(cur.nested, sub...)
	if v, ok := listOutput(sub, p.budget); ok {
		b.WriteString(v)
		return
	}
	b.WriteString(raw)
}

// skipParens skips a balanced (...) group starting at p.pos.
func (p *parser) skipParens() {
	depth := 0
	for p.pos < len(p.src) {
		switch p.src[p.pos] {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				p.pos++
				return
			}
		}
		p.pos++
	}
}

// skipBraces skips a balanced {...} group starting at p.pos.
func (p *parser) skipBraces() {
	depth := 0
	for p.pos < len(p.src) {
		switch p.src[p.pos] {
		case '\\':
			p.pos++
		case '\'':
			if j := strings.IndexByte(p.src[p.pos+1:], '\''); j >= 0 {
				p.pos += j + 1
			} else {
				p.pos = len(p.src)
			}
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				p.pos++
				return
			}
		}
		p.pos++
	}
	p.pos = min(p.pos, len(p.src))
}

// redirect reads a redirection operator and its target at p.pos. fd is the
// explicit file descriptor written before the operator, if any.
func (p *parser) redirect(cur *command, fd string) {
	s := p.src[p.pos:]
	op := s[:1]
	for _, o := range [...]string{"<<<", "<<-", "&>>", "<<", "<&", "<>", ">>", ">&", ">|", "&>"} {
		if strings.HasPrefix(s, o) {
			op = o
			break
		}
	}
	p.pos += len(op)
	p.skipBlanks()
	if op == "<<" || op == "<<-" {
		if delim, quoted, ok := p.heredocDelim(); ok {
			h := &heredoc{delim: delim, quoted: quoted, stripTabs: op == "<<-"}
			p.pending = append(p.pending, h)
			if fd == "" || fd == "0" {
				cur.stdin = input{kind: inHeredoc, doc: h}
			}
		}
		return
	}
	if p.pos >= len(p.src) || isMeta(p.src[p.pos]) && p.peek(1) != '(' {
		return
	}
	target, _ := p.word(cur)
	stdin := fd == "" || fd == "0"
	switch op {
	case "<<<":
		if stdin {
			cur.stdin = input{kind: inString, text: target + "\n"}
		}
	case "<", "<>", "<&":
		if stdin {
			cur.stdin = input{kind: inFile}
		}
	case ">&":
		if (fd == "" || fd == "1") && target != "1" {
			cur.outFile = true
		}
	case "&>", "&>>":
		cur.outFile = true
	default: // > >> >|
		if fd == "" || fd == "1" {
			cur.outFile = true
		}
	}
}

// heredocDelim reads a heredoc delimiter word; quoted reports whether any
// part of it was quoted (which turns off expansion in the body).
func (p *parser) heredocDelim() (delim string, quoted, ok bool) {
	var b strings.Builder
	start := p.pos
	for p.pos < len(p.src) && !isMeta(p.src[p.pos]) {
		switch c := p.src[p.pos]; c {
		case '\'':
			quoted = true
			p.pos++
			j := strings.IndexByte(p.src[p.pos:], '\'')
			if j < 0 {
				j = len(p.src) - p.pos
			}
			b.WriteString(p.src[p.pos : p.pos+j])
			p.pos = min(p.pos+j+1, len(p.src))
		case '"':
			quoted = true
			p.pos++
			for p.pos < len(p.src) && p.src[p.pos] != '"' {
				if p.src[p.pos] == '\\' && strings.IndexByte("\"\\$`", p.peek(1)) >= 0 && p.peek(1) != 0 {
					p.pos++
				}
				b.WriteByte(p.src[p.pos])
				p.pos++
			}
			p.pos = min(p.pos+1, len(p.src))
		case '\\':
			quoted = true
			if p.pos+1 < len(p.src) {
				b.WriteByte(p.src[p.pos+1])
			}
			p.pos = min(p.pos+2, len(p.src))
		default:
			b.WriteByte(c)
			p.pos++
		}
	}
	return b.String(), quoted, p.pos > start
}

// readHeredocs reads the bodies of pending heredocs; p.pos is at the start
// of the line after the one that opened them. Inside a substitution a line
// "EOF)" ends the body and leaves the ')' to close the substitution, as
// bash does.
func (p *parser) readHeredocs(inSubst bool) {
	docs := p.pending
	p.pending = nil
	for _, h := range docs {
		var b strings.Builder
	lines:
		for p.pos < len(p.src) {
			line, next := p.src[p.pos:], len(p.src)
			if j := strings.IndexByte(line, '\n'); j >= 0 {
				line, next = line[:j], p.pos+j+1
			}
			lead := 0
			for h.stripTabs && lead < len(line) && line[lead] == '\t' {
				lead++
			}
			text := line[lead:]
			switch {
			case text == h.delim:
				p.pos = next
				break lines
			case inSubst && strings.HasPrefix(text, h.delim) && strings.HasPrefix(text[len(h.delim):], ")"):
				p.pos += lead + len(h.delim)
				break lines
			}
			b.WriteString(text)
			b.WriteByte('\n')
			p.pos = next
		}
		h.body = b.String()
		if !h.quoted {
			h.body = unescapeHeredoc(h.body)
		}
		h.done = true
	}
}

// unescapeHeredoc undoes the backslash escapes bash honours in the body of
// an unquoted heredoc. Expansions ($X, $(cmd)) are kept as written.
func unescapeHeredoc(s string) string {
	if strings.IndexByte(s, '\\') < 0 {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			switch s[i+1] {
			case '$', '`', '\\':
				b.WriteByte(s[i+1])
				i++
				continue
			case '\n':
				i++
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// unescapeOne decodes one ANSI-C escape ($'...', echo -e, printf); s starts
// after the backslash. It returns how many bytes of s it used.
func unescapeOne(b *strings.Builder, s string) int {
	if s == "" {
		b.WriteByte('\\')
		return 0
	}
	switch c := s[0]; c {
	case 'a':
		b.WriteByte(7)
	case 'b':
		b.WriteByte(8)
	case 'e', 'E':
		b.WriteByte(27)
	case 'f':
		b.WriteByte(12)
	case 'n':
		b.WriteByte('\n')
	case 'r':
		b.WriteByte('\r')
	case 't':
		b.WriteByte('\t')
	case 'v':
		b.WriteByte(11)
	case '\\', '\'', '"', '?':
		b.WriteByte(c)
	case 'c':
		if len(s) < 2 {
			b.WriteString("\\c")
			return 1
		}
		b.WriteByte(s[1] & 0x1f)
		return 2
	case 'x', 'u', 'U':
		maxDigits := 2
		switch c {
		case 'u':
			maxDigits = 4
		case 'U':
			maxDigits = 8
		}
		v, n := 0, 0
		for n < maxDigits && n+1 < len(s) && isHex(s[n+1]) {
			v = v<<4 | hexVal(s[n+1])
			n++
		}
		switch {
		case n == 0:
			b.WriteByte('\\')
			b.WriteByte(c)
		case c == 'x':
			b.WriteByte(byte(v))
		default:
			var buf [utf8.UTFMax]byte
			b.Write(utf8.AppendRune(buf[:0], rune(v))) // U+FFFD when invalid
		}
		return 1 + n
	case '0', '1', '2', '3', '4', '5', '6', '7':
		v, n := 0, 0
		for n < 3 && n < len(s) && s[n] >= '0' && s[n] <= '7' {
			v = v<<3 | int(s[n]-'0')
			n++
		}
		b.WriteByte(byte(v))
		return n
	default:
		b.WriteByte('\\')
		b.WriteByte(c)
	}
	return 1
}

// isHex reports whether c is a hexadecimal digit.
func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// hexVal returns the value of the hexadecimal digit c.
func hexVal(c byte) int {
	switch {
	case c >= 'a':
		return int(c-'a') + 10
	case c >= 'A':
		return int(c-'A') + 10
	}
	return int(c - '0')
}

// unescapeAll decodes every ANSI-C escape in s (echo -e, printf %b).
func unescapeAll(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' {
			i += unescapeOne(&b, s[i+1:])
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// listOutput returns what a list of commands prints, when that is known,
// with trailing newlines removed as a command substitution does.
func listOutput(cmds []*command, budget *int) (string, bool) {
	var b strings.Builder
	for _, c := range cmds {
		if c.pipeOut {
			continue
		}
		v, ok := output(c, budget, 0)
		if !ok {
			return "", false
		}
		b.WriteString(v)
	}
	return strings.TrimRight(b.String(), "\n"), true
}

// output returns what a command prints when it is one cairn can evaluate:
// cat of its stdin, echo, or printf.
func output(c *command, budget *int, hops int) (string, bool) {
	if c.outFile {
		return "", true
	}
	args := commandWords(c.words)
	if len(args) == 0 {
		return "", false
	}
	switch baseName(args[0]) {
	case "cat":
		for _, a := range args[1:] {
			if a != "-" {
				return "", false
			}
		}
		return stdinOf(c, budget, hops)
	case "echo":
		return echo(args[1:]), true
	case "printf":
		return printf(args[1:], budget)
	}
	return "", false
}

// stdinOf returns what a command reads on stdin, when that is known.
func stdinOf(c *command, budget *int, hops int) (string, bool) {
	switch c.stdin.kind {
	case inHeredoc:
		return c.stdin.doc.body, c.stdin.doc.done
	case inString:
		return c.stdin.text, true
	case inFile:
		return "", false
	}
	if c.pipeIn == nil || hops >= maxPipeHops {
		return "", false
	}
	return output(c.pipeIn, budget, hops+1)
}

// echo returns what echo ARGS prints (-n, -e and -E honoured).
func echo(args []string) string {
	newline, escapes := true, false
	for len(args) > 0 && len(args[0]) > 1 && args[0][0] == '-' && strings.Trim(args[0][1:], "neE") == "" {
		for _, f := range args[0][1:] {
			switch f {
			case 'n':
				newline = false
			case 'e':
				escapes = true
			case 'E':
				escapes = false
			}
		}
		args = args[1:]
	}
	s := strings.Join(args, " ")
	if escapes {
		s = unescapeAll(s)
	}
	if newline {
		s += "\n"
	}
	return s
}

// printf evaluates printf FORMAT ARGS... for formats whose directives are
// only %s, %b and %%; the format is reused while arguments remain.
func printf(args []string, budget *int) (string, bool) {
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	if len(args) == 0 {
		return "", false
	}
	format, args := args[0], args[1:]
	var b strings.Builder
	for {
		used := 0
		for i := 0; i < len(format); i++ {
			if b.Len() > *budget {
				return "", false
			}
			switch c := format[i]; c {
			case '\\':
				i += unescapeOne(&b, format[i+1:])
			case '%':
				i++
				if i >= len(format) {
					return "", false
				}
				switch format[i] {
				case '%':
					b.WriteByte('%')
				case 's', 'b':
					if used < len(args) {
						if format[i] == 'b' {
							b.WriteString(unescapeAll(args[used]))
						} else {
							b.WriteString(args[used])
						}
					}
					used++
				default:
					return "", false
				}
			default:
				b.WriteByte(c)
			}
		}
		if used == 0 || used >= len(args) {
			break
		}
		args = args[used:]
	}
	*budget -= b.Len()
	return b.String(), true
}

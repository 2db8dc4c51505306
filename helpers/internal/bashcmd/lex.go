package bashcmd

import "strings"

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
	depth   int   // nesting of subshells, substitutions and scripts
	level   int32 // nesting of scripts only: the Command.level it gives
	budget  *int  // bytes of derived text still allowed
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
func (p *parser) parseList(inSubst bool) []*Command {
	l := &list{p: p}
	for p.pos < len(p.src) {
		if l.step(inSubst) {
			return l.out
		}
	}
	l.end(false)
	return l.out
}

// list is what parseList has read: the commands done, the one being read,
// and the one whose output a pipe sends to the next.
type list struct {
	p             *parser
	out           []*Command
	cur, pipeFrom *Command
}

// end finishes the command being read, if any; pipe: its output goes to
// the next one.
func (l *list) end(pipe bool) {
	if l.cur == nil {
		return
	}
	l.cur.pipeOut = pipe
	l.out = append(l.out, l.cur)
	l.pipeFrom = nil
	if pipe {
		l.pipeFrom = l.cur
	}
	l.cur = nil
}

// begin starts a command unless one is being read.
func (l *list) begin() {
	if l.cur == nil {
		l.cur = &Command{pipeIn: l.pipeFrom, level: l.p.level, budget: l.p.budget}
		l.pipeFrom = nil
	}
}

// step reads what starts at the parser's position: a blank, a newline (and
// the heredocs it starts), a comment, an operator, a subshell, a
// redirection or a word. It reports whether an unmatched ')' ended a
// substitution's list (inSubst).
func (l *list) step(inSubst bool) (closed bool) {
	p := l.p
	switch c := p.src[p.pos]; c {
	case ' ', '\t', '\r':
		p.pos++
	case '\n':
		p.pos++
		l.end(false)
		p.readHeredocs(inSubst)
	case '#': // a comment: '#' here always starts a word
		if j := strings.IndexByte(p.src[p.pos:], '\n'); j >= 0 {
			p.pos += j
		} else {
			p.pos = len(p.src)
		}
	case ';', '&', '|':
		l.operator(c)
	case '(':
		l.openParen()
	case ')':
		p.pos++
		l.end(false)
		return inSubst
	case '<', '>':
		l.begin()
		if p.peek(1) == '(' { // process substitution
			w, _ := p.word(l.cur)
			l.cur.Words = append(l.cur.Words, w)
			return false
		}
		p.redirect(l.cur, "")
	case '\\':
		if p.peek(1) == '\n' { // line continuation
			p.pos += 2
			return false
		}
		l.word()
	default:
		l.word()
	}
	return false
}

// operator reads a control operator that starts with c (';', '&', '|'):
// ';', '&', '&&', '||' end the command, '|' and '|&' pipe it into the next;
// '&>' is a redirection.
func (l *list) operator(c byte) {
	p := l.p
	switch c {
	case ';':
		p.pos++
		l.end(false)
	case '&':
		if p.peek(1) == '>' {
			l.begin()
			p.redirect(l.cur, "")
			return
		}
		p.pos++
		if p.peek(0) == '&' {
			p.pos++
		}
		l.end(false)
	case '|':
		p.pos++
		switch p.peek(0) {
		case '|':
			p.pos++
			l.end(false)
		case '&':
			p.pos++
			l.end(true)
		default:
			l.end(true)
		}
	}
}

// openParen reads a '(': a function definition's "name ()", an
// arithmetic "((", or a subshell, whose commands join the list (up to
// MaxDepth levels).
func (l *list) openParen() {
	p := l.p
	if l.cur != nil && len(l.cur.Words) > 0 {
		// "name ()" starts a function definition.
		p.pos++
		p.skipBlanks()
		if p.peek(0) == ')' {
			p.pos++
		}
		l.end(false)
		return
	}
	if p.peek(1) == '(' { // (( arithmetic ))
		p.skipParens()
		return
	}
	p.pos++
	l.end(false)
	if p.depth >= MaxDepth {
		return
	}
	p.depth++
	l.out = append(l.out, p.parseList(true)...)
	p.depth--
}

// word reads a word of the command being read, or a redirection whose fd
// it names (2>&1, 0<file).
func (l *list) word() {
	p := l.p
	l.begin()
	w, digits := p.word(l.cur)
	if digits && (p.peek(0) == '<' || p.peek(0) == '>') && p.peek(1) != '(' {
		p.redirect(l.cur, w)
		return
	}
	l.cur.Words = append(l.cur.Words, w)
}

// word reads one shell word and returns its value. digits reports whether
// the word was nothing but unquoted digits (a redirection's fd).
func (p *parser) word(cur *Command) (w string, digits bool) {
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
func (p *parser) doubleQuoted(b *strings.Builder, cur *Command) {
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
func (p *parser) dollar(b *strings.Builder, cur *Command, inDQ bool) {
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
func (p *parser) substitution(b *strings.Builder, cur *Command, start int, useValue bool) {
	p.pos++
	if p.depth >= MaxDepth {
		b.WriteString(p.src[start:p.pos])
		return
	}
	p.depth++
	sub := p.parseList(true)
	p.depth--
	cur.Nested = append(cur.Nested, sub...)
	if useValue {
		if v, ok := listOutput(sub); ok {
			b.WriteString(v)
			return
		}
	}
	b.WriteString(p.src[start:p.pos])
}

// backquoted parses `...` with p.pos at the opening backquote.
func (p *parser) backquoted(b *strings.Builder, cur *Command) {
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
	if p.depth >= MaxDepth || *p.budget < len(script) {
		b.WriteString(raw)
		return
	}
	*p.budget -= len(script)
	sp := &parser{src: script, depth: p.depth + 1, level: p.level, budget: p.budget}
	sub := sp.parseList(false)
	cur.Nested = append(cur.Nested, sub...)
	if v, ok := listOutput(sub); ok {
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
func (p *parser) redirect(cur *Command, fd string) {
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
	target, digits := p.word(cur)
	stdin := fd == "" || fd == "0"
	switch op {
	case "<", "<<<", "<&":
	case ">&":
		if !digits && target != "-" {
			cur.writes = append(cur.writes, target)
		}
	default:
		cur.writes = append(cur.writes, target)
	}
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

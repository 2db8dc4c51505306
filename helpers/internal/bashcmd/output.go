package bashcmd

import (
	"strings"
	"unicode/utf8"
)

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
func listOutput(cmds []*Command) (string, bool) {
	var b strings.Builder
	for _, c := range cmds {
		if c.pipeOut {
			continue
		}
		v, ok := output(c, 0)
		if !ok {
			return "", false
		}
		b.WriteString(v)
	}
	return strings.TrimRight(b.String(), "\n"), true
}

// output returns what a command prints when it is one cairn can evaluate:
// cat of its stdin, echo, or printf.
func output(c *Command, hops int) (string, bool) {
	if c.outFile {
		return "", true
	}
	args := c.Args()
	if len(args) == 0 {
		return "", false
	}
	switch BaseName(args[0]) {
	case "cat":
		for _, a := range args[1:] {
			if a != "-" {
				return "", false
			}
		}
		return stdinOf(c, hops)
	case "echo":
		return echo(args[1:]), true
	case "printf":
		return printf(args[1:], c.budget)
	}
	return "", false
}

// stdinOf returns what a command reads on stdin, when that is known.
func stdinOf(c *Command, hops int) (string, bool) {
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
	return output(c.pipeIn, hops+1)
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

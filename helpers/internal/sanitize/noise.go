package sanitize

import (
	"regexp"
	"strings"
	"sync"
	"unicode"
)

// Reasons Noise gives.
const (
	NoiseCommand    = "pasted command"
	NoiseLogLine    = "log line"
	NoiseStackTrace = "stack trace"
	NoiseFragment   = "fragment"
)

// commandWords start the shell commands that get pasted instead of
// knowledge.
var commandWords = map[string]bool{
	"bd": true, "git": true, "cd": true, "ls": true, "cat": true, "echo": true, "grep": true, "rg": true,
	"sed": true, "awk": true, "find": true, "npm": true, "npx": true, "pnpm": true, "yarn": true, "bun": true,
	"go": true, "cargo": true, "make": true, "docker": true, "kubectl": true, "curl": true, "wget": true,
	"python": true, "python3": true, "pip": true, "node": true, "bash": true, "sh": true, "sudo": true,
	"export": true, "rm": true, "mv": true, "cp": true, "mkdir": true, "chmod": true, "jq": true, "gh": true,
	"sqlite3": true, "psql": true, "terraform": true, "helm": true, "brew": true, "apt": true, "apt-get": true,
}

var (
	// A flag given a quoted or computed value.
	flagArg = lazy(`\s--?[A-Za-z][\w-]*(?:=|\s+)["'$]`)
	// Shell syntax that prose does not use.
	shellSyntax = lazy(`&&|\|\||\s\|\s|2>&1|\$\(|<<-?\s*['"]?[A-Z]+|\\\s*$|(?:^|\s)>{1,2}\s*\S`)
	logLine     = lazy(`^(?:\[?\d{4}[-/]\d{2}[-/]\d{2}[T ]\d{2}:\d{2}(?::\d{2})?\S*\]?\s|\[(?:TRACE|DEBUG|INFO|WARN|WARNING|ERROR|FATAL|CRITICAL)\]\s|(?:time|level|ts)=\S+\s+(?:level|msg)=)`)
	stackFrame  = lazy(`(?m)^\s*(?:at [\w$.<>]+ ?\(?[^()\s]*:\d+(?::\d+)?\)?$|File "[^"]+", line \d+|goroutine \d+ \[|\S+\.go:\d+ \+0x[0-9a-f]+$)`)
	stackHead   = lazy(`^(?:Traceback \(most recent call last\)|panic: |goroutine \d+ \[|Exception in thread |\w+(?:\.\w+)*(?:Error|Exception): .*\n\s+at )`)
)

// Noise reports why content is not knowledge but a pasted command, a log
// line, a stack trace or a one-word fragment, or "" when it reads as
// knowledge. It errs on the side of keeping: prose that merely starts
// with a command's name ("git rebase drops signed commits") is kept.
func Noise(content string) string {
	s := strings.TrimSpace(content)
	if words := letterWords(s); words < 2 {
		return NoiseFragment
	}
	multiline := strings.Contains(s, "\n")
	if (mayStackHead(s, multiline) && stackHead().MatchString(s)) || (multiline && len(stackFrame().FindAllStringIndex(s, 3)) >= 2) {
		return NoiseStackTrace
	}
	if mayLogLine(s) && logLine().MatchString(s) && !strings.Contains(firstLine(s), ". ") {
		return NoiseLogLine
	}
	if isCommand(s) {
		return NoiseCommand
	}
	return ""
}

// mayStackHead reports whether s has what stackHead needs to match: one
// of its openings, or an error's name and a second line.
func mayStackHead(s string, multiline bool) bool {
	return strings.HasPrefix(s, "Traceback (most recent call last)") || strings.HasPrefix(s, "panic: ") ||
		strings.HasPrefix(s, "goroutine ") || strings.HasPrefix(s, "Exception in thread ") ||
		multiline && (strings.Contains(s, "Error: ") || strings.Contains(s, "Exception: "))
}

// mayLogLine reports whether s starts as logLine needs: a date, a bracket,
// time=, level= or ts=.
func mayLogLine(s string) bool {
	return s != "" && (s[0] == '[' || '0' <= s[0] && s[0] <= '9' || s[0] == 't' || s[0] == 'l')
}

// isCommand reports content that is a shell command line or a pasted
// script: its first line is a command invocation, or most of its lines
// are shell code or comments, and it has little prose outside quotes.
func isCommand(s string) bool {
	first := firstLine(s)
	if strings.HasPrefix(first, "$ ") {
		return true
	}
	w, rest, _ := strings.Cut(first, " ")
	if !commandWords[w] && !strings.Contains(s, "\n") {
		return false // one line of prose: the cheap, common case
	}
	unquoted := quoted().ReplaceAllString(s, " _ ")
	var lines []string
	for _, l := range strings.Split(unquoted, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	prose, code := 0, 0
	for _, l := range lines {
		if strings.HasPrefix(l, "#") {
			code++
			continue
		}
		pw := proseWords(l)
		prose += pw
		if shellSyntax().MatchString(l) && pw < 6 {
			code++
		}
	}
	if commandWords[w] {
		// A command line has little prose of its own outside its quotes
		// (a quote left open runs to the end: --description="...); then
		// a flag given a quoted or computed value (--title="...",
		// -d "$(...)") or other shell syntax makes it a command.
		fl := openQuote().ReplaceAllString(quoted().ReplaceAllString(first, " _ "), "")
		if proseWords(fl) < 6 && (flagArg().MatchString(" "+rest) || shellSyntax().MatchString(rest)) {
			return true
		}
	}
	return prose < 12 && len(lines) >= 2 && code*2 > len(lines) && shellSyntax().MatchString(unquoted)
}

var (
	quoted    = lazy(`"[^"]*"|(?:^|[\s=(])'[^'\n]*'`) // an apostrophe (don't) opens nothing
	openQuote = lazy(`(?:"|(?:^|[\s=])').*$`)         // a quote left open, to the end
	plainWord = lazy(`^[A-Za-z][A-Za-z'-]*[,.;:!?]?$`)
)

// proseWords counts the plain words of a line.
func proseWords(line string) int {
	n := 0
	for _, f := range strings.Fields(line) {
		if plainWord().MatchString(f) {
			n++
		}
	}
	return n
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return strings.TrimSpace(line)
}

// letterWords counts the words (runs of non-space) that hold a letter,
// stopping at 2.
func letterWords(s string) int {
	n := 0
	inWord, counted := false, false
	for _, r := range s {
		if unicode.IsSpace(r) {
			inWord = false
			continue
		}
		if !inWord {
			inWord, counted = true, false
		}
		if !counted && unicode.IsLetter(r) {
			counted = true
			if n++; n == 2 {
				break
			}
		}
	}
	return n
}

// lazy compiles a regular expression on first use. Sanitize runs in the
// background, but this package is linked into every hook process, where
// compiling a dozen expressions at start-up would cost half a millisecond.
func lazy(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

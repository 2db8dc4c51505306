// Package bashcmd reads a bash command line without running it: it splits
// it into the simple commands bash would run, with each command's words as
// the program receives them, what it reads on stdin when that is known,
// and the commands a shell it starts would run.
//
// Command lines are tokenized like bash does: quotes, backslash escapes,
// $'...' and $"...", heredocs (<<, <<-, quoted or not) and here-strings,
// command substitution ($(...), backquotes, <(...)), pipes, lists (&&, ||,
// ;, &, newlines), subshells and groups, comments and line continuations.
// Reserved words (if, then, do, ...) are read as words; [Command.Args]
// drops them.
//
// The value of a command substitution is known when it is `cat` reading a
// heredoc, a here-string or a pipe, `echo` (-n, -e, -E), or `printf` with
// %s, %b and %% directives only; any other substitution, and every
// parameter or arithmetic expansion ($X, ${X}, $((1+2))), is kept as the
// text that was written. Heredoc bodies are taken literally when the
// delimiter is quoted and have \$ \` \\ and \newline undone otherwise;
// expansions in them are kept as written. Unquoted substitutions are not
// word-split and globs and braces are not expanded.
//
// Parsing never fails: unterminated quotes, substitutions and heredocs run
// to the end of the input, so a line bash rejects as a syntax error still
// yields the commands its author meant. Nesting is bounded by [MaxDepth]
// and the text derived from a line (re-parsed scripts, printf output) by a
// budget of 1 MiB plus the line's length, so no input costs more than
// linear time and memory in its length.
//
// It is hand-written on purpose: mvdan.cc/sh/v3/syntax (v3.14.1) was
// prototyped against the same inputs and declined (commit fd8efc4). It
// rejects what bash accepts and this package's tests check (a heredoc
// delimiter followed by a paren, `EOF)` closing a $(cat <<EOF ...), even
// with RecoverErrors; any input with invalid UTF-8, which bash joins back);
// 10 of the 108 table and pathological inputs are syntax errors to it, 5
// of which yield entries today. It is slower for no gain: parsing alone
// took 6-9 us on BenchmarkFromCommand's command against 2.8-4.5 us for the
// whole of capture's FromCommand, before the word evaluation it would
// still need (echo, printf and cat values, $'...', budgets); and it adds
// 386 KB to the binary and 24-58 us and 104 allocations of init to the
// capture path.
package bashcmd

import "strings"

const (
	// MaxDepth bounds the nesting of subshells, substitutions and scripts
	// run by `bash -c`, `eval` and `bash <<EOF`; deeper ones are kept as
	// written and not parsed.
	MaxDepth = 32
	// maxPipeHops bounds how far back a pipeline is followed for stdin.
	maxPipeHops = 64
	// baseBudget is the number of bytes of derived text (re-parsed strings,
	// printf output) one Parse may produce beyond its input size.
	baseBudget = 1 << 20
)

// Command is one simple command of a command line.
type Command struct {
	// Words are the command's words after quote removal and the
	// expansions that are known (see the package comment), assignments,
	// reserved words and wrappers included: see [Command.Args].
	Words []string
	// Nested are the commands its substitutions run, in order; they run
	// before it.
	Nested []*Command

	stdin  input      // the last input redirection
	pipeIn *Command   // the command whose output is piped into this one
	budget *int       // bytes of derived text the Parse may still produce
	script []*Command // what Script returned, once scriptDone is set
	level  int32      // how many scripts (bash -c, eval) it is inside

	outFile    bool     // stdout is redirected away
	writes     []string // the files its output redirections write
	pipeOut    bool     // this command's output goes to the next one
	scriptDone bool
}

// Parse splits src into the simple commands it runs, in order: those of
// subshells, groups and compound commands included, those of
// substitutions in [Command.Nested].
func Parse(src string) []*Command {
	budget := baseBudget + len(src)
	p := &parser{src: src, budget: &budget}
	return p.parseList(false)
}

// Args returns the command's words without leading assignments, reserved
// words ({, if, then, while, !, ...) and the wrappers command, env, exec,
// nohup, time and sudo (without options), so that the first is the program
// that runs.
func (c *Command) Args() []string {
	words := c.Words
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

// Redirected returns the files the command's redirections write or
// open for writing (> >> >| &> &>> <> and >& to a file), as written.
func (c *Command) Redirected() []string { return c.writes }

// BaseName returns the program name of a command word: what follows its
// last '/'.
func BaseName(w string) string {
	return w[strings.LastIndexByte(w, '/')+1:]
}

// Stdin returns what the command reads on stdin when that is known: a
// heredoc's body, a here-string, or the output of the command piped into
// it when that is known (cat of a known stdin, echo or printf).
func (c *Command) Stdin() (string, bool) {
	return stdinOf(c, 0)
}

// Script returns the commands of the script the command hands to a shell:
// the argument of `bash -c` (or sh, zsh, dash, ksh), the words of `eval`,
// or the stdin of a shell given no script file. It returns nil when the
// command starts no such script, when the script is unknown, or past
// [MaxDepth] or the budget. The script is parsed once.
func (c *Command) Script() []*Command {
	if c.scriptDone {
		return c.script
	}
	c.scriptDone = true
	src, ok := shellScript(c, c.Args())
	if !ok || c.level >= MaxDepth || *c.budget < len(src) {
		return nil
	}
	*c.budget -= len(src)
	p := &parser{src: src, depth: int(c.level) + 1, level: c.level + 1, budget: c.budget}
	c.script = p.parseList(false)
	return c.script
}

// shellScript returns the script a shell invocation runs: the argument of
// `bash -c`, the words of `eval`, or the stdin of an argument-less shell.
func shellScript(c *Command, args []string) (string, bool) {
	if len(args) == 0 {
		return "", false
	}
	switch BaseName(args[0]) {
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
	return stdinOf(c, 0)
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

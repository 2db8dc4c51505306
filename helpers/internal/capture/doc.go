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
// Commands are read the way bash reads them, by package bashcmd (quotes,
// escapes, $'...', heredocs, command substitution, pipes and lists, with
// the values of echo, printf and cat substitutions; see its package
// comment), instead of being matched with regular expressions, so chained
// commands, heredoc bodies and escaped quotes come out right. Only beads
// comment commands are captured:
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
// A body holding an unknown substitution or a parameter expansion keeps
// it as written ("rev $(git rev-parse HEAD)", "$HOME"). Unquoted
// substitutions are not word-split and globs are not expanded (the body is
// white-space-collapsed anyway). The reading is tolerant: unterminated
// quotes, substitutions and heredocs run to the end of the input, so a
// command that bash rejects as a syntax error may still yield the items
// its author meant.
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

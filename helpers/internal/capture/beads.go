package capture

import (
	"strings"

	"github.com/cairn-dev/cairn/helpers/internal/bashcmd"
)

// maxBeadLen is the longest bead id kept in Item.Bead.
const maxBeadLen = 128

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
	var out []comment
	collect(bashcmd.Parse(cmd), &out)
	return out
}

// collect walks parsed commands in execution order (substitutions and
// scripts before the command that runs them) and appends the comments
// they carry. A `cairn add` command is skipped with everything nested in
// it.
func collect(cmds []*bashcmd.Command, out *[]comment) {
	for _, c := range cmds {
		args := c.Args()
		if isCairnAdd(args) {
			continue
		}
		collect(c.Nested, out)
		collect(c.Script(), out)
		if bead, body, ok := bdComment(args, c.Stdin); ok {
			*out = append(*out, comment{bead, body})
		}
	}
}

// isCairnAdd reports whether args run `cairn add`.
func isCairnAdd(args []string) bool {
	if len(args) == 0 || bashcmd.BaseName(args[0]) != "cairn" {
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

// bdComment recognizes a beads comment command by its arguments and returns
// its bead id (validated, else "") and its body; stdin tells what the
// command reads on stdin, for -f - and -f /dev/stdin.
func bdComment(args []string, stdin func() (string, bool)) (bead, body string, ok bool) {
	if len(args) < 3 || bashcmd.BaseName(args[0]) != "bd" {
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
		body, ok = stdin()
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

package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"
)

// Exit codes. cairn never exits 2: Claude Code reads 2 from a hook as
// "block the agent", and a Go panic exits 2 too.
const (
	exitOK    = 0
	exitError = 1  // something failed; the message says what and how to fix it
	exitUsage = 64 // the command line was wrong (EX_USAGE)
)

// userError is an error with a hint of the fix, printed on one line.
type userError struct {
	msg  string
	hint string
	code int
}

func (e *userError) Error() string { return e.msg }

// usagef reports a mistake in the command line.
func usagef(format string, args ...any) error {
	return &userError{msg: fmt.Sprintf(format, args...), code: exitUsage}
}

// hinted wraps err with a hint of the fix.
func hinted(err error, hint string) error {
	return &userError{msg: err.Error(), hint: hint, code: exitError}
}

// report prints err as one line on stderr and returns the exit code.
func report(stderr io.Writer, err error) int {
	if err == nil {
		return exitOK
	}
	code := exitError
	msg := err.Error()
	var ue *userError
	if errors.As(err, &ue) {
		code = ue.code
		if ue.hint != "" {
			msg += " (" + ue.hint + ")"
		}
	}
	msg = strings.ReplaceAll(msg, "\n", " ")
	fmt.Fprintf(stderr, "cairn: %s\n", msg)
	return code
}

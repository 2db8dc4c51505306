package toolgate

import "github.com/cairn-dev/cairn/helpers/internal/agent/spec"

// InHookEnv is the gate's spelling of session/record's InHookEnv, for
// names_test.go, whose package may import record (this one may not: record
// imports hookgate, which imports this package).
const InHookEnv = inHookEnv

// Quiet is the gate's judgement of a hook before a tool call (see
// [quiet]), for the tests that set it beside the full hook's.
func Quiet(a spec.Spec, data []byte) bool { return quiet(a, data) }

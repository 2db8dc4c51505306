package toolgate

// InHookEnv is the gate's spelling of session/record's InHookEnv, for
// names_test.go, whose package may import record (this one may not: record
// imports hookgate, which imports this package).
const InHookEnv = inHookEnv

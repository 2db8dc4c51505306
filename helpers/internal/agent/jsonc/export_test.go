package jsonc

// ErrSyntax is errSyntax, for the external tests.
var ErrSyntax = errSyntax

// MaxDepth is maxDepth, for the external tests.
const MaxDepth = maxDepth

//go:build !unix

package knowledge

import "testing"

// reportCPU reports nothing where getrusage does not exist.
func reportCPU(*testing.B) func() { return func() {} }

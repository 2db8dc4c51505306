//go:build !unix

package knowledge

import "errors"

// mkfifo is unsupported where there are no FIFOs.
func mkfifo(string) error { return errors.ErrUnsupported }

//go:build !unix

package ui

import "errors"

// mkfifo is unsupported where there are no FIFOs.
func mkfifo(string) error { return errors.ErrUnsupported }

//go:build !unix

package pipeline_test

import "errors"

func mkfifo(string) error { return errors.New("no FIFOs here") }

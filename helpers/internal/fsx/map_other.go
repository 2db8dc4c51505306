//go:build !unix

package fsx

import (
	"errors"
	"os"
)

// mapFile is not done here: the caller reads the file instead.
func mapFile(*os.File, int) ([]byte, func() error, error) {
	return nil, nil, errors.ErrUnsupported
}

// evict does nothing where files are not mapped.
func evict([]byte) {}

// Package queue is the producer's side of cairn's personal session
// pipeline: the queue of sessions to distill, under the user's state
// directory (package userconf), which the hooks write and the worker
// drains. It imports nothing of cairn but the leaf packages event, fsx,
// detach and userconf and the standard library's few packages, so that
// the Stop hook's fast path can enqueue before the rest of cairn starts
// (see hookgate): enqueueing reads no transcript and costs a few stats and
// one small write.
package queue

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/helpers/internal/fsx"
)

// WriteAtomic writes data to path through a temporary file in the same
// directory, synced, and a rename (package fsx's), creating the directory
// if needed.
func WriteAtomic(path string, data []byte) error { return writeFile(path, data, true) }

// writeFile writes data to path through package fsx's atomic writer;
// durable syncs it to disk first. The user's own files are private
// (0600).
func writeFile(path string, data []byte, durable bool) error {
	dir, base := filepath.Split(path)
	if err := fsx.MkdirPrivate(dir); err != nil {
		return err
	}
	r := fsx.NewPrivateRoot(filepath.Clean(dir))
	write := r.ReplaceFile
	if durable {
		write = r.WriteAtomic
	}
	if err := write(base, data, 0o600); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// RemoveTemps removes the temporary files that writers killed before
// their rename left in dir (only base's, when base is set), those last
// written before cutoff (any, when it is zero), and counts them. Call it
// only where no live writer can own one: holding the lock every writer
// holds, or with a cutoff older than any write takes.
func RemoveTemps(dir, base string, cutoff time.Time) int {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0
	}
	n := 0
	for _, e := range entries {
		if !fsx.IsTemp(e.Name()) || base != "" && !strings.HasPrefix(e.Name(), fsx.TempPrefix(base)) {
			continue
		}
		if info, err := e.Info(); err == nil && info.Mode().IsRegular() && (cutoff.IsZero() || info.ModTime().Before(cutoff)) {
			if os.Remove(filepath.Join(dir, e.Name())) == nil {
				n++
			}
		}
	}
	return n
}

//go:build unix

package fsx

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// bounded runs fn and fails the test if it has not returned by the time a
// blocked open would otherwise hang the test run: the bound is not a
// timing assertion, only a way to report a regression instead of hanging.
func bounded(t *testing.T, what string, fn func() error) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- fn() }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		t.Fatalf("%s blocked", what)
		return nil
	}
}

func TestOpenRegularRefusesSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "done.task")
	must(t, syscall.Mkfifo(fifo, 0o644))
	for _, tc := range []struct {
		name string
		fn   func() error
	}{
		{"OpenRegular", func() error { f, err := OpenRegular(fifo); closeIf(f); return err }},
		{"ReadRegular", func() error { _, err := ReadRegular(fifo, 1<<20); return err }},
		{"OpenRegularFile/append", func() error {
			f, err := OpenRegularFile(fifo, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
			closeIf(f)
			return err
		}},
		{"OpenRegular/dir", func() error { f, err := OpenRegular(dir); closeIf(f); return err }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := bounded(t, tc.name, tc.fn)
			if err == nil {
				t.Fatal("a special file was opened")
			}
			var nr *NotRegularError
			if errors.As(err, &nr) && !errors.Is(err, ErrUnsafe) {
				t.Fatalf("%v does not match ErrUnsafe", err)
			}
		})
	}
}

func TestReadRegular(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	must(t, os.WriteFile(p, []byte("hello"), 0o644))
	must(t, os.Symlink(p, filepath.Join(dir, "link"))) // the person's own links are followed
	for _, name := range []string{"f", "link"} {
		data, err := ReadRegular(filepath.Join(dir, name), 5)
		if err != nil || string(data) != "hello" {
			t.Fatalf("ReadRegular(%s) = %q, %v", name, data, err)
		}
	}
	if _, err := ReadRegular(p, 4); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("over the cap: %v, want ErrTooLarge", err)
	}
	if _, err := ReadRegular(filepath.Join(dir, "missing"), 4); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("missing: %v, want ErrNotExist", err)
	}
}

func closeIf(f *os.File) {
	if f != nil {
		f.Close()
	}
}

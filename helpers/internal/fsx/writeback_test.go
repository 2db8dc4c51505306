package fsx

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// A Writeback writes what it is given, byte for byte, whether copied from
// a limited file (chunk by chunk, each a kernel copy), from any reader or
// written, and after Flush has started the writeback of all of it.
func TestWriteback(t *testing.T) {
	dir := t.TempDir()
	src := bytes.Repeat([]byte("0123456789abcdef\n"), 3*WritebackChunk/17+5)
	srcPath := filepath.Join(dir, "src")
	if err := os.WriteFile(srcPath, src, 0o644); err != nil {
		t.Fatal(err)
	}
	in, err := os.Open(srcPath)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.Create(filepath.Join(dir, "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	w := NewWriteback(out)
	part := int64(len(src)) - 100
	if n, err := io.Copy(w, io.LimitReader(in, part)); err != nil || n != part {
		t.Fatalf("copy of a limited file: %d, %v", n, err)
	}
	if _, err := w.Write([]byte("written\n")); err != nil {
		t.Fatal(err)
	}
	if n, err := io.Copy(w, bytes.NewReader([]byte("from a reader\n"))); err != nil || n != 14 {
		t.Fatalf("copy of a reader: %d, %v", n, err)
	}
	if w.started == 0 || w.started == w.written {
		t.Errorf("writeback started for %d of %d bytes before Flush: want the whole chunks only", w.started, w.written)
	}
	w.Flush()
	if w.started != w.written {
		t.Errorf("after Flush, writeback started for %d of %d bytes", w.started, w.written)
	}
	got, err := os.ReadFile(out.Name())
	if err != nil {
		t.Fatal(err)
	}
	want := append(append(src[:part:part], "written\n"...), "from a reader\n"...)
	if !bytes.Equal(got, want) {
		t.Errorf("the file holds %d bytes, not the %d written", len(got), len(want))
	}
}

// BenchmarkWriteback is the durable copy of a 3 MB file, as a capture
// makes of a 10k-entry log: the kernel's copy, then fsync, plain and
// through a Writeback.
func BenchmarkWriteback(b *testing.B) {
	dir := b.TempDir()
	src := filepath.Join(dir, "src")
	if err := os.WriteFile(src, bytes.Repeat([]byte("a log line of about three hundred bytes\n"), 3<<20/40), 0o644); err != nil {
		b.Fatal(err)
	}
	for _, mode := range []string{"plain", "writeback"} {
		b.Run(mode, func(b *testing.B) {
			for b.Loop() {
				in, err := os.Open(src)
				if err != nil {
					b.Fatal(err)
				}
				out, err := os.Create(filepath.Join(dir, "out"))
				if err != nil {
					b.Fatal(err)
				}
				var w io.Writer = out
				wb := NewWriteback(out)
				if mode == "writeback" {
					w = wb
				}
				if _, err := io.Copy(w, io.LimitReader(in, 3<<20)); err != nil {
					b.Fatal(err)
				}
				wb.Flush()
				if err := out.Sync(); err != nil {
					b.Fatal(err)
				}
				out.Close()
				in.Close()
			}
		})
	}
}

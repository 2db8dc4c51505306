package gitmeta

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"io"
	"os"
)

// MaxBlobBytes caps the file [BlobFile] hashes: a larger one has no id
// here, and what compares with it falls back to something else.
const MaxBlobBytes = 16 << 20

// BlobFile returns the git blob id (SHA-1, hex) of the regular file at
// name as it is on disk: what `git hash-object` prints for it without
// filters (no line-ending conversion), computed without running git. ok
// is false for anything else: missing, not a regular file, over
// [MaxBlobBytes], unreadable.
func BlobFile(name string) (id string, ok bool) {
	f, err := os.Open(name)
	if err != nil {
		return "", false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > MaxBlobBytes {
		return "", false
	}
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00", fi.Size())
	if n, err := io.Copy(h, f); err != nil || n != fi.Size() {
		return "", false // it changed while read
	}
	return hex.EncodeToString(h.Sum(nil)), true
}

package index

import (
	"fmt"
	"io"
	"os"
)

// Generation names what the cache holds while ix is open: its file's
// identity and SQLite's count of the commits to it (the database header's
// change counter, which every write transaction bumps). No other process
// writes the cache while ix holds it open (a write takes the lock
// exclusive), so two reads of one generation read the same content: a
// reader may remember what it counted by it.
func (ix *Index) Generation() (string, error) {
	id, err := ix.store.Root().StatID(name)
	if err != nil {
		return "", err
	}
	f, err := ix.store.Root().OpenFile(name, os.O_RDONLY, 0)
	if err != nil {
		return "", err
	}
	defer f.Close()
	var head [28]byte // the change counter is bytes 24 to 27
	if _, err := io.ReadFull(f, head[:]); err != nil {
		return "", fmt.Errorf("read the cache's header: %w", err)
	}
	return fmt.Sprintf("%v/%x", id, head[24:]), nil
}

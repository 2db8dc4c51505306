package index

import "github.com/cairn-dev/cairn/helpers/internal/knowledge"

// OpenSynced opens the store's cache and brings it up to date with the
// log.
func OpenSynced(s *knowledge.Store) (*Index, SyncResult, error) {
	ix, err := Open(s)
	if err != nil {
		return nil, SyncResult{}, err
	}
	res, err := ix.Sync()
	if err != nil {
		ix.Close()
		return nil, res, err
	}
	return ix, res, nil
}

// OpenSyncedForHook opens the cache for a hook and syncs it with the log,
// without ever waiting on a rebuild: a cache that needs one, or more than
// a pull's worth of catching up, gives [ErrNotReady] (see [OpenForHook]).
func OpenSyncedForHook(s *knowledge.Store) (*Index, error) {
	ix, err := OpenForHook(s)
	if err != nil {
		return nil, err
	}
	if _, err := ix.Sync(); err != nil {
		ix.Close()
		return nil, err
	}
	return ix, nil
}

// SyncReport is what a sync did and what the cache holds after it.
type SyncReport struct {
	SyncResult                // Entries counts the log's and the archive's
	Problems   map[string]int // lines the reader skipped or repaired, by kind
}

// SyncStore brings the store's cache up to date with the log, or rebuilds
// it from scratch when full is set.
func SyncStore(s *knowledge.Store, full bool) (SyncReport, error) {
	ix, err := Open(s)
	if err != nil {
		return SyncReport{}, err
	}
	defer ix.Close()
	var res SyncResult
	if full {
		res, err = ix.Rebuild() // once, even for a cache that was missing
	} else {
		res, err = ix.Sync()
	}
	if err != nil {
		return SyncReport{}, err
	}
	total, problems, err := ix.Totals()
	if err != nil {
		return SyncReport{}, err
	}
	res.Entries = total
	return SyncReport{SyncResult: res, Problems: problems}, nil
}

// StatsOf counts the store's entries by type, status, author and month
// (all: with the archive), from the cache synced with the log.
func StatsOf(s *knowledge.Store, all bool) (Stats, error) {
	ix, _, err := OpenSynced(s)
	if err != nil {
		return Stats{}, err
	}
	defer ix.Close()
	return ix.Stats(all)
}

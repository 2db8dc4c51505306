package index

import (
	"encoding/json"

	"github.com/cairn-dev/cairn/helpers/internal/audit"
	"github.com/cairn-dev/cairn/helpers/internal/fsx"
)

// auditState is what the cache remembers of the audit it loaded.
type auditState struct {
	ID     fsx.FileID `json:"id"`
	LogSum string     `json:"log_sum"`
	LogID  fsx.FileID `json:"log_id"`
}

// syncVerdicts loads sanitize's verdicts when the audit file changed since
// the cache last read it. A verdict applies to the line it judged (key and
// ts): a newer line of the key is judged by the next sanitize run. An
// audit that cannot be read counts as none: recall goes on without it, and
// SanitizeNeeded asks for a run that rewrites it.
//
// Loading writes to the cache, so it happens under the cache's lock, on a
// connection opened under it (see [Index.writeLocked]).
func (ix *Index) syncVerdicts() error {
	if ix.verdictsCurrent(ix.auditID()) {
		return nil
	}
	return ix.writeLocked(ix.refreshVerdicts)
}

// refreshVerdicts is syncVerdicts for a caller that holds the cache's lock
// exclusively on a connection opened under it.
func (ix *Index) refreshVerdicts() error {
	id, unreadable := ix.auditID()
	if ix.verdictsCurrent(id, unreadable) { // loaded meanwhile
		return nil
	}
	return ix.loadVerdicts(id, unreadable)
}

// auditID is the audit file's identity; unreadable when a link or special
// file stands in its place (which counts as no audit).
func (ix *Index) auditID() (id fsx.FileID, unreadable bool) {
	id, err := ix.store.Root().StatID(audit.File)
	return id, err != nil
}

// verdictsCurrent reports whether the cache holds the verdicts of the
// audit whose identity is id.
func (ix *Index) verdictsCurrent(id fsx.FileID, unreadable bool) bool {
	var saved auditState
	if v, err := ix.meta("audit"); err == nil {
		_ = json.Unmarshal([]byte(v), &saved)
		if saved.ID == id && !unreadable {
			ix.auditLog = logState{id: saved.LogID, sum: saved.LogSum, synced: true}
			return true
		}
	}
	return false
}

// loadVerdicts replaces the cache's verdicts with the audit's.
func (ix *Index) loadVerdicts(id fsx.FileID, unreadable bool) error {
	verdicts, from, err := audit.ReadVerdicts(ix.store)
	if err != nil || unreadable {
		verdicts, from = nil, audit.From{}
	}
	err = ix.immediate(func(tx connExec) error {
		removedBefore, err := removedKeys(tx)
		if err != nil {
			return err
		}
		if _, err := tx.Exec(`DELETE FROM verdicts`); err != nil {
			return dbErr("load audit", err)
		}
		st, err := tx.Prepare(`INSERT OR REPLACE INTO verdicts(key,ts,effect,note) VALUES(?,?,?,?)`)
		if err != nil {
			return dbErr("load audit", err)
		}
		defer st.Close()
		for _, v := range verdicts {
			if _, err := st.Exec(v.Key, v.TS, v.Effect, v.Note); err != nil {
				return dbErr("load audit", err)
			}
		}
		b, _ := json.Marshal(auditState{ID: id, LogSum: from.LogSHA256, LogID: from.LogID})
		if _, err := tx.Exec(`INSERT OR REPLACE INTO meta(k,v) VALUES('audit',?)`, string(b)); err != nil {
			return dbErr("load audit", err)
		}
		return ix.verdictAnchors(tx, removedBefore, verdicts)
	})
	if err != nil {
		return err
	}
	ix.auditLog = logState{id: from.LogID, sum: from.LogSHA256, synced: true}
	return nil
}

// removedKeys are the keys of the verdicts that remove a line.
func removedKeys(ex preparer) (map[string]bool, error) {
	out := map[string]bool{}
	rows, err := ex.Query(`SELECT DISTINCT key FROM verdicts WHERE effect=?`, audit.EffectRemoved)
	if err != nil {
		return nil, dbErr("load audit", err)
	}
	defer rows.Close()
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			return nil, dbErr("load audit", err)
		}
		out[k] = true
	}
	return out, dbErr("load audit", rows.Err())
}

// verdictAnchors updates the anchor map for the keys whose removal by
// sanitize came or went with the verdicts loaded (see
// [Index.updateAnchors]); the log's files did not change.
func (ix *Index) verdictAnchors(ex preparer, before map[string]bool, verdicts []audit.Verdict) error {
	ch := newAnchorChange()
	after := map[string]bool{}
	for _, v := range verdicts {
		if v.Effect == audit.EffectRemoved {
			after[v.Key] = true
		}
	}
	for k := range before {
		if !after[k] {
			ch.keys[k] = true
		}
	}
	for k := range after {
		if !before[k] {
			ch.keys[k] = true
		}
	}
	if len(ch.keys) == 0 {
		return nil
	}
	var files string
	var saved state
	if ex.QueryRow(`SELECT v FROM meta WHERE k='files'`).Scan(&files) != nil || json.Unmarshal([]byte(files), &saved) != nil {
		return nil // no files recorded yet: the map is built in full
	}
	id := saved.identity(ix.store)
	// The keys' anchors before are their entries' own: the entries did
	// not change, and a key leaves an anchor it was not on at no cost.
	keys := make([]string, 0, len(ch.keys))
	for k := range ch.keys {
		keys = append(keys, k)
	}
	err := eachChunk(keys, func(marks string, args []any) error {
		rows, err := ex.Query(`SELECT key, json, anchored, type FROM entries WHERE key IN (`+marks+`)`, args...)
		if err != nil {
			return dbErr("read anchors", err)
		}
		defer rows.Close()
		for rows.Next() {
			var k, typ string
			var js []byte
			var anchored int
			if err := rows.Scan(&k, &js, &anchored, &typ); err != nil {
				return dbErr("read anchors", err)
			}
			ch.noteOld(k, js, anchored == 1, typ)
		}
		return dbErr("read anchors", rows.Err())
	})
	if err != nil {
		return err
	}
	ix.updateAnchors(ex, ch, id, id)
	return nil
}

// SanitizeNeeded reports, after a Sync, whether the working set is behind
// the log: no sanitize run yet, or the last one read another version of
// the log. It asks the database nothing and reads no file: the log still
// has the identity the run saw (it is replaced, never written in place,
// so a new version has a new identity), or, failing that, the same sum
// as far as Sync knows it (a sync that finds the log changed knows the
// sum of a small log only); not knowing, it asks for a run.
func (ix *Index) SanitizeNeeded() bool {
	switch {
	case !ix.log.synced:
		return false
	case ix.auditLog.id != (fsx.FileID{}) && ix.auditLog.id == ix.log.id:
		return false
	case ix.log.sum != "":
		return ix.auditLog.sum != ix.log.sum
	}
	return true
}

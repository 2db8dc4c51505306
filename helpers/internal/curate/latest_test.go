package curate

import (
	"bytes"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/helpers/internal/index"
	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
	"github.com/cairn-dev/cairn/helpers/internal/rank"
	"github.com/cairn-dev/cairn/helpers/internal/sanitize"
)

// TestEveryReaderPicksTheSameLine: lines of one key with the same ts (two
// in the log; one in the log and one in the archive), in file orders where
// "later in the file" and "greater bytes" disagree, and in the reverse
// orders. The search cache (what recall shows), built whole or caught up
// line by line, sanitize's working set, curation's proposal, and the
// latest line that curate --apply and retract read (knowledge.Latest over
// Store.ReadAll) all pick the same line: the one knowledge.Version.Newer
// picks.
func TestEveryReaderPicksTheSameLine(t *testing.T) {
	const ts = 1_700_000_000
	line := func(key, content string, files ...string) []byte {
		e := knowledge.Entry{Key: key, Type: "fact", Content: content, TS: ts, Author: "ana", Files: files}
		b, err := knowledge.Marshal(&e)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	// The entries that name a file the project does not have are stale:
	// sanitize takes them out of the working set and curate proposes a
	// needs_review line, a copy of the line it took for the latest.
	const gone = "old/gone.go"
	logLines := [][]byte{
		// The greater bytes come first in the file.
		line("fact-tie-log", "Zebra wombat: the second opinion on feeding times."),
		line("fact-tie-log", "Zebra wombat: a first opinion on feeding times."),
		line("fact-tie-both", "Quokka naps: what the log says about them."),
		line("fact-gone-log", "Ocelot cage: version b of the rule.", gone),
		line("fact-gone-log", "Ocelot cage: version a of the rule.", gone),
		line("fact-gone-both", "Lynx fence: the log's line of the rule.", gone),
	}
	archiveLines := [][]byte{
		// Greater bytes than the log's line of the key: the log's wins
		// because it is the log's.
		line("fact-tie-both", "Quokka naps: zz the archive's line about them."),
		line("fact-gone-both", "Lynx fence: zz the archive's line of the rule.", gone),
	}
	want := map[string]string{
		"fact-tie-log":   "Zebra wombat: the second opinion on feeding times.",
		"fact-tie-both":  "Quokka naps: what the log says about them.",
		"fact-gone-log":  "Ocelot cage: version b of the rule.",
		"fact-gone-both": "Lynx fence: the log's line of the rule.",
	}
	// What recall finds of each key, with the entries sanitize removed.
	words := map[string]string{
		"fact-tie-log":   "zebra wombat",
		"fact-tie-both":  "quokka naps",
		"fact-gone-log":  "ocelot cage",
		"fact-gone-both": "lynx fence",
	}
	join := func(lines [][]byte) []byte { return append(bytes.Join(lines, []byte("\n")), '\n') }

	for _, reverse := range []bool{false, true} {
		logL, archL := slices.Clone(logLines), slices.Clone(archiveLines)
		if reverse {
			slices.Reverse(logL)
			slices.Reverse(archL)
		}
		root := t.TempDir()
		s := knowledge.Open(root)
		if err := s.Provision(); err != nil {
			t.Fatal(err)
		}
		write := func(logData, archData []byte) {
			t.Helper()
			if err := os.WriteFile(s.LogPath(), logData, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(s.ArchivePath(), archData, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		check := func(what string, got map[string]string, keys ...string) {
			t.Helper()
			for _, k := range keys {
				if got[k] != want[k] {
					t.Errorf("reverse %v, %s: %s is %q, want %q", reverse, what, k, got[k], want[k])
				}
			}
		}
		all := []string{"fact-tie-log", "fact-tie-both", "fact-gone-log", "fact-gone-both"}

		// The cache first holds one line of each key, then catches up
		// with the ties (the incremental path refolds each key).
		write(join([][]byte{logL[0], logL[2], logL[3], logL[5]}), nil)
		ix, err := index.Open(s)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ix.Close() })
		if _, err := ix.Sync(); err != nil {
			t.Fatal(err)
		}
		write(join(logL), join(archL))
		if res, err := ix.Sync(); err != nil || res.Rebuilt || res.Current {
			t.Fatalf("catching up: %+v, %v", res, err)
		}
		search := func(what string, inactive bool, keys ...string) {
			t.Helper()
			got := map[string]string{}
			for _, k := range keys {
				hits, err := rank.Search(ix, rank.Query{Text: words[k], Inactive: inactive})
				if err != nil {
					t.Fatal(err)
				}
				if len(hits) != 1 || hits[0].Entry.Key != k || hits[0].Archived {
					t.Errorf("reverse %v, %s: search %q = %+v, want %s from the log", reverse, what, words[k], hits, k)
					continue
				}
				got[k] = hits[0].Entry.Content
			}
			check(what, got, keys...)
		}
		search("cache caught up", false, all...)

		// Sanitize and its working set.
		res, ran, err := sanitize.Run(s, sanitize.Options{Root: root, Collect: true}, true)
		if err != nil || !ran {
			t.Fatalf("sanitize: ran %v, %v", ran, err)
		}
		latest := map[string]string{}
		for k, e := range res.Latest {
			latest[k] = e.Content
		}
		check("sanitize's latest", latest, all...)
		data, err := os.ReadFile(sanitize.ActivePath(s.CachePath()))
		if err != nil {
			t.Fatal(err)
		}
		active := map[string]string{}
		lines, _ := knowledge.Lines(data)
		for _, l := range lines {
			e, err := knowledge.DecodeEntry(l)
			if err != nil {
				t.Fatalf("active.jsonl: %v", err)
			}
			active[e.Key] = e.Content
		}
		if len(active) != 2 {
			t.Errorf("reverse %v: working set %v, want the two entries that name no file", reverse, active)
		}
		check("active.jsonl", active, "fact-tie-log", "fact-tie-both")

		// Curation's proposal copies the latest line of each stale key.
		proposed := map[string]string{}
		for _, l := range Propose(res, time.Unix(ts, 0)).Lines {
			proposed[l.Key] = l.Content
		}
		if len(proposed) != 2 {
			t.Errorf("reverse %v: proposal %v, want the two stale entries", reverse, proposed)
		}
		check("proposal", proposed, "fact-gone-log", "fact-gone-both")

		// What curate --apply and retract read: the log, then the archive.
		recs, _, err := s.ReadAll(true)
		if err != nil {
			t.Fatal(err)
		}
		read := map[string]string{}
		for _, r := range knowledge.Latest(recs) {
			read[r.Entry.Key] = r.Entry.Content
			if r.Archived {
				t.Errorf("reverse %v: the latest line of %s is the archive's", reverse, r.Entry.Key)
			}
		}
		check("knowledge.Latest over ReadAll", read, all...)

		// The cache, with sanitize's verdicts (the stale entries hidden
		// unless asked for), and rebuilt whole.
		if _, err := ix.Sync(); err != nil {
			t.Fatal(err)
		}
		if hits, err := rank.Search(ix, rank.Query{Text: words["fact-gone-log"]}); err != nil || len(hits) != 0 {
			t.Errorf("reverse %v: a stale entry is found: %+v, %v", reverse, hits, err)
		}
		search("cache with verdicts", true, all...)
		if _, err := ix.Rebuild(); err != nil {
			t.Fatal(err)
		}
		search("cache rebuilt", true, all...)
	}
}

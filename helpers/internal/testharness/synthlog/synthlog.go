// Package synthlog generates the realistic synthetic log that the search
// cache's and the ranking's tests and benchmarks share: entries of 100-250
// characters about one topic each, with a word of their own (UniqWord), so
// a query's cost and answer are those of a real log of that size.
package synthlog

import (
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
)

// UniqWord is a made-up word that only entry i contains. Its letters avoid
// vowels, l, s and y, so the porter stemmer leaves it alone.
func UniqWord(i int) string {
	const letters = "bcdfghjkmnpqrtvwxz"
	b := []byte("zq")
	for range 4 {
		b = append(b, letters[i%len(letters)])
		i /= len(letters)
	}
	return string(b)
}

// Vocab is the words of the synthetic entries.
var Vocab = strings.Fields(`cache index query token session hook commit branch merge rebase
conflict lock rename fsync sqlite ranking redirect oauth callback header cookie
retry timeout backoff deadline context cancel goroutine channel mutex atomic worker queue batch
stream buffer parser lexer schema migration column table row transaction rollback snapshot replica
leader follower shard partition compaction tombstone ledger checksum digest signature keypair
certificate handshake proxy gateway router middleware handler endpoint payload encoder decoder
marshal config flag secret vault policy role tenant quota limit throttle metric
trace span logger level sampler exporter collector dashboard alert pager incident rollout canary
feature toggle experiment cohort bucket hash ring node cluster pod container image registry
manifest chart module provider plan apply drift state backend region zone
latency throughput jitter spike regression benchmark profile heap stack allocation escape inline
generic interface struct method embed closure defer panic recover error wrap sentinel
build vet lint staticcheck gofmt vendor sumdb replace retract workspace
windows linux darwin arm64 amd64 cgo wasm plugin daemon socket pipe signal sigkill sigterm
unicode utf8 normalize casefold slug keyword phrase stemming tokenizer stopword synonym`)

// filler is the glue of real sentences: mostly stop words, which entries
// contain and queries drop, and common verbs.
var filler = strings.Fields(`the a an when after before must should always never because with without
into from only if then also this that which it is are be was not on in of to for by
use check avoid returns fails works needs breaks handles keeps makes call run set read write
fix add remove prefer instead first last every each same other new old`)

// Topics groups the vocabulary: an entry is about one topic, as real
// entries are, so a word occurs in a few percent of entries, not in all.
var Topics = func() [][]string {
	words := slices.Clone(Vocab)
	rng := rand.New(rand.NewPCG(77, 77))
	rng.Shuffle(len(words), func(i, j int) { words[i], words[j] = words[j], words[i] })
	var out [][]string
	for len(words) >= 8 {
		out = append(out, words[:8])
		words = words[8:]
	}
	out[0] = append(out[0], words...)
	return out
}()

// Entry is entry i of a realistic synthetic log: 100-250 characters,
// the entry's own unique word, then words of its topic, of the whole
// vocabulary and of plain English; a type, tags, an author and a ts.
func Entry(rng *rand.Rand, i int) knowledge.Entry {
	target := 100 + rng.IntN(151)
	topic := Topics[rng.IntN(len(Topics))]
	var b strings.Builder
	b.WriteString(UniqWord(i))
	for b.Len() < target {
		b.WriteByte(' ')
		switch r := rng.IntN(10); {
		case r < 4:
			b.WriteString(topic[rng.IntN(len(topic))])
		case r < 6:
			b.WriteString(Vocab[rng.IntN(len(Vocab))])
		default:
			b.WriteString(filler[rng.IntN(len(filler))])
		}
	}
	content := b.String()
	typ := knowledge.Types[rng.IntN(len(knowledge.Types))]
	var tags []string
	for range rng.IntN(4) {
		tags = append(tags, topic[rng.IntN(len(topic))])
	}
	authors := []string{"Ana", "Bo", "Cy", ""}
	return knowledge.Entry{Key: knowledge.MakeKey(typ, content), Type: typ, Content: content, Source: "agent",
		Tags: tags, TS: 1_760_000_000 + int64(i)*3600, Author: authors[i%len(authors)]}
}

// Log returns the lines of entries from..to-1, sorted as the log
// keeps them.
func Log(from, to int, seed uint64) [][]byte {
	rng := rand.New(rand.NewPCG(seed, uint64(from)))
	out := make([][]byte, 0, to-from)
	for i := from; i < to; i++ {
		e := Entry(rng, i)
		b, err := knowledge.Marshal(&e)
		if err != nil {
			panic(err)
		}
		out = append(out, b)
	}
	knowledge.SortLines(out)
	return out
}

// Changed returns the log of Log(0, n, seed) before and after a day of a
// team's work, as cairn writes it: 20 entries added, and 10 each
// retracted, edited and superseded by a new entry, each change a line of
// its own beside the entry's, sorted as the log keeps them. Each change
// names the entry it changes (the one of the first 30 lines of the
// log, in order).
func Changed(n int, seed uint64) (before, after [][]byte) {
	before = Log(0, n, seed)
	after = Log(n, n+20, seed)
	rng := rand.New(rand.NewPCG(seed, uint64(n)))
	for i, line := range before[:min(30, len(before))] {
		var e knowledge.Entry
		knowledge.Parse(line, func(r knowledge.Record) { e = r.Entry })
		e.TS += 60
		switch i / 10 {
		case 0:
			e.Status, e.ReviewReason = knowledge.StatusRetracted, "no longer true"
		case 1:
			e.Content += " (edited)"
		case 2:
			next := Entry(rng, n+20+i)
			after = append(after, mustMarshal(&next))
			e.Status, e.SupersededBy = knowledge.StatusSuperseded, next.Key
		default:
			continue
		}
		after = append(after, mustMarshal(&e))
	}
	after = append(after, before...)
	knowledge.SortLines(after)
	return before, after
}

func mustMarshal(e *knowledge.Entry) []byte {
	b, err := knowledge.Marshal(e)
	if err != nil {
		panic(err)
	}
	return b
}

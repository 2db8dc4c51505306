package anchor

import (
	"bytes"
	"slices"
	"strings"
)

// Change is how a write of the log or the cache changes the anchor map.
// Every key of Keys leaves the anchors Old names for it (the anchors it
// had), and the anchors of New (the anchors the keys have now) get their
// keys, first. A key that stays where it was is in both.
type Change struct {
	Keys map[string]bool
	Old  Map // names only matter
	New  Map
}

// Empty reports whether c changes no line of a map.
func (c Change) Empty() bool {
	return len(c.Old.Files)+len(c.Old.Commands)+len(c.New.Files)+len(c.New.Commands) == 0
}

// Update applies c to a map's data and records sources as its identity.
// Only the lines of the anchors c names are parsed and rewritten (an
// anchor left without keys goes; a new one is put at its sorted place);
// every other line is copied as it is. Its cost is a pass over the
// bytes of the map and the length of the lines it rewrites: linear in the
// map, whatever c holds. ok is false when data is not a map, which only
// a full build (see [Encode]) replaces.
func Update(data []byte, sources string, c Change) ([]byte, bool) {
	rest, ok := bytes.CutPrefix(data, []byte(magic+"\nsrc "))
	if !ok {
		return nil, false
	}
	_, body, ok := bytes.Cut(rest, []byte("\n"))
	if !ok {
		return nil, false
	}
	tags := []struct {
		tag      byte
		old, new map[string][]string
	}{{'c', c.Old.Commands, c.New.Commands}, {'f', c.Old.Files, c.New.Files}}
	touched := [2]map[string]bool{}
	added := [2]map[string][]string{}
	pending := [2][]string{} // New's names, sorted: those not met are inserted
	for i, t := range tags {
		touched[i] = map[string]bool{}
		added[i] = map[string][]string{}
		for n := range t.old {
			if n, ok := lineName(t.tag, n); ok {
				touched[i][n] = true
			}
		}
		for n, keys := range t.new {
			if n, ok := lineName(t.tag, n); ok {
				touched[i][n] = true
				added[i][n] = append(added[i][n], keys...)
			}
		}
		for n := range added[i] {
			pending[i] = append(pending[i], n)
		}
		slices.Sort(pending[i])
	}
	var b bytes.Buffer
	b.Grow(len(data) + 256)
	b.WriteString(magic + "\nsrc " + oneLine(sources) + "\n")
	// flush writes the new anchors of group g that sort before name (all
	// of them when all is set).
	flush := func(g int, name string, all bool) {
		for len(pending[g]) > 0 && (all || pending[g][0] < name) {
			n := pending[g][0]
			pending[g] = pending[g][1:]
			writeLine(&b, tags[g].tag, n, mergeKeys(added[g][n], nil, c.Keys))
		}
	}
	group := 0
	for len(body) > 0 {
		line := body
		next := len(body)
		if i := bytes.IndexByte(body, '\n'); i >= 0 {
			line, next = body[:i], i+1
		}
		body = body[next:]
		if len(line) == 0 {
			continue
		}
		if len(line) < 3 || line[1] != ' ' || (line[0] != 'c' && line[0] != 'f') {
			return nil, false
		}
		g := 0
		if line[0] == 'f' {
			g = 1
		}
		if g < group {
			return nil, false // a command after a path: not a map Encode wrote
		}
		for ; group < g; group++ {
			flush(group, "", true)
		}
		nameB, keys, ok := bytes.Cut(line[2:], []byte("\t"))
		if !ok {
			return nil, false
		}
		name := string(nameB)
		flush(g, name, false)
		if len(pending[g]) > 0 && pending[g][0] == name {
			pending[g] = pending[g][1:]
		}
		if !touched[g][name] {
			b.Write(line)
			b.WriteByte('\n')
			continue
		}
		writeLine(&b, tags[g].tag, name, mergeKeys(added[g][name], strings.Fields(string(keys)), c.Keys))
	}
	for ; group < 2; group++ {
		flush(group, "", true)
	}
	return b.Bytes(), true
}

// mergeKeys is a line's keys after a change: the new ones first, then
// the old ones that did not change, each once.
func mergeKeys(added, old []string, changed map[string]bool) []string {
	out := make([]string, 0, len(added)+len(old))
	seen := make(map[string]bool, len(added))
	for _, k := range added {
		if validKey(k) && !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	for _, k := range old {
		if !changed[k] && !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	return out
}

func writeLine(b *bytes.Buffer, tag byte, name string, keys []string) {
	if len(keys) == 0 {
		return
	}
	b.WriteByte(tag)
	b.WriteByte(' ')
	b.WriteString(name)
	b.WriteByte('\t')
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(k)
	}
	b.WriteByte('\n')
}

// lineName is the name an anchor gets on its line: a path without a
// trailing slash; ok is false for one a line cannot hold.
func lineName(tag byte, n string) (string, bool) {
	if tag == 'f' {
		n = strings.TrimSuffix(n, "/")
	}
	return n, n != "" && !strings.ContainsAny(n, "\t\n\r")
}

// validKey reports whether a key can stand on a line.
func validKey(k string) bool { return k != "" && !strings.ContainsAny(k, " \t\n\r") }

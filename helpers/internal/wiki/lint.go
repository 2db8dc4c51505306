package wiki

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/cairn-dev/cairn/helpers/internal/fsx"
	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
	"github.com/cairn-dev/cairn/helpers/internal/untrusted"
)

// The names of the lint checks, as reported in Finding.Check.
const (
	// CheckBrokenLink (error): a wikilink, in an article or in index.md,
	// whose target resolves to nothing.
	CheckBrokenLink = "broken_link"
	// CheckOrphanPage (warning): an article no other article links to.
	CheckOrphanPage = "orphan_page"
	// CheckOrphanSource (warning): a source the compile state has never
	// compiled.
	CheckOrphanSource = "orphan_source"
	// CheckStaleArticle (warning): an article compiled from a source that
	// has changed since.
	CheckStaleArticle = "stale_article"
	// CheckMissingBacklink (suggestion): B does not link back to an article
	// A that links to B.
	CheckMissingBacklink = "missing_backlink"
	// CheckSparseArticle (suggestion): an article body under SparseWords
	// words.
	CheckSparseArticle = "sparse_article"
	// CheckContradiction (warning): what the Contradictions callback found;
	// an error when the callback fails.
	CheckContradiction = "contradiction"
	// CheckInvalidArticle (error): an article that could not be read (a
	// symlink, not a regular file, over MaxFileSize), whose file name is not
	// a slug, whose front matter does not parse, or that lacks a required
	// front matter field. An article directory that is a symlink or cannot
	// be listed is reported under its own name.
	CheckInvalidArticle = "invalid_article"
)

// The severities of findings, in report order.
const (
	SeverityError      = "error"
	SeverityWarning    = "warning"
	SeveritySuggestion = "suggestion"
)

// MaxFileSize caps the read of any one wiki file.
const MaxFileSize = 1 << 20

// SparseWords is the number of words under which an article is sparse.
const SparseWords = 200

// StateFile is the compile state's file name in the wiki directory.
const StateFile = ".compile-state.json"

// maxStateSize caps the read of the compile state: a record per source
// compiled (a daily log, an entry type) is a few hundred bytes, so this is
// decades of them; a committed state past it is refused, not parsed.
const maxStateSize = 4 << 20

// articleDirs are the wiki's article directories.
var articleDirs = []string{"concepts", "connections", "qa"}

// Sources are what a wiki is compiled from: the daily logs of a personal
// wiki, or the entries of a team log. Both wikis share the lint through it.
type Sources interface {
	// Has reports whether a source link target (like "daily/2026-11-24") exists.
	Has(target string) bool
	// List names every source (like "daily/2026-11-24.md") with its current content hash.
	List() (map[string]string, error)
}

// DailySources are the sources of a knowledge directory dir: its
// daily/YYYY-MM-DD.md files (regular files only), named like
// "daily/2026-11-24.md" and hashed as the first 16 hex digits of the SHA-256
// of their bytes. A missing daily directory has no sources.
func DailySources(dir string) Readable { return dailySources{dir: dir} }

// Read returns a daily log's content ("daily/YYYY-MM-DD.md"), capped at
// MaxFileSize.
func (d dailySources) Read(name string) ([]byte, error) {
	day, ok := strings.CutPrefix(name, "daily/")
	if !ok || !isDailyName(day) {
		return nil, fmt.Errorf("no daily log %q", name)
	}
	data, _, err := readCapped(filepath.Join(d.dir, "daily", day), MaxFileSize)
	return data, err
}

// Link is a daily log's wikilink target: "daily/YYYY-MM-DD".
func (dailySources) Link(name string) string { return strings.TrimSuffix(name, ".md") }

// Cite is a wikilink to the daily log.
func (d dailySources) Cite(name string) string { return "[[" + d.Link(name) + "]]" }

// dailySources implements DailySources.
type dailySources struct{ dir string }

// isDailyName reports whether name is YYYY-MM-DD.md.
func isDailyName(name string) bool {
	day, ok := strings.CutSuffix(name, ".md")
	if !ok || len(day) != len(time.DateOnly) {
		return false
	}
	for i, c := range []byte(day) {
		if i == 4 || i == 7 {
			if c != '-' {
				return false
			}
		} else if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// Has reports whether target, "daily/YYYY-MM-DD" with or without ".md",
// names a daily log.
func (d dailySources) Has(target string) bool {
	name, ok := strings.CutPrefix(target, "daily/")
	if !ok {
		return false
	}
	name = strings.TrimSuffix(name, ".md") + ".md"
	if !isDailyName(name) {
		return false
	}
	fi, err := os.Lstat(filepath.Join(d.dir, "daily", name))
	return err == nil && fi.Mode().IsRegular()
}

// List hashes every daily log.
func (d dailySources) List() (map[string]string, error) {
	entries, err := os.ReadDir(filepath.Join(d.dir, "daily"))
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]string{}, nil
	}
	if err != nil {
		return nil, err
	}
	m := make(map[string]string, len(entries))
	for _, e := range entries {
		if !e.Type().IsRegular() || !isDailyName(e.Name()) {
			continue
		}
		h, err := hashFile(filepath.Join(d.dir, "daily", e.Name()))
		if err != nil {
			return nil, err
		}
		m["daily/"+e.Name()] = h
	}
	return m, nil
}

// hashFile is the first 16 hex digits of the SHA-256 of a file's bytes.
func hashFile(name string) (string, error) {
	f, err := fsx.OpenRegular(name)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("hash %s: %w", name, err)
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

// State is the compile state, W/.compile-state.json: for every source
// compiled, the hash it had then, when, and the articles compiled from it.
type State struct {
	Sources map[string]SourceState `json:"sources"`
}

// SourceState is what the compile state records of one source.
type SourceState struct {
	Hash       string    `json:"hash"`
	CompiledAt time.Time `json:"compiled_at"`
	// Articles are article paths like "concepts/x".
	Articles []string `json:"articles"`
}

// LoadState reads the compile state of wiki w; without a state file it is
// an empty state (nothing compiled).
func LoadState(w string) (State, error) {
	s := State{Sources: map[string]SourceState{}}
	name := filepath.Join(w, StateFile)
	data, _, err := readCapped(name, maxStateSize)
	if errors.Is(err, fs.ErrNotExist) {
		return s, nil
	}
	if errors.Is(err, errTooLarge) {
		return State{}, fmt.Errorf("%s is over %d MiB; %s", name, maxStateSize>>20, rebuild(w, StateFile))
	}
	if err != nil {
		return State{}, err
	}
	if err := json.Unmarshal(data, &s); err != nil {
		return State{}, fmt.Errorf("%s is not a compile state (%v); %s", name, err, rebuild(w, StateFile))
	}
	if s.Sources == nil {
		s.Sources = map[string]SourceState{}
	}
	return s, nil
}

// SaveState writes the compile state of wiki w atomically (a temporary file
// renamed over the old one).
func SaveState(w string, s State) error {
	if s.Sources == nil {
		s.Sources = map[string]SourceState{}
	}
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return fmt.Errorf("encode state: %w", err)
	}
	return writeFile(w, StateFile, append(data, '\n'))
}

// Errors of files a wiki cannot read.
var (
	errSymlink    = errors.New("symlink, not read")
	errNotRegular = errors.New("not a regular file, not read")
	errTooLarge   = errors.New("not read")
)

// rebuild says how to rebuild the wiki w's file, which cairn writes: the
// team's wiki is .cairn/wiki.
func rebuild(w, file string) string {
	cmd := "cairn wiki compile"
	if filepath.Base(filepath.Dir(w)) == knowledge.DirName {
		cmd += " --team"
	}
	if file == StateFile {
		return "delete it and run `" + cmd + "` to rebuild it (every source is compiled again)"
	}
	return "delete it and run `" + cmd + "` to write it again"
}

// readCapped reads a regular file that is not a symlink, at most limit bytes.
func readCapped(name string, limit int64) ([]byte, fs.FileInfo, error) {
	data, fi, err := readHead(name, limit+1)
	if err != nil {
		return nil, nil, err
	}
	if int64(len(data)) > limit {
		return nil, nil, fmt.Errorf("over %d bytes, %w", limit, errTooLarge)
	}
	return data, fi, nil
}

// readHead reads the first max bytes of a regular file that is not a
// symlink, and says what the file is.
func readHead(name string, max int64) ([]byte, fs.FileInfo, error) {
	fi, err := os.Lstat(name)
	if err != nil {
		return nil, nil, err
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		return nil, nil, errSymlink
	}
	if !fi.Mode().IsRegular() {
		return nil, nil, errNotRegular
	}
	f, err := fsx.OpenRegular(name)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	if ofi, err := f.Stat(); err != nil || !os.SameFile(fi, ofi) {
		return nil, nil, fmt.Errorf("%s: replaced while read", name)
	}
	data, err := io.ReadAll(io.LimitReader(f, max))
	if err != nil {
		return nil, nil, err
	}
	return data, fi, nil
}

// PageError is a problem with one file or directory of a wiki.
type PageError struct {
	// Path is relative to the wiki, slash-separated, like "concepts/x.md".
	Path string
	Err  error
}

// Error is the path and the problem.
func (e *PageError) Error() string { return e.Path + ": " + e.Err.Error() }

// Unwrap is the problem.
func (e *PageError) Unwrap() error { return e.Err }

// article is one article file found in a wiki.
type article struct {
	path    string // like "concepts/x"
	page    Page
	data    []byte
	perm    fs.FileMode
	readErr error // not read: page and data are empty
	pageErr error // read, but its front matter does not parse
}

// file is the article's file name relative to the wiki.
func (a *article) file() string { return a.path + ".md" }

// scan is one pass over a wiki directory.
type scan struct {
	w string
	// exact holds every file under the wiki (dot names and their contents
	// aside): its path without ".md" for Markdown, else its path.
	exact map[string]bool
	// lower maps the lowercase of every exact key to the keys.
	lower map[string][]string
	// base maps the lowercase file name (without ".md") of every article to
	// the articles.
	base     map[string][]string
	articles map[string]*article
	order    []*article // by path
	dirErrs  []*PageError
}

// scanWiki lists wiki w and reads its articles.
func scanWiki(w string) (*scan, error) {
	fi, err := os.Stat(w)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("%s: not a directory", w)
	}
	s := &scan{
		w:        w,
		exact:    map[string]bool{},
		lower:    map[string][]string{},
		base:     map[string][]string{},
		articles: map[string]*article{},
	}
	if err := s.walk(""); err != nil {
		return nil, err
	}
	slices.SortFunc(s.order, func(a, b *article) int { return strings.Compare(a.path, b.path) })
	for _, a := range s.order {
		if a.readErr != nil {
			continue
		}
		data, fi, err := readCapped(filepath.Join(w, filepath.FromSlash(a.file())), MaxFileSize)
		if err != nil {
			a.readErr = err
			continue
		}
		a.data, a.perm = data, fi.Mode().Perm()
		a.page, a.pageErr = ParsePage(a.path, data)
	}
	return s, nil
}

// walk records the files under directory rel of the wiki; it descends into
// no symlink. Only the wiki directory's own listing failing is an error.
func (s *scan) walk(rel string) error {
	entries, err := os.ReadDir(filepath.Join(s.w, filepath.FromSlash(rel)))
	if err != nil {
		if rel == "" {
			return err
		}
		if slices.Contains(articleDirs, rel) {
			s.dirErrs = append(s.dirErrs, &PageError{Path: rel, Err: err})
		}
		return nil
	}
	inArticles := slices.Contains(articleDirs, rel)
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") {
			continue
		}
		p := path.Join(rel, name)
		if e.IsDir() {
			if err := s.walk(p); err != nil {
				return err
			}
			continue
		}
		if rel == "" && slices.Contains(articleDirs, name) && e.Type()&fs.ModeSymlink != 0 {
			s.dirErrs = append(s.dirErrs, &PageError{Path: name, Err: errSymlink})
		}
		key, md := strings.CutSuffix(p, ".md")
		if !md {
			key = p
		}
		s.exact[key] = true
		lk := strings.ToLower(key)
		s.lower[lk] = append(s.lower[lk], key)
		if !inArticles || !md {
			continue
		}
		a := &article{path: key}
		switch {
		case e.Type()&fs.ModeSymlink != 0:
			a.readErr = errSymlink
		case !e.Type().IsRegular():
			a.readErr = errNotRegular
		}
		s.articles[key] = a
		s.order = append(s.order, a)
		lb := strings.ToLower(path.Base(key))
		s.base[lb] = append(s.base[lb], key)
	}
	return nil
}

// ReadWiki reads every article of wiki w (W/concepts, W/connections and
// W/qa *.md), in path order. A symlink, a file that is not regular or is
// over MaxFileSize is skipped and reported; a page whose front matter does
// not parse is returned as far as it was read, and reported. Errors are
// *PageError, but for an unreadable w.
func ReadWiki(w string) ([]Page, []error) {
	s, err := scanWiki(w)
	if err != nil {
		return nil, []error{fmt.Errorf("read wiki: %w", err)}
	}
	var (
		pages []Page
		errs  []error
	)
	for _, e := range s.dirErrs {
		errs = append(errs, e)
	}
	for _, a := range s.order {
		if a.readErr != nil {
			errs = append(errs, &PageError{Path: a.file(), Err: a.readErr})
			continue
		}
		if a.pageErr != nil {
			errs = append(errs, &PageError{Path: a.file(), Err: a.pageErr})
		}
		pages = append(pages, a.page)
	}
	return pages, errs
}

// resolution is where a link target leads.
type resolution struct {
	ok      bool
	article string // the article it names, if any
	why     string // why it does not resolve
}

// resolver resolves link targets in a wiki, once per target.
type resolver struct {
	s    *scan
	src  Sources
	memo map[string]resolution
}

// resolve resolves a link found in article from ("" for index.md).
func (r *resolver) resolve(from string, l Link) resolution {
	if l.Target == "" {
		return resolution{ok: true, article: from}
	}
	if res, ok := r.memo[l.Target]; ok {
		return res
	}
	res := r.lookup(l.Target)
	r.memo[l.Target] = res
	return res
}

// lookup resolves a target as Obsidian does (case aside): a path relative
// to the wiki, a source under daily/, or the file name of one article.
func (r *resolver) lookup(t string) resolution {
	if len(t) > 3 && strings.EqualFold(t[len(t)-3:], ".md") {
		t = t[:len(t)-3]
	}
	key := ""
	if r.s.exact[t] {
		key = t
	} else if keys := r.s.lower[strings.ToLower(t)]; len(keys) == 1 {
		key = keys[0]
	}
	if key != "" {
		if _, ok := r.s.articles[key]; ok {
			return resolution{ok: true, article: key}
		}
		return resolution{ok: true}
	}
	if strings.HasPrefix(t, "daily/") {
		if r.src.Has(t) {
			return resolution{ok: true}
		}
		return resolution{why: "no such source"}
	}
	if !strings.Contains(t, "/") {
		switch arts := r.s.base[strings.ToLower(t)]; len(arts) {
		case 1:
			return resolution{ok: true, article: arts[0]}
		case 0:
		default:
			return resolution{why: "ambiguous: " + strings.Join(arts, ", ")}
		}
	}
	return resolution{why: "no such page"}
}

// noSources is the Sources of a nil Sources: none.
type noSources struct{}

// Has is false: there is no source.
func (noSources) Has(string) bool { return false }

// List is empty.
func (noSources) List() (map[string]string, error) { return map[string]string{}, nil }

// LintOptions choose what Lint does beyond the structural checks.
type LintOptions struct {
	// StructuralOnly skips the contradiction check.
	StructuralOnly bool
	// Fix adds each missing backlink to the article lacking it, as
	// "- [[A]]" under a "## Related" section at its end (created if
	// missing), atomically, and says so in the finding.
	Fix bool
	// Contradictions is the model's check over all articles read; its
	// findings are reported as contradiction warnings, and its failure as
	// one contradiction error. Nil skips it.
	Contradictions func(pages []Page) ([]Finding, error)
}

// Finding is one problem Lint found. File is relative to the wiki (an
// article like "concepts/x.md", "index.md"), or a source's name.
type Finding struct {
	Check    string `json:"check"`
	Severity string `json:"severity"`
	File     string `json:"file"`
	Detail   string `json:"detail"`
}

// Report is what Lint found, ordered by severity, check and file.
type Report struct {
	Findings []Finding `json:"findings"`
}

// Lint checks the structure of wiki w against its sources src (nil: none)
// and its compile state, and, unless opts.StructuralOnly, runs
// opts.Contradictions. It reads each file once (Fix reads an article again
// before it changes it). Checks: broken_link, invalid_article (errors);
// orphan_page, orphan_source, stale_article, contradiction (warnings);
// missing_backlink, sparse_article (suggestions).
//
// A link resolves when its target (heading and alias aside; a heading alone
// is the page itself) is a file's path relative to w (".md" implied, case
// ignored), a source under "daily/" that src has, or, without a "/", the
// file name of exactly one article. Links from index.md are checked but are
// no article's inbound links; log.md is not checked. An article is stale
// when a source it was compiled from (by the state's record or its own
// sources) has a hash other than the one recorded at its compile; a source
// that no longer exists makes nothing stale.
func Lint(w string, src Sources, opts LintOptions) (Report, error) {
	if src == nil {
		src = noSources{}
	}
	s, err := scanWiki(w)
	if err != nil {
		return Report{}, fmt.Errorf("lint: %w", err)
	}
	state, err := LoadState(w)
	if err != nil {
		return Report{}, fmt.Errorf("lint: %w", err)
	}
	hashes, err := src.List()
	if err != nil {
		return Report{}, fmt.Errorf("lint: list sources: %w", err)
	}
	l := &linter{s: s, r: &resolver{s: s, src: src, memo: map[string]resolution{}}, findings: []Finding{}}
	l.invalid()
	l.links()
	l.orphans()
	l.backlinks(opts.Fix)
	l.sparse()
	l.sources(state, hashes)
	if opts.Contradictions != nil && !opts.StructuralOnly {
		l.contradictions(opts.Contradictions)
	}
	slices.SortStableFunc(l.findings, func(a, b Finding) int {
		if c := severityRank(a.Severity) - severityRank(b.Severity); c != 0 {
			return c
		}
		if c := strings.Compare(a.Check, b.Check); c != 0 {
			return c
		}
		return strings.Compare(a.File, b.File)
	})
	return Report{Findings: l.findings}, nil
}

// linter holds one Lint's pass.
type linter struct {
	s        *scan
	r        *resolver
	findings []Finding
	// out maps each article read to the articles it links to (itself aside).
	out map[string]map[string]bool
	// in maps each article to the articles that link to it (itself aside).
	in map[string]map[string]bool
}

// add records a finding.
func (l *linter) add(check, severity, file, detail string) {
	l.findings = append(l.findings, Finding{Check: check, Severity: severity, File: file, Detail: detail})
}

// severityRank orders severities for the report.
func severityRank(s string) int {
	switch s {
	case SeverityError:
		return 0
	case SeverityWarning:
		return 1
	case SeveritySuggestion:
		return 2
	}
	return 3
}

// isSlug reports whether s is lowercase-hyphen: [a-z0-9]+(-[a-z0-9]+)*.
func isSlug(s string) bool {
	if s == "" || s[0] == '-' || s[len(s)-1] == '-' || strings.Contains(s, "--") {
		return false
	}
	for _, c := range []byte(s) {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// invalid reports unreadable articles and article directories, bad file
// names, and front matter that does not parse or lacks a required field.
func (l *linter) invalid() {
	for _, e := range l.s.dirErrs {
		l.add(CheckInvalidArticle, SeverityError, e.Path, e.Err.Error())
	}
	for _, a := range l.s.order {
		if a.readErr != nil {
			l.add(CheckInvalidArticle, SeverityError, a.file(), a.readErr.Error())
			continue
		}
		if name := path.Base(a.path); !isSlug(name) {
			l.add(CheckInvalidArticle, SeverityError, a.file(), fmt.Sprintf("file name %q is not a lowercase-hyphen slug", name))
		}
		if a.pageErr != nil {
			l.add(CheckInvalidArticle, SeverityError, a.file(), oneLine(a.pageErr.Error()))
			continue // its fields are not all read
		}
		f := a.page.Front
		var missing []string
		for _, m := range []struct {
			key string
			ok  bool
		}{
			{"title", f.Title != ""},
			{"sources", len(f.Sources) > 0},
			{"created", f.Created != ""},
			{"updated", f.Updated != ""},
			{"connects", len(f.Connects) > 0 || !strings.HasPrefix(a.path, "connections/")},
		} {
			if !m.ok {
				missing = append(missing, m.key)
			}
		}
		if len(missing) > 0 {
			l.add(CheckInvalidArticle, SeverityError, a.file(), "missing front matter: "+strings.Join(missing, ", "))
		}
	}
}

// oneLine joins the lines of s with "; ".
func oneLine(s string) string {
	return strings.Join(strings.FieldsFunc(s, func(r rune) bool { return r == '\n' || r == '\r' }), "; ")
}

// links reports broken links and records the links between articles.
func (l *linter) links() {
	l.out = map[string]map[string]bool{}
	l.in = map[string]map[string]bool{}
	for _, a := range l.s.order {
		if a.readErr != nil {
			continue
		}
		for _, link := range a.page.Links {
			res := l.r.resolve(a.path, link)
			if !res.ok {
				l.add(CheckBrokenLink, SeverityError, a.file(), brokenDetail(link, res))
				continue
			}
			if res.article == "" || res.article == a.path {
				continue
			}
			if l.out[a.path] == nil {
				l.out[a.path] = map[string]bool{}
			}
			l.out[a.path][res.article] = true
			if l.in[res.article] == nil {
				l.in[res.article] = map[string]bool{}
			}
			l.in[res.article][a.path] = true
		}
	}
	data, _, err := readCapped(filepath.Join(l.s.w, "index.md"), MaxFileSize)
	if errors.Is(err, errTooLarge) {
		l.add(CheckBrokenLink, SeverityError, "index.md", fmt.Sprintf("over %d MiB, not read; %s", MaxFileSize>>20, rebuild(l.s.w, "index.md")))
		return
	}
	if err != nil {
		return // no index, or none to read: nothing to check
	}
	idx, _ := ParsePage("index", data)
	for _, link := range idx.Links {
		if res := l.r.resolve("", link); !res.ok {
			l.add(CheckBrokenLink, SeverityError, "index.md", brokenDetail(link, res))
		}
	}
}

// brokenDetail describes a broken link.
func brokenDetail(link Link, res resolution) string {
	return fmt.Sprintf("line %d: [[%s]] does not resolve (%s)", link.Line, link.Target, res.why)
}

// orphans reports the articles no other article links to.
func (l *linter) orphans() {
	for _, a := range l.s.order {
		if a.readErr == nil && len(l.in[a.path]) == 0 {
			l.add(CheckOrphanPage, SeverityWarning, a.file(), "no other article links here")
		}
	}
}

// backlinks reports, and with fix adds, the links back that articles lack.
func (l *linter) backlinks(fix bool) {
	missing := map[string][]string{} // article → articles linking to it that it does not link to
	for _, a := range l.s.order {
		for _, b := range sortedKeys(l.out[a.path]) {
			if tb := l.s.articles[b]; tb.readErr == nil && !l.out[b][a.path] {
				missing[b] = append(missing[b], a.path)
			}
		}
	}
	for _, b := range l.s.order {
		from := missing[b.path]
		if len(from) == 0 {
			continue
		}
		slices.Sort(from)
		var fixErr error
		if fix {
			fixErr = l.addBacklinks(b, from)
		}
		for _, a := range from {
			detail := fmt.Sprintf("[[%s]] links here; no link back", a)
			switch {
			case fix && fixErr == nil:
				detail = fmt.Sprintf("fixed: added [[%s]] under ## Related ([[%s]] links here)", a, a)
			case fix:
				detail += " (not fixed: " + oneLine(fixErr.Error()) + ")"
			}
			l.add(CheckMissingBacklink, SeveritySuggestion, b.file(), detail)
		}
	}
}

// sortedKeys are m's keys in order.
func sortedKeys(m map[string]bool) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// addBacklinks adds links to targets under article b's Related section, if
// b is still as it was read.
func (l *linter) addBacklinks(b *article, targets []string) error {
	cur, _, err := readCapped(filepath.Join(l.s.w, filepath.FromSlash(b.file())), MaxFileSize)
	if err != nil {
		return err
	}
	if !bytes.Equal(cur, b.data) {
		return errors.New("changed while linting")
	}
	text, err := withRelated(string(b.data), targets)
	if err != nil {
		return err
	}
	return writePerm(l.s.w, b.file(), []byte(text), b.perm)
}

// withRelated returns text with "- [[t]]" for every target at the end of
// its "## Related" section, which it adds at the end if there is none. It
// refuses a text that ends inside a code fence, or where the links would not
// count as links.
func withRelated(text string, targets []string) (string, error) {
	nl := "\n"
	if strings.Contains(text, "\r\n") {
		nl = "\r\n"
	}
	var items strings.Builder
	for _, t := range targets {
		items.WriteString("- [[" + t + "]]" + nl)
	}
	lines := strings.SplitAfter(text, "\n")
	related, end := -1, len(lines)
	fence := ""
	for i, line := range lines {
		trimmed := strings.TrimSpace(line)
		switch {
		case fence != "":
			if closesFence(strings.TrimLeft(line, " \t"), fence) {
				fence = ""
			}
		case opensFence(strings.TrimLeft(line, " \t")) != "":
			fence = opensFence(strings.TrimLeft(line, " \t"))
		case trimmed == "## Related":
			related, end = i, len(lines)
		case related >= 0 && end == len(lines) && (strings.HasPrefix(trimmed, "# ") || strings.HasPrefix(trimmed, "## ")):
			end = i
		}
	}
	if fence != "" {
		return "", errors.New("ends inside a code fence")
	}
	var out string
	if related < 0 {
		out = strings.TrimRightFunc(text, unicode.IsSpace) + nl + nl + "## Related" + nl + nl + items.String()
	} else {
		at := end
		for at > related+1 && strings.TrimSpace(lines[at-1]) == "" {
			at--
		}
		head := strings.Join(lines[:at], "")
		if !strings.HasSuffix(head, "\n") {
			head += nl
		}
		if at == related+1 {
			head += nl
		}
		tail := strings.Join(lines[at:], "")
		if tail != "" && strings.TrimSpace(lines[at]) != "" {
			tail = nl + tail
		}
		out = head + items.String() + tail
	}
	found := map[string]bool{}
	for _, link := range Links(out) {
		found[link.Target] = true
	}
	for _, t := range targets {
		if !found[t] {
			return "", fmt.Errorf("[[%s]] would not be read as a link there", t)
		}
	}
	return out, nil
}

// sparse reports articles whose body has under SparseWords words.
func (l *linter) sparse() {
	for _, a := range l.s.order {
		if a.readErr != nil {
			continue
		}
		if n := countWords(a.page.Body); n < SparseWords {
			l.add(CheckSparseArticle, SeveritySuggestion, a.file(), fmt.Sprintf("%d words, under %d", n, SparseWords))
		}
	}
}

// countWords counts the runs of non-space characters in s.
func countWords(s string) int {
	n, in := 0, false
	for i := 0; i < len(s); {
		r, size := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(s[i:])
		}
		i += size
		space := unicode.IsSpace(r)
		if !space && !in {
			n++
		}
		in = !space
	}
	return n
}

// sources reports sources never compiled, and articles compiled from a
// source that has changed since.
func (l *linter) sources(state State, hashes map[string]string) {
	for _, name := range sortedKeys(keySet(hashes)) {
		if _, ok := state.Sources[name]; !ok {
			l.add(CheckOrphanSource, SeverityWarning, name, "never compiled")
		}
	}
	changed := map[string]bool{}
	for name, rec := range state.Sources {
		if h, ok := hashes[name]; ok && h != rec.Hash {
			changed[name] = true
		}
	}
	if len(changed) == 0 {
		return
	}
	stale := map[string]map[string]bool{} // article → changed sources
	mark := func(article, source string) {
		if _, ok := l.s.articles[article]; !ok || !changed[source] {
			return
		}
		if stale[article] == nil {
			stale[article] = map[string]bool{}
		}
		stale[article][source] = true
	}
	for name := range changed {
		for _, a := range state.Sources[name].Articles {
			mark(strings.TrimSuffix(a, ".md"), name)
		}
	}
	for _, a := range l.s.order {
		for _, src := range a.page.Front.Sources {
			if _, ok := hashes[src]; !ok {
				src += ".md" // "daily/2026-11-24" names "daily/2026-11-24.md"
			}
			mark(a.path, src)
		}
	}
	for _, a := range l.s.order {
		if srcs := stale[a.path]; len(srcs) > 0 {
			names := sortedKeys(srcs)
			l.add(CheckStaleArticle, SeverityWarning, a.file(), "compiled from "+strings.Join(names, ", ")+", changed since")
		}
	}
}

// keySet is the set of m's keys.
func keySet(m map[string]string) map[string]bool {
	s := make(map[string]bool, len(m))
	for k := range m {
		s[k] = true
	}
	return s
}

// contradictions runs the model's check over the articles read.
func (l *linter) contradictions(check func([]Page) ([]Finding, error)) {
	var pages []Page
	for _, a := range l.s.order {
		if a.readErr == nil {
			pages = append(pages, a.page)
		}
	}
	found, err := check(pages)
	if err != nil {
		l.add(CheckContradiction, SeverityError, "", "check failed: "+oneLine(err.Error()))
		return
	}
	for _, f := range found {
		l.add(CheckContradiction, SeverityWarning, f.File, f.Detail)
	}
}

// Errors counts the findings of severity error.
func (r Report) Errors() int {
	n := 0
	for _, f := range r.Findings {
		if f.Severity == SeverityError {
			n++
		}
	}
	return n
}

// Markdown renders the report: totals, then "## Errors", "## Warnings" and
// "## Suggestions", each finding a line "- `file`: detail".
func (r Report) Markdown() string {
	groups := map[string][]Finding{}
	for _, f := range r.Findings {
		groups[f.Severity] = append(groups[f.Severity], f)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# Wiki lint\n\n%s: %s, %s, %s.\n", count(len(r.Findings), "finding"),
		count(len(groups[SeverityError]), "error"), count(len(groups[SeverityWarning]), "warning"),
		count(len(groups[SeveritySuggestion]), "suggestion"))
	for _, sec := range []struct{ title, severity string }{
		{"Errors", SeverityError}, {"Warnings", SeverityWarning}, {"Suggestions", SeveritySuggestion},
	} {
		fmt.Fprintf(&b, "\n## %s\n\n", sec.title)
		if len(groups[sec.severity]) == 0 {
			b.WriteString("None.\n")
		}
		for _, f := range groups[sec.severity] {
			detail := oneLine(f.Detail)
			if f.File == "" {
				fmt.Fprintf(&b, "- %s\n", detail)
				continue
			}
			fmt.Fprintf(&b, "- %s: %s\n", untrusted.CodeSpan(f.File), detail)
		}
	}
	return b.String()
}

// count is n and the noun, plural unless n is 1.
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

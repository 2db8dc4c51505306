package sanitize

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
)

func TestFindAnchors(t *testing.T) {
	tests := []struct {
		name    string
		content string
		files   []string // the entry's files field
		want    Anchors
		// notSymbols must not be among the symbols (when want.Symbols is
		// not checked exactly).
		notSymbols []string
	}{
		{
			name:    "case kept",
			content: "The modal lives in src/Components/Foo.tsx and is lazy loaded.",
			want:    Anchors{Files: []string{"src/Components/Foo.tsx"}},
		},
		{
			name:    "bare names go to Names",
			content: "install.sh and Makefile.mk must agree with go.mod on the toolchain",
			want:    Anchors{Names: []string{"install.sh", "Makefile.mk", "go.mod"}},
		},
		{
			name:    "two files joined by a slash are not a path",
			content: "Refactored install.sh/uninstall.sh to a router pattern",
			want:    Anchors{},
		},
		{
			name:    "urls, absolute and home paths ignored",
			content: "See https://example.com/docs/setup.md and /etc/nginx/nginx.conf and ~/.config/app/config.json and $HOME/x/y.json",
			want:    Anchors{},
		},
		{
			name:    "relative prefix and line number cleaned",
			content: "The bug is at ./internal/auth/redirect.go:42, called from cmd/app/main.go.",
			want:    Anchors{Files: []string{"internal/auth/redirect.go", "cmd/app/main.go"}},
		},
		{
			name:    "paths leaving the tree ignored",
			content: "Do not read ../secrets/key.pem or ../../x/y.go",
			want:    Anchors{},
		},
		{
			name:    "files field kept even without a source extension",
			content: "The linter config is picky about imports",
			files:   []string{"tools/lint/config", "/abs/path.go", "./web/app.ts"},
			want:    Anchors{Files: []string{"tools/lint/config", "web/app.ts"}},
		},
		{
			name:    "non-source extension in content ignored",
			content: "Build output lands in dist/bundle.xyz and logs in var/run.log2",
			want:    Anchors{},
		},
		{
			name:    "backticked symbol",
			content: "Call `refreshToken` before the request",
			want:    Anchors{Symbols: []string{"refreshToken"}},
		},
		{
			name:    "backticked call keeps the name",
			content: "Use `parse_config(path)` for every file",
			want:    Anchors{Symbols: []string{"parse_config"}},
		},
		{
			name:    "camelCase in prose",
			content: "The buildQuery helper escapes every value",
			want:    Anchors{Symbols: []string{"buildQuery"}},
		},
		{
			name:    "snake_case in prose",
			content: "Check stop_hook_active before blocking the stop",
			want:    Anchors{Symbols: []string{"stop_hook_active"}},
		},
		{
			name:    "dotted symbol",
			content: "Client.Do does not follow redirects for POST",
			want:    Anchors{Symbols: []string{"Client.Do"}},
		},
		{
			name:    "call form",
			content: "Investigation showed die() calls happen before raw mode",
			want:    Anchors{Symbols: []string{"die"}},
		},
		{
			name:    "prose words and brand names are not symbols",
			content: "On macOS and iPhone the Settings app hides this. JavaScript, GitHub and YouTube are names, e.g. not code.",
			want:    Anchors{},
		},
		{
			name:    "shell in backticks is not a symbol",
			content: "Use `a && b` to chain and `x` is too short",
			want:    Anchors{},
		},
		{
			name:    "file name in backticks is a name, not a symbol",
			content: "Edit `config.yaml` by hand",
			want:    Anchors{Names: []string{"config.yaml"}},
		},
		{
			name:    "common words skipped",
			content: "`print()` and `len()` and `todo` are not anchors",
			want:    Anchors{},
		},
		{
			// The stem of a file name is no symbol: before the fix,
			// knowledge_db and apiClient were symbols that no file
			// defines, and the entry was flagged needs_review.
			name:    "file stems are not symbols",
			content: "See knowledge_db.py and apiClient.ts, then check stop_hook_active.",
			want: Anchors{
				Names:   []string{"knowledge_db.py", "apiClient.ts"},
				Symbols: []string{"stop_hook_active"},
			},
		},
		{
			name:    "mixed",
			content: "In pkg/store/cache.go, `evictOldest` runs under mu; see cache_test.go and Store.Get",
			want: Anchors{
				Files:   []string{"pkg/store/cache.go"},
				Names:   []string{"cache_test.go"},
				Symbols: []string{"evictOldest", "Store.Get"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := FindAnchors(knowledge.Entry{Content: tt.content, Files: tt.files})
			if !sameStrings(got.Files, tt.want.Files) || !sameStrings(got.Names, tt.want.Names) || !sameStrings(got.Symbols, tt.want.Symbols) {
				t.Errorf("FindAnchors(%q)\n got  %#v\n want %#v", tt.content, got, tt.want)
			}
			if got.Empty() != (len(tt.want.Files)+len(tt.want.Names)+len(tt.want.Symbols) == 0) {
				t.Errorf("Empty() = %v for %#v", got.Empty(), got)
			}
		})
	}
}

func TestFindAnchorsCaps(t *testing.T) {
	content := ""
	for _, p := range []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j"} {
		content += " dir/" + p + ".go " + p + "x.go `" + p + "Func_name`"
	}
	a := FindAnchors(knowledge.Entry{Content: content})
	if len(a.Files) != maxFileAnchors || len(a.Names) != maxFileAnchors || len(a.Symbols) != maxSymbolAnchors {
		t.Errorf("caps: %d files, %d names, %d symbols; want %d, %d, %d",
			len(a.Files), len(a.Names), len(a.Symbols), maxFileAnchors, maxFileAnchors, maxSymbolAnchors)
	}
}

func sameStrings(a, b []string) bool {
	if len(a) == 0 && len(b) == 0 {
		return true
	}
	return reflect.DeepEqual(a, b)
}

func writeTree(t testing.TB, root string, files map[string]string) []string {
	t.Helper()
	var names []string
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// SymbolsIn judges one file's content by the symbol search's rule.
func TestSymbolsIn(t *testing.T) {
	data := []byte("package store\n\ntype Store struct{}\nfunc (Store) Get() {}\n// x_buildQuery\n")
	tests := []struct {
		symbols []string
		found   []string
	}{
		{[]string{"Store"}, []string{"Store"}},
		{[]string{"Store.Get"}, []string{"Store.Get"}},
		{[]string{"Client.Get"}, nil},
		{[]string{"buildQuery"}, nil}, // whole identifiers only
		{[]string{"Get", "nope", "Get"}, []string{"Get"}},
		{nil, nil},
	}
	for _, tt := range tests {
		found := SymbolsIn(data, tt.symbols)
		var got []string
		for s := range found {
			got = append(got, s)
		}
		slices.Sort(got)
		if !sameStrings(got, tt.found) {
			t.Errorf("SymbolsIn(%v) = %v, want %v", tt.symbols, got, tt.found)
		}
	}
}

func TestSymbolSearch(t *testing.T) {
	root := t.TempDir()
	files := writeTree(t, root, map[string]string{
		"client.go":       "package http\n\ntype Client struct{}\n\nfunc buildQuery() {}\n",
		"do.go":           "package http\n\nfunc Do() {}\n",
		"both.go":         "package store\n\ntype Store struct{}\nfunc (Store) Get() {}\n",
		"bin/blob.bin":    "binarySymbol\x00\x01\x02 binarySymbol",
		"hooks/stop.sh":   "if [ \"$stop_hook_active\" = true ]; then exit 0; fi\n",
		"docs/partial.md": "buildQueryX is not buildQuery's prefix match? x_buildQuery neither",
	})
	files = append(files, "gone/deleted.go") // tracked but missing on disk
	future := time.Now().Add(time.Minute)

	tests := []struct {
		name    string
		symbols []string
		found   []string
	}{
		{"plain found", []string{"buildQuery"}, []string{"buildQuery"}},
		{"snake found", []string{"stop_hook_active"}, []string{"stop_hook_active"}},
		{"missing", []string{"noSuchThing"}, nil},
		{"dotted needs both parts in one file", []string{"Client.Do"}, nil},
		{"dotted with both parts in one file", []string{"Store.Get"}, []string{"Store.Get"}},
		{"binary file skipped", []string{"binarySymbol"}, nil},
		{"whole identifiers only", []string{"uildQuery", "buildQue"}, nil},
		{"duplicates and mix", []string{"buildQuery", "buildQuery", "nope", "Store.Get"}, []string{"buildQuery", "Store.Get"}},
		{"nothing to find", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			found, complete := symbolSearch(root, slices.Clone(files), tt.symbols, future)
			if !complete {
				t.Error("complete = false before the deadline")
			}
			var got []string
			for _, s := range tt.symbols {
				if found[s] && !slices.Contains(got, s) {
					got = append(got, s)
				}
			}
			if len(found) != len(got) {
				t.Errorf("found holds symbols not asked for: %v", found)
			}
			if !sameStrings(got, tt.found) {
				t.Errorf("found %v, want %v", got, tt.found)
			}
		})
	}

	t.Run("deadline passed", func(t *testing.T) {
		found, complete := symbolSearch(root, slices.Clone(files), []string{"buildQuery"}, time.Now().Add(-time.Second))
		if complete {
			t.Error("complete = true after the deadline")
		}
		if found["buildQuery"] {
			t.Error("found a symbol without reading")
		}
	})
	t.Run("deadline passed but nothing to find", func(t *testing.T) {
		if _, complete := symbolSearch(root, files, nil, time.Now().Add(-time.Second)); !complete {
			t.Error("no symbols: the search is trivially complete")
		}
	})
}

func TestForEachIdent(t *testing.T) {
	var got []string
	forEachIdent([]byte("a1 _b 9c d.e(f_g)héllo x"), func(id []byte) { got = append(got, string(id)) })
	want := []string{"a1", "_b", "c", "d", "e", "f_g", "h", "llo", "x"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("identifiers %q, want %q", got, want)
	}
}

func TestRepoViewResolve(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{"src/Components/Foo.tsx": "x", "internal/auth/redirect.go": "y"})
	tracked := map[string]string{"src/Components/Foo.tsx": "h1", "internal/auth/redirect.go": "h2"}
	git := newRepoView(root, tracked, true)
	disk := newRepoView(root, map[string]string{}, false)
	tests := []struct {
		path string
		want string // "" = not found
	}{
		{"src/Components/Foo.tsx", "src/Components/Foo.tsx"},
		{"Components/Foo.tsx", "src/Components/Foo.tsx"},
		{"Foo.tsx", "src/Components/Foo.tsx"},
		{"auth/redirect.go", "internal/auth/redirect.go"},
		{"src/components/foo.tsx", ""},
		{"src/Components/foo.tsx", ""},
		{"uth/redirect.go", ""},
		{"other/redirect.go", ""},
	}
	for _, tt := range tests {
		got, ok := git.resolve(tt.path)
		if ok != (tt.want != "") || got != tt.want {
			t.Errorf("git resolve(%q) = %q, %v; want %q", tt.path, got, ok, tt.want)
		}
		// Outside git, only the exact path on disk counts, with its case.
		_, ok = disk.resolve(tt.path)
		if wantDisk := tt.want == tt.path; ok != wantDisk {
			t.Errorf("disk resolve(%q) = %v, want %v", tt.path, ok, wantDisk)
		}
	}
}

// Identifiers adds to the working set's symbols the CamelCase names with
// a capital inside; a capitalised word of prose is none.
func TestIdentifiers(t *testing.T) {
	for _, c := range []struct {
		content string
		want    []string
	}{
		{"GetWithRetry backs off linearly", []string{"GetWithRetry"}},
		{"Retry with care. Backoff matters; Go is fine.", nil},
		{"call `buildQuery` before HTTPClient.Do and NewPool", []string{"buildQuery", "HTTPClient.Do", "NewPool"}},
		{"see RetryPolicy.go for it", nil},
		{"stop_hook_active and GetWithRetry and GetWithRetry", []string{"stop_hook_active", "GetWithRetry"}},
	} {
		got := Identifiers(knowledge.Entry{Content: c.content})
		if !slices.Equal(got, c.want) {
			t.Errorf("Identifiers(%q) = %q, want %q", c.content, got, c.want)
		}
	}
}

package prcheck

import (
	"reflect"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/gitx"
	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
)

func mod(p string) gitx.FileChange { return gitx.FileChange{Kind: gitx.ChangeModified, From: p, To: p} }
func del(p string) gitx.FileChange { return gitx.FileChange{Kind: gitx.ChangeDeleted, From: p} }
func add(p string) gitx.FileChange { return gitx.FileChange{Kind: gitx.ChangeAdded, To: p} }
func ren(a, b string) gitx.FileChange {
	return gitx.FileChange{Kind: gitx.ChangeRenamed, From: a, To: b}
}

// The staleness rules, one case each: which entries a change touches,
// and why each may be stale.
func TestCheckRules(t *testing.T) {
	before := map[string]string{
		"pay/client.go":   "package pay\nfunc buildQuery() {}\ntype Client struct{}\nfunc (Client) Do() {}\n",
		"pay/util.go":     "package pay\nfunc helper() {}\n",
		"db/a.sql":        "select 1",
		"client/retry.go": "package client\n// Retry is how we retry.\nfunc GetWithRetry() {}\nfunc HTTPDo() {}\n",
	}
	after := map[string]string{
		"pay/client.go":      "package pay\nfunc build() {}\ntype Client struct{}\nfunc (Client) Do() {}\n",
		"pay/util.go":        "package pay\nfunc helper() {}\nfunc buildQuery() {}\n",
		"payments/client.go": "package pay\nfunc buildQuery() {}\n",
		"client/retry.go":    "package client\n// Backoff is linear.\nfunc Get() {}\nfunc HTTPDo() {}\n",
	}
	exists := map[string]bool{"pay": true, "payments": true, "src": true}
	read := func(m map[string]string) func(string) ([]byte, bool) {
		return func(p string) ([]byte, bool) {
			s, ok := m[p]
			return []byte(s), ok
		}
	}
	tests := []struct {
		name    string
		prefix  string
		changes []gitx.FileChange
		entry   knowledge.Entry
		files   []string // nil: not touched
		reasons []string
	}{
		{name: "untouched file", changes: []gitx.FileChange{mod("other.go")},
			entry: knowledge.Entry{Files: []string{"pay/client.go"}}},
		{name: "no files field", changes: []gitx.FileChange{mod("pay/client.go")},
			entry: knowledge.Entry{Content: "pay/client.go retries"}},
		{name: "modified file, nothing gone", changes: []gitx.FileChange{mod("pay/util.go")},
			entry: knowledge.Entry{Files: []string{"pay/util.go"}, Content: "call `helper` first"},
			files: []string{"pay/util.go"}},
		{name: "deleted file", changes: []gitx.FileChange{del("db/a.sql")},
			entry: knowledge.Entry{Files: []string{"db/a.sql"}},
			files: []string{"db/a.sql"}, reasons: []string{"db/a.sql was deleted"}},
		{name: "renamed file", changes: []gitx.FileChange{ren("pay/client.go", "payments/client.go")},
			entry: knowledge.Entry{Files: []string{"pay/client.go"}},
			files: []string{"pay/client.go -> payments/client.go"}, reasons: []string{"pay/client.go was renamed to payments/client.go"}},
		{name: "a file renamed into an anchored directory", changes: []gitx.FileChange{ren("pay/client.go", "payments/client.go")},
			entry: knowledge.Entry{Files: []string{"payments"}},
			files: []string{"pay/client.go -> payments/client.go"}},
		{name: "directory anchors what is under it, still there", changes: []gitx.FileChange{mod("pay/util.go"), del("pay/old.go")},
			entry: knowledge.Entry{Files: []string{"pay/"}},
			files: []string{"pay/util.go", "pay/old.go"}},
		{name: "directory gone", changes: []gitx.FileChange{del("db/a.sql"), ren("db/b.sql", "sql/b.sql")},
			entry: knowledge.Entry{Files: []string{"db"}},
			files: []string{"db/a.sql", "db/b.sql -> sql/b.sql"}, reasons: []string{"db/ is gone (its files were deleted or moved)"}},
		{name: "a directory anchor is not a name prefix", changes: []gitx.FileChange{del("payments/x.go")},
			entry: knowledge.Entry{Files: []string{"pay"}}},
		{name: "symbol gone from the anchored file", changes: []gitx.FileChange{mod("pay/client.go")},
			entry: knowledge.Entry{Files: []string{"pay/client.go"}, Content: "`buildQuery` must escape; Client.Do retries"},
			files: []string{"pay/client.go"}, reasons: []string{"symbol buildQuery is gone from pay/client.go"}},
		{name: "symbol moved to another anchored file", changes: []gitx.FileChange{mod("pay/client.go"), mod("pay/util.go")},
			entry: knowledge.Entry{Files: []string{"pay"}, Content: "`buildQuery` must escape"},
			files: []string{"pay/client.go", "pay/util.go"}},
		{name: "symbol follows a rename", changes: []gitx.FileChange{ren("pay/client.go", "payments/client.go")},
			entry: knowledge.Entry{Files: []string{"payments"}, Content: "`buildQuery` must escape"},
			files: []string{"pay/client.go -> payments/client.go"}},
		{name: "symbol the file never held says nothing", changes: []gitx.FileChange{mod("pay/client.go")},
			entry: knowledge.Entry{Files: []string{"pay/client.go"}, Content: "`elsewhereFunc` is slow"},
			files: []string{"pay/client.go"}},
		{name: "project in a subdirectory", prefix: "svc", changes: []gitx.FileChange{del("svc/db/a.sql"), del("db/a.sql")},
			entry: knowledge.Entry{Files: []string{"./db/a.sql"}},
			files: []string{"svc/db/a.sql"}, reasons: []string{"svc/db/a.sql was deleted"}},
		{name: "a path leaving the project anchors nothing", prefix: "svc", changes: []gitx.FileChange{del("db/a.sql")},
			entry: knowledge.Entry{Files: []string{"../db/a.sql", "/db/a.sql"}}},
		{name: "a renamed CamelCase function", changes: []gitx.FileChange{mod("client/retry.go")},
			entry: knowledge.Entry{Files: []string{"client/retry.go"}, Content: "GetWithRetry backs off linearly; HTTPDo is fine"},
			files: []string{"client/retry.go"}, reasons: []string{"symbol GetWithRetry is gone from client/retry.go"}},
		{name: "a capitalised prose word is no symbol", changes: []gitx.FileChange{mod("client/retry.go")},
			entry: knowledge.Entry{Files: []string{"client/retry.go"}, Content: "Retry with care. Backoff matters."},
			files: []string{"client/retry.go"}},
		{name: "an anchor written ./ matches", changes: []gitx.FileChange{del("db/a.sql")},
			entry: knowledge.Entry{Files: []string{"./db//a.sql"}},
			files: []string{"db/a.sql"}, reasons: []string{"db/a.sql was deleted"}},
		{name: "an added file under a directory anchor", changes: []gitx.FileChange{add("src/new.go")},
			entry: knowledge.Entry{Files: []string{"src"}},
			files: []string{"src/new.go"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.entry.Key = "k"
			got := Check(Input{
				Prefix: tt.prefix, Changes: tt.changes, Entries: []knowledge.Entry{tt.entry},
				Before: read(before), After: read(after),
				Exists: func(p string) bool { return exists[p] || after[p] != "" },
			})
			if tt.files == nil {
				if len(got) != 0 {
					t.Fatalf("touched: %+v", got)
				}
				return
			}
			if len(got) != 1 {
				t.Fatalf("got %d findings, want 1", len(got))
			}
			if !reflect.DeepEqual(got[0].Files, tt.files) {
				t.Errorf("files %q, want %q", got[0].Files, tt.files)
			}
			if !reflect.DeepEqual(got[0].Reasons, tt.reasons) {
				t.Errorf("reasons %q, want %q", got[0].Reasons, tt.reasons)
			}
			if got[0].Stale() != (len(tt.reasons) > 0) {
				t.Error("Stale disagrees with the reasons")
			}
		})
	}
}

// Stale findings come first, each group by key.
func TestCheckOrder(t *testing.T) {
	got := Check(Input{
		Changes: []gitx.FileChange{mod("a.go"), del("b.go")},
		Entries: []knowledge.Entry{
			{Key: "z-fresh", Files: []string{"a.go"}},
			{Key: "y-stale", Files: []string{"b.go"}},
			{Key: "a-fresh", Files: []string{"a.go"}},
			{Key: "x-untouched", Files: []string{"c.go"}},
		},
	})
	var keys []string
	for _, f := range got {
		keys = append(keys, f.Entry.Key)
	}
	if want := []string{"y-stale", "a-fresh", "z-fresh"}; !reflect.DeepEqual(keys, want) {
		t.Errorf("order %v, want %v", keys, want)
	}
}

package audit

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
)

func TestReadVerdictsMissing(t *testing.T) {
	v, sum, err := ReadVerdicts(knowledge.Open(t.TempDir()))
	if v != nil || sum != "" || err != nil {
		t.Errorf("missing audit: %v %q %v", v, sum, err)
	}
}

// TestReadVerdicts: every line with a key and an effect is a verdict;
// lines without either, and lines that are not JSON, are passed over; the
// summary names the log.
func TestReadVerdicts(t *testing.T) {
	dir := t.TempDir()
	s := knowledge.Open(dir)
	data := `{"action":"skip_invalid","source":"log","line":3,"reason":"invalid-json"}
{"action":"drop_retracted","key":"fact-a","ts":5,"type":"fact","effect":"removed","reason":"retracted: wrong"}
not json at all
{"action":"anchor","key":"fact-b","ts":7,"type":"fact","result":"ok","reason":"no named file or symbol is missing"}
{"action":"anchor","key":"fact-c","ts":9,"type":"fact","effect":"flagged","result":"needs_review","reason":"needs review: x.go"}
{"action":"summary","summary":{"log_sha256":"abc","lines":4}}
`
	if err := os.MkdirAll(filepath.Dir(Path(s.CachePath())), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(Path(s.CachePath()), []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	v, sum, err := ReadVerdicts(s)
	want := []Verdict{
		{Key: "fact-a", TS: 5, Effect: EffectRemoved, Note: "retracted: wrong"},
		{Key: "fact-c", TS: 9, Effect: EffectFlagged, Note: "needs review: x.go"},
	}
	if err != nil || sum != "abc" || !reflect.DeepEqual(v, want) {
		t.Errorf("ReadVerdicts = %+v, %q, %v; want %+v, abc", v, sum, err, want)
	}
}

package audit

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/fsx"
	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
)

func TestReadVerdictsMissing(t *testing.T) {
	v, sum, err := ReadVerdicts(knowledge.Open(t.TempDir()))
	if v != nil || sum != (From{}) || err != nil {
		t.Errorf("missing audit: %v %+v %v", v, sum, err)
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
{"action":"summary","summary":{"log_sha256":"abc","log_id":{"size":12,"mtime":3,"ctime":4,"ino":5},"lines":4}}
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
	from := From{"abc", fsx.FileID{Size: 12, Mtime: 3, Ctime: 4, Ino: 5}}
	if err != nil || sum != from || !reflect.DeepEqual(v, want) {
		t.Errorf("ReadVerdicts = %+v, %+v, %v; want %+v, %+v", v, sum, err, want, from)
	}
}

func writeAudit(t testing.TB, s *knowledge.Store, data []byte) {
	t.Helper()
	if err := os.MkdirAll(s.CachePath(), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(Path(s.CachePath()), data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// readAll is what ReadVerdicts and ReadSummary return, the slow way:
// every line of the whole file decoded.
func readAll(data []byte) (verdicts []Verdict, logSum From, sum Summary, sumErr bool) {
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for sc.Scan() {
		var a Action
		if json.Unmarshal(sc.Bytes(), &a) != nil {
			continue
		}
		if a.Summary != nil {
			logSum = From{a.Summary.LogSHA256, a.Summary.LogID}
		}
		if a.Key != "" && a.Effect != "" {
			verdicts = append(verdicts, Verdict{Key: a.Key, TS: a.TS, Effect: a.Effect, Note: a.Reason})
		}
	}
	trimmed := bytes.TrimSpace(data)
	var a Action
	if err := json.Unmarshal(trimmed[bytes.LastIndexByte(trimmed, '\n')+1:], &a); err != nil || a.Summary == nil {
		return verdicts, logSum, Summary{}, true
	}
	return verdicts, logSum, *a.Summary, false
}

// ReadSummary reads the end of the audit; a last line longer than what
// it reads, or trailing blanks, send it to the whole file.
func TestReadSummaryFromTheEnd(t *testing.T) {
	s := knowledge.Open(t.TempDir())
	if _, err := ReadSummary(s); err == nil {
		t.Error("no audit: no error")
	}
	ok := `{"action":"anchor","key":"fact-b","ts":7,"type":"fact","result":"ok","reason":"no named file or symbol is missing"}` + "\n"
	summary := `{"action":"summary","summary":{"log_sha256":"abc","lines":4,"active":3}}` + "\n"
	long := `{"action":"anchor","key":"fact-x","reason":"` + strings.Repeat("x", 2*tailBytes) + `"}` + "\n"
	for name, data := range map[string]string{
		"big audit":               strings.Repeat(ok, 2*tailBytes/len(ok)) + summary,
		"trailing blanks":         strings.Repeat(ok, 10) + summary + strings.Repeat(" \n", tailBytes),
		"summary alone":           summary,
		"summary then a long one": summary + long,
		"long then the summary":   long + summary,
		"no summary":              strings.Repeat(ok, 3),
		"empty":                   "",
	} {
		writeAudit(t, s, []byte(data))
		_, _, want, wantErr := readAll([]byte(data))
		got, err := ReadSummary(s)
		if (err != nil) != wantErr || got != want {
			t.Errorf("%s: %+v, %v; want %+v (error %v)", name, got, err, want, wantErr)
		}
	}
}

// FuzzReadAudit: what ReadVerdicts and ReadSummary read of any audit is
// what decoding every line of it gives.
func FuzzReadAudit(f *testing.F) {
	for _, s := range []string{
		"",
		`{"action":"drop_retracted","key":"fact-a","ts":5,"effect":"removed","reason":"r"}` + "\n" + `{"action":"summary","summary":{"log_sha256":"abc"}}`,
		`{"action":"x","key":"k","EFFECT":"removed"}` + "\n",
		`{"action":"x","key":"k","\u0065ffect":"flagged"}` + "\n",
		`{"action":"x","Summary":{"log_sha256":"s"}}` + "\n" + `{"ſummary":{"log_sha256":"t"}}`,
		"not json\n{}\n[]\n",
	} {
		f.Add([]byte(s))
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		s := knowledge.Open(dir)
		writeAudit(t, s, data)
		verdicts, logSum, sum, sumErr := readAll(data)
		gotV, gotSum, err := ReadVerdicts(s)
		if err != nil || gotSum != logSum || !reflect.DeepEqual(gotV, verdicts) {
			t.Errorf("ReadVerdicts = %+v, %+v, %v; want %+v, %+v", gotV, gotSum, err, verdicts, logSum)
		}
		got, err := ReadSummary(s)
		if (err != nil) != sumErr || got != sum {
			t.Errorf("ReadSummary = %+v, %v; want %+v (error %v)", got, err, sum, sumErr)
		}
	})
}

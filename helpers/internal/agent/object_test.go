package agent

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

func TestObject(t *testing.T) {
	o, err := ParseObject([]byte(`{"b": 1, "a": [true, null], "b": {"x": "<&>"}, "c": "é"}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := string(o.Marshal()); got != `{"b":1,"a":[true, null],"b":{"x": "<&>"},"c":"é"}` {
		t.Errorf("Marshal = %s", got)
	}
	if v, ok := o.Get("b"); !ok || string(v) != `{"x": "<&>"}` || o.Find("b") != 2 || o.Find("z") != -1 {
		t.Errorf("Get(b) = %s %v, Find = %d", v, ok, o.Find("b"))
	}
	if got := string(o.Unique().Marshal()); got != `{"b":{"x": "<&>"},"a":[true, null],"c":"é"}` {
		t.Errorf("Unique = %s", got)
	}
	o = o.Set("c", json.RawMessage(`2`)).Set("<k>", json.RawMessage(`3`)).Delete("b")
	if got := string(o.Marshal()); got != `{"a":[true, null],"c":2,"<k>":3}` {
		t.Errorf("after Set and Delete: %s", got)
	}
	for _, bad := range []string{``, `[]`, `{"a":1} x`, `{1:2}`, `{"a"}`, `"s"`} {
		if _, err := ParseObject([]byte(bad)); err == nil {
			t.Errorf("ParseObject(%q) took it", bad)
		}
	}
}

// An object read and written back is the same JSON value, and its unique
// form reads as encoding/json reads the text.
func FuzzObject(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":1,"a":2}`, `{"x":{"y":[1,"<"]},"z":null}`, `{"é":"\u00e9"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		o, err := ParseObject(data)
		if err != nil {
			return
		}
		var want, got, uniq map[string]any
		if err := json.Unmarshal(data, &want); err != nil {
			t.Fatalf("took %q, which encoding/json refuses: %v", data, err)
		}
		out := o.Marshal()
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("Marshal = %q: %v", out, err)
		}
		if err := json.Unmarshal(o.Unique().Marshal(), &uniq); err != nil || !reflect.DeepEqual(got, want) || !reflect.DeepEqual(uniq, want) {
			t.Fatalf("%q read back as %v and %v, want %v", data, got, uniq, want)
		}
		if back, err := ParseObject(out); err != nil || !bytes.Equal(back.Marshal(), out) {
			t.Fatalf("Marshal is not stable: %q then %q (%v)", out, back.Marshal(), err)
		}
	})
}

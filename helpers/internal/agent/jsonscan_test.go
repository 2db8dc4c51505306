package agent_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/agent"
)

func TestEachField(t *testing.T) {
	data := []byte(` { "a" : "x\"}" , "b":{"c":[1,{"d":"]"}]}, "n": -1.5e3, "t":true, "z":null, "s":"\u00e9\n" } `)
	got := map[string]string{}
	if !agent.EachField(data, func(k, v []byte) bool { got[string(k)] = string(v); return true }) {
		t.Fatal("not walked")
	}
	want := map[string]string{"a": `"x\"}"`, "b": `{"c":[1,{"d":"]"}]}`, "n": "-1.5e3", "t": "true", "z": "null", "s": `"\u00e9\n"`}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
	if s, ok := agent.JSONString([]byte(got["s"])); !ok || s != "é\n" {
		t.Errorf("JSONString = %q, %v", s, ok)
	}
	if agent.JSONInt([]byte(got["n"])) != -1500 || !agent.JSONTrue([]byte(got["t"])) {
		t.Error("JSONInt or JSONTrue")
	}
	var elems []string
	agent.EachElement([]byte(`[ "a,b" , [1,2], {} ]`), func(v []byte) bool { elems = append(elems, string(v)); return true })
	if len(elems) != 3 || elems[0] != `"a,b"` || elems[1] != "[1,2]" || elems[2] != "{}" {
		t.Errorf("elements %q", elems)
	}
	for _, bad := range []string{``, `[]`, `{"a"}`, `{"a":"b`, `{"a":1,}`, `{"a":1 "b":2}`, `{"a\\":1`} {
		if agent.EachField([]byte(bad), func(k, v []byte) bool { return true }) {
			t.Errorf("EachField(%q) walked", bad)
		}
	}
}

// On any valid JSON object, EachField sees the keys and raw values
// encoding/json sees (the last of a repeated key), and JSONString the same
// strings.
func FuzzEachField(f *testing.F) {
	f.Add([]byte(`{"type":"assistant","message":{"content":[{"type":"text","text":"a\"b\\"}],"usage":{"input_tokens":3}},"x":[1,2,{"y":null}]}`))
	f.Add([]byte(`{"a":"\ud83d\ude00","b":"\\\"","c":-0.5e-3}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var want map[string]json.RawMessage
		if !json.Valid(data) || json.Unmarshal(data, &want) != nil || want == nil || bytes.Contains(data, []byte(`\`)) && !bytes.Contains(data, []byte(`:`)) {
			agent.EachField(data, func(k, v []byte) bool { agent.JSONString(v); return true }) // no panic
			return
		}
		got := map[string][]byte{}
		if !agent.EachField(data, func(k, v []byte) bool { got[string(k)] = v; return true }) {
			t.Fatalf("valid object not walked: %q", data)
		}
		for k, v := range want {
			if bytes.IndexByte([]byte(k), '\\') >= 0 || !json.Valid([]byte(`"`+k+`"`)) {
				continue
			}
			g, ok := got[k]
			if !ok {
				// The key was written with an escape: passed as written.
				continue
			}
			if !bytes.Equal(g, v) {
				t.Fatalf("%q: %q, encoding/json %q", k, g, v)
			}
			var ws string
			if len(v) > 0 && v[0] == '"' && json.Unmarshal(v, &ws) == nil {
				if gs, ok := agent.JSONString(g); !ok || gs != ws {
					t.Fatalf("JSONString(%q) = %q, encoding/json %q", g, gs, ws)
				}
			}
		}
	})
}

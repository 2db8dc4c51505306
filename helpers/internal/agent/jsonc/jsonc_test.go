package jsonc_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/agent/jsonc"
)

func TestParse(t *testing.T) {
	doc, err := jsonc.Parse([]byte(`// c
{ /* a */ "a" /* b */ : [1, "x//y", {"b": null}] , "a": "last", "s": "/* not a comment */" } // end`))
	if err != nil {
		t.Fatal(err)
	}
	r := doc.Root()
	if r.Get("a").Str() != "last" || r.Get("s").Str() != "/* not a comment */" || r.Len() != 3 || r.Index(0).Len() != 3 || r.Index(0).Index(2).Get("b").Kind() != 'n' {
		t.Errorf("parsed %s", doc.Bytes())
	}
	if r.Get("nope").Kind() != 0 || r.Get("a").Get("x").Kind() != 0 {
		t.Error("a missing value is not the zero Node")
	}
	for _, bad := range []string{
		strings.Repeat("[", jsonc.MaxDepth+2) + strings.Repeat("]", jsonc.MaxDepth+2),
		`[1,]`, `{"a": 1,}`, `{"a": [1, 2,] }`, `{"a" 1}`, "/* open", "",
	} {
		if _, err := jsonc.Parse([]byte(bad)); !errors.Is(err, jsonc.ErrSyntax) {
			t.Errorf("Parse(%.40q) = %v, want ErrSyntax", bad, err)
		}
	}
}

// Items added are indented as their neighbours, or one step in from the
// line of an empty container; removing them gives back the same text.
func TestEdits(t *testing.T) {
	for _, tc := range []struct {
		name, in, key, want string
	}{
		{"tabs", "{\n\t\"a\": 1\n}\n", "b", "{\n\t\"a\": 1,\n\t\"b\": [\n\t\t1\n\t]\n}\n"},
		{"inline", `{"a": 1}`, "b", `{"a": 1, "b": [
  1
]}`},
		{"empty", "{\n  \"x\": {}\n}", "", "{\n  \"x\": {\n    \"b\": [\n      1\n    ]\n  }\n}"},
		// A comment after the last item stays before the closing brace.
		{"comment kept", "{\n  // c\n  \"a\": 1 // d\n}", "b", "{\n  // c\n  \"a\": 1,\n  \"b\": [\n    1\n  ] // d\n}"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc, err := jsonc.Parse([]byte(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			obj := doc.Root()
			if tc.key == "" {
				obj, tc.key = obj.Get("x"), "b"
			}
			if err := obj.Set(tc.key, []int{1}); err != nil {
				t.Fatal(err)
			}
			if got := string(doc.Bytes()); got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
			if _, err := jsonc.Parse(doc.Bytes()); err != nil {
				t.Errorf("the edit does not parse: %v", err)
			}
			obj.Remove(obj.Len() - 1)
			if got := string(doc.Bytes()); got != tc.in && obj.Len() > 0 {
				t.Errorf("removed: got\n%s\nwant\n%s", got, tc.in)
			}
		})
	}
	doc, _ := jsonc.Parse([]byte("[\n  1,\n  // two\n  2,\n  3\n]"))
	doc.Root().Remove(1)
	if got := string(doc.Bytes()); got != "[\n  1,\n  // two\n  3\n]" {
		t.Errorf("removing a middle element: %q", got)
	}
	doc.Root().Remove(1)
	if got := string(doc.Bytes()); got != "[\n  1\n]" {
		t.Errorf("removing the last element: %q", got)
	}
	doc.Root().Remove(0)
	if got := string(doc.Bytes()); got != "[]" {
		t.Errorf("removing the only element: %q", got)
	}
	if err := doc.Root().Append(map[string]int{"a": 1}); err != nil || string(doc.Bytes()) != "[\n  {\n    \"a\": 1\n  }\n]" {
		t.Errorf("appending to an empty array: %v %q", err, doc.Bytes())
	}
	if jsonc.HasComment([]byte(`{"a": "//"}`)) || !jsonc.HasComment([]byte("{} // c")) {
		t.Error("HasComment")
	}
}

// Parse takes every JSON text (within the nesting limit) and gives it
// back byte for byte; what it takes is JSON once comments are stripped.
func FuzzParse(f *testing.F) {
	for _, s := range []string{`{"a": [1, "x"]}`, "// c\n{}", `{"a":/*x*/1}`, `"s"`, `[1,]`, `{"a" 1}`, "/* open", "{\"a\":\"\\u00e9\"}"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		doc, err := jsonc.Parse(data)
		if err != nil {
			if json.Valid(data) && !strings.Contains(err.Error(), "nested deeper") {
				t.Fatalf("refused JSON: %v", err)
			}
			return
		}
		if !bytes.Equal(doc.Bytes(), data) {
			t.Fatalf("Bytes = %q, want %q", doc.Bytes(), data)
		}
		std, err := jsonc.Standard(data)
		if err != nil || !json.Valid(std) {
			t.Fatalf("accepted %q, not JSON once comments are stripped: %q %v", data, std, err)
		}
	})
}

// An item added to a document's top-level object or array reads back as
// the value given, the result parses, and removing the item gives back
// the same value (the same text, unless the container was empty).
func FuzzEdit(f *testing.F) {
	for _, s := range []string{"{}", "[]", "{\n\t\"a\": 1 // c\n}", "[1, /* x */ 2]", "{ /* only a comment */ }", "[\n  [\n  ]\n]"} {
		f.Add([]byte(s), "k")
	}
	f.Fuzz(func(t *testing.T, data []byte, key string) {
		doc, err := jsonc.Parse(data)
		if err != nil {
			return
		}
		key = strings.ToValidUTF8(key, "\uFFFD") // JSON holds only UTF-8
		root := doc.Root()
		n := root.Len()
		want := map[string]any{"v": []any{key, 1.5}}
		switch root.Kind() {
		case '{':
			err = root.Set(key, want)
		case '[':
			err = root.Append(want)
		default:
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		out := doc.Bytes()
		again, err := jsonc.Parse(out)
		if err != nil {
			t.Fatalf("the edit of %q does not parse: %v\n%s", data, err, out)
		}
		added := again.Root().Index(n)
		if root.Kind() == '{' {
			added = again.Root().Get(key)
		}
		std, _ := jsonc.Standard(out)
		var whole any
		if err := json.Unmarshal(std, &whole); err != nil {
			t.Fatal(err)
		}
		var got any
		switch w := whole.(type) {
		case map[string]any:
			got = w[key]
		case []any:
			got = w[n]
		}
		if !reflect.DeepEqual(got, any(map[string]any{"v": []any{key, 1.5}})) || added.Kind() != '{' {
			t.Fatalf("added %v, read back %v\n%s", want, got, out)
		}
		root.Remove(n)
		if n > 0 && !bytes.Equal(doc.Bytes(), data) {
			t.Fatalf("removed: got\n%q\nwant\n%q", doc.Bytes(), data)
		}
		if _, err := jsonc.Parse(doc.Bytes()); err != nil {
			t.Fatalf("after removal: %v\n%s", err, doc.Bytes())
		}
	})
}

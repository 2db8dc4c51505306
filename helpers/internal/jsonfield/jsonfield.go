// Package jsonfield reads a few fields of a JSON document without decoding
// the rest: a log line's key and type, a transcript record's usage, where
// the document's large parts (an entry's content, a tool's output) are
// skipped, not decoded. It owns github.com/tidwall/gjson: the rest of
// cairn reaches the library through it.
package jsonfield

import "github.com/tidwall/gjson"

// Value is a JSON value found in a document: its type, its raw bytes and,
// for a string, number or boolean, its value. Its methods (ForEach,
// IsObject, Int, Str, Raw, …) are gjson's.
type Value = gjson.Result

// The JSON types cairn asks a [Value] about (its Type field).
const (
	Null   = gjson.Null
	Number = gjson.Number
	String = gjson.String
	True   = gjson.True
)

// Parse reads the JSON value of data; it does not validate it (see
// [Valid]). The value and its strings hold a copy of data, so they outlive
// it.
func Parse(data []byte) Value { return gjson.ParseBytes(data) }

// GetMany reads the values at paths (gjson's path syntax: "key",
// "a.b") from data, in the order of paths; a missing one does not Exist.
func GetMany(data []byte, paths ...string) []Value { return gjson.GetManyBytes(data, paths...) }

// Valid reports whether data is one well-formed JSON value.
func Valid(data []byte) bool { return gjson.ValidBytes(data) }

package agent

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode/utf8"
)

// The transcript readers of `cairn report` read thousands of transcripts
// and want a few fields of each record. These functions walk a record's
// JSON in one pass without decoding what is not asked for, so that a
// record's large parts (a tool's output, a file's contents) are skipped,
// not decoded. They are tolerant, not validating: on valid JSON they see
// what encoding/json sees (but for keys, which match exactly: a key
// written with an escape is passed as written); on malformed JSON they
// stop and say so.

// EachField calls fn with each key of the JSON object data and the raw
// bytes of its value, in order, until fn returns false. It reports
// whether data was an object it could walk to its end (or to where fn
// stopped).
func EachField(data []byte, fn func(key, value []byte) bool) bool {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return false
	}
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == '}' {
		return true
	}
	for i < len(data) {
		if data[i] != '"' {
			return false
		}
		end, ok := skipString(data, i)
		if !ok {
			return false
		}
		key := data[i+1 : end-1]
		i = skipSpace(data, end)
		if i >= len(data) || data[i] != ':' {
			return false
		}
		i = skipSpace(data, i+1)
		vend, ok := skipValue(data, i)
		if !ok {
			return false
		}
		if !fn(key, data[i:vend]) {
			return true
		}
		i = skipSpace(data, vend)
		if i >= len(data) {
			return false
		}
		switch data[i] {
		case '}':
			return true
		case ',':
			i = skipSpace(data, i+1)
		default:
			return false
		}
	}
	return false
}

// EachElement calls fn with the raw bytes of each element of the JSON
// array data, in order, until fn returns false. It reports whether data
// was an array it could walk.
func EachElement(data []byte, fn func(value []byte) bool) bool {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '[' {
		return false
	}
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == ']' {
		return true
	}
	for i < len(data) {
		end, ok := skipValue(data, i)
		if !ok {
			return false
		}
		if !fn(data[i:end]) {
			return true
		}
		i = skipSpace(data, end)
		if i >= len(data) {
			return false
		}
		switch data[i] {
		case ']':
			return true
		case ',':
			i = skipSpace(data, i+1)
		default:
			return false
		}
	}
	return false
}

// JSONString is the string a raw JSON value holds; ok is false when it is
// not a string.
func JSONString(v []byte) (s string, ok bool) {
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return "", false
	}
	inner := v[1 : len(v)-1]
	if bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
		return string(inner), true
	}
	return s, json.Unmarshal(v, &s) == nil
}

// JSONInt is the integer a raw JSON number holds (0 for anything else;
// a number with a fraction or an exponent is truncated).
func JSONInt(v []byte) int64 {
	if n, err := strconv.ParseInt(string(v), 10, 64); err == nil {
		return n
	}
	if f, err := strconv.ParseFloat(string(v), 64); err == nil {
		return int64(f)
	}
	return 0
}

// JSONTrue reports whether a raw JSON value is true.
func JSONTrue(v []byte) bool { return string(v) == "true" }

func skipSpace(data []byte, i int) int {
	for i < len(data) {
		switch data[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// skipString returns the position after the string that starts at
// data[i] (a quote).
func skipString(data []byte, i int) (int, bool) {
	j := i + 1
	for {
		k := bytes.IndexByte(data[j:], '"')
		if k < 0 {
			return 0, false
		}
		j += k
		// The quote ends the string unless an odd number of backslashes
		// escapes it.
		n := 0
		for b := j - 1; b > i && data[b] == '\\'; b-- {
			n++
		}
		if n%2 == 0 {
			return j + 1, true
		}
		j++
	}
}

// skipValue returns the position after the value that starts at data[i].
func skipValue(data []byte, i int) (int, bool) {
	if i >= len(data) {
		return 0, false
	}
	switch data[i] {
	case '"':
		return skipString(data, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(data); j++ {
			switch data[j] {
			case '"':
				end, ok := skipString(data, j)
				if !ok {
					return 0, false
				}
				j = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1, true
				}
			}
		}
		return 0, false
	}
	// A number or a literal: up to the next delimiter.
	j := i
	for j < len(data) {
		switch data[j] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return j, j > i
		}
		j++
	}
	return j, j > i
}

package model

import (
	"encoding/json"
	"errors"
	"strings"
)

// ErrNoJSON: the model's answer holds no JSON object.
var ErrNoJSON = errors.New("no JSON object in the model's answer")

// ExtractJSON finds the JSON object in a model's answer, tolerantly: in a
// ```json fence or a bare one, after prose, or as the first balanced
// {...} that parses (braces inside strings do not count). It returns the
// object's bytes.
func ExtractJSON(answer string) ([]byte, error) {
	if fenced, ok := fence(answer); ok {
		if obj, err := firstObject(fenced); err == nil {
			return obj, nil
		}
	}
	return firstObject(answer)
}

// fence returns the body of the first ``` fence in s.
func fence(s string) (string, bool) {
	i := strings.Index(s, "```")
	if i < 0 {
		return "", false
	}
	rest := s[i+3:]
	if nl := strings.IndexByte(rest, '\n'); nl >= 0 && !strings.ContainsAny(rest[:nl], "{}") {
		rest = rest[nl+1:] // the info string: json, JSON, ...
	}
	j := strings.Index(rest, "```")
	if j < 0 {
		return rest, true
	}
	return rest[:j], true
}

// maxStarts bounds how many opening braces firstObject tries, so that an
// answer of many unbalanced braces costs linear time, not quadratic.
const maxStarts = 64

// firstObject returns the first balanced {...} of s that is valid JSON,
// among the first maxStarts opening braces.
func firstObject(s string) ([]byte, error) {
	tries := 0
	for start := strings.IndexByte(s, '{'); start >= 0 && tries < maxStarts; tries++ {
		if end, ok := balanced(s[start:]); ok && json.Valid([]byte(s[start:start+end])) {
			return []byte(s[start : start+end]), nil
		}
		next := strings.IndexByte(s[start+1:], '{')
		if next < 0 {
			break
		}
		start += 1 + next
	}
	return nil, ErrNoJSON
}

// balanced returns the length of the object s starts with, counting braces
// outside JSON strings.
func balanced(s string) (int, bool) {
	depth, inString, escaped := 0, false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case c == '"':
			inString = !inString
		case inString:
		case c == '{':
			depth++
		case c == '}':
			depth--
			if depth == 0 {
				return i + 1, true
			}
		}
	}
	return 0, false
}

package agent

import (
	"strings"
	"testing"
)

// A payload must be a JSON object, and the error names the agent.
func TestDecodePayload(t *testing.T) {
	type p struct {
		Session string `json:"session_id"`
	}
	got, err := DecodePayload[p]("x", []byte(` {"session_id":"s","other":[1]}`))
	if err != nil || got.Session != "s" {
		t.Errorf("DecodePayload = %+v, %v", got, err)
	}
	for _, bad := range []string{``, `null`, `[1]`, `"s"`, `{"session_id":1}`, `{`} {
		if _, err := DecodePayload[p]("x", []byte(bad)); err == nil || !strings.HasPrefix(err.Error(), "decode x hook payload: ") {
			t.Errorf("DecodePayload(%q): %v", bad, err)
		}
	}
}

// An answer is one line of JSON, its text as written.
func TestEncodeOutput(t *testing.T) {
	out, err := EncodeOutput("x", struct {
		Context string `json:"context"`
	}{"a <b> & c"})
	if err != nil || string(out) != `{"context":"a <b> & c"}`+"\n" {
		t.Errorf("EncodeOutput = %q, %v", out, err)
	}
	if _, err := EncodeOutput("x", func() {}); err == nil || !strings.HasPrefix(err.Error(), "encode x hook output: ") {
		t.Errorf("EncodeOutput of a func: %v", err)
	}
}

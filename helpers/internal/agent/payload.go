package agent

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// DecodePayload reads a hook's payload, which must be a JSON object, into
// a P, the adapter's struct of the fields it uses (the others may be
// anything); agent names the agent in the error.
func DecodePayload[P any](agent string, data []byte) (P, error) {
	var p P
	if t := bytes.TrimSpace(data); len(t) == 0 || t[0] != '{' {
		return p, fmt.Errorf("decode %s hook payload: not a JSON object", agent)
	}
	if err := json.Unmarshal(data, &p); err != nil {
		return p, fmt.Errorf("decode %s hook payload: %w", agent, err)
	}
	return p, nil
}

// EncodeOutput writes v as a hook's stdout: one line of JSON, with <, >
// and & as they are (a note's text stays readable to the model); agent
// names the agent in the error.
func EncodeOutput(agent string, v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("encode %s hook output: %w", agent, err)
	}
	return buf.Bytes(), nil
}

// Status is a project's wiring for an agent in the given state (ok, warn
// or fail), with its detail and fix.
func Status(status, detail, fix string) Wiring {
	return Wiring{Status: status, Detail: detail, Fix: fix}
}

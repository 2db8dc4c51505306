package clitest

import (
	"bytes"
	"encoding/json"
)

// JSONLines builds a JSON-lines file (a transcript, say), one value a
// line.
type JSONLines struct{ bytes.Buffer }

// Add writes v as the next line.
func (j *JSONLines) Add(v any) {
	data, err := json.Marshal(v)
	if err != nil {
		panic(err) // a test's own value
	}
	j.Write(data)
	j.WriteByte('\n')
}

// Endless is an endless run of one byte, for input larger than a test
// should hold in memory (io.LimitReader bounds it).
type Endless byte

func (r Endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(r)
	}
	return len(p), nil
}

package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"sync"
)

// drain lets a client that closes stdin after its last request (a script:
// printf ... | cairn mcp) still get every answer. The SDK takes the end of
// its input for the client's going away and cancels what is in flight; so
// the end of stdin is held back from it until every request read has been
// answered (or ctx ends). It counts JSON-RPC calls, one message a line, on
// the way in and responses on the way out.
type drain struct {
	ctx context.Context
	in  io.Reader
	out io.Writer

	mu       sync.Mutex
	answered *sync.Cond
	asked    int // calls read
	replied  int // responses written
	inLine   []byte
	outLine  []byte
}

func newDrain(ctx context.Context, in io.Reader, out io.Writer) *drain {
	d := &drain{ctx: ctx, in: in, out: out}
	d.answered = sync.NewCond(&d.mu)
	return d
}

// wake stops a Read waiting at the end of stdin (ctx ended).
func (d *drain) wake() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.answered.Broadcast()
}

// Read reads stdin, counting the calls; at its end it waits for their
// answers before it says so.
func (d *drain) Read(p []byte) (int, error) {
	n, err := d.in.Read(p)
	d.mu.Lock()
	defer d.mu.Unlock()
	d.inLine = scanLines(d.inLine, p[:n], func(line []byte) {
		d.asked += calls(line)
	})
	if err == io.EOF {
		// The last line may end without a newline.
		d.asked += calls(d.inLine)
		d.inLine = d.inLine[:0]
		for d.replied < d.asked && d.ctx.Err() == nil {
			d.answered.Wait()
		}
	}
	return n, err
}

// Write writes a message to stdout, counting the responses.
func (d *drain) Write(p []byte) (int, error) {
	n, err := d.out.Write(p)
	d.mu.Lock()
	defer d.mu.Unlock()
	d.outLine = scanLines(d.outLine, p[:n], func(line []byte) {
		d.replied += responses(line)
	})
	d.answered.Broadcast()
	return n, err
}

// Close is a no-op: stdin and stdout are the process's.
func (d *drain) Close() error { return nil }

// maxLine bounds what is kept of a line that has not ended yet (the
// counting needs only its start; the SDK bounds what it reads itself).
const maxLine = 1 << 20

// scanLines calls fn with each line completed by data, carrying the
// unfinished one over (its first maxLine bytes).
func scanLines(partial, data []byte, fn func([]byte)) []byte {
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			room := max(0, maxLine-len(partial))
			return append(partial, data[:min(room, len(data))]...)
		}
		line := data[:i]
		if len(partial) > 0 {
			line = append(partial, line[:min(max(0, maxLine-len(partial)), len(line))]...)
		}
		fn(line)
		partial = partial[:0]
		data = data[i+1:]
	}
	return partial
}

// message is what the counting needs of a JSON-RPC message.
type message struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
}

// each calls fn with the message of line, or each of a batch's.
func each(line []byte, fn func(message)) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return
	}
	if line[0] == '[' {
		var batch []message
		if json.Unmarshal(line, &batch) == nil {
			for _, m := range batch {
				fn(m)
			}
		}
		return
	}
	var m message
	if json.Unmarshal(line, &m) == nil {
		fn(m)
	}
}

// calls counts the requests of a line that expect an answer.
func calls(line []byte) int {
	n := 0
	each(line, func(m message) {
		if m.Method != "" && hasID(m.ID) {
			n++
		}
	})
	return n
}

// responses counts the answers to identified requests in a line.
func responses(line []byte) int {
	n := 0
	each(line, func(m message) {
		if m.Method == "" && hasID(m.ID) {
			n++
		}
	})
	return n
}

func hasID(id json.RawMessage) bool { return len(id) > 0 && string(id) != "null" }

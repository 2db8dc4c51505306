package agent

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"sync"
)

// MaxTranscriptLine caps one record of a transcript: a longer one (a huge
// tool result) is read past, not held in memory.
const MaxTranscriptLine = 16 << 20

// lineReaders are the buffered readers EachLine reads through, reused:
// `cairn report` reads thousands of transcripts.
var lineReaders = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, 64<<10) }}

// EachLine calls fn with each line of r that holds more than white space,
// trimmed, until fn returns false. The line is valid only during the call:
// its bytes are reused. A line longer than [MaxTranscriptLine] is read
// past and counted in skipped, not held. err is the first read error
// other than io.EOF. Every transcript reader of the agents reads its
// records through it.
func EachLine(r io.Reader, fn func(line []byte) bool) (skipped int, err error) {
	br := lineReaders.Get().(*bufio.Reader)
	br.Reset(r)
	defer func() {
		br.Reset(nil)
		lineReaders.Put(br)
	}()
	var scratch []byte
	for {
		var line []byte
		var long bool
		line, long, scratch, err = nextLine(br, scratch)
		if long {
			skipped++
		} else if line = bytes.TrimSpace(line); len(line) > 0 && !fn(line) {
			return skipped, nil
		}
		if err == io.EOF {
			return skipped, nil
		}
		if err != nil {
			return skipped, err
		}
	}
}

// nextLine reads one line from br: from br's buffer when it fits there,
// else gathered into scratch (returned for reuse). A line past
// MaxTranscriptLine is read to its end and reported long, without its
// bytes.
func nextLine(br *bufio.Reader, scratch []byte) (line []byte, long bool, _ []byte, err error) {
	chunk, err := br.ReadSlice('\n')
	if !errors.Is(err, bufio.ErrBufferFull) {
		return chunk, false, scratch, err
	}
	line = append(scratch[:0], chunk...)
	for errors.Is(err, bufio.ErrBufferFull) {
		chunk, err = br.ReadSlice('\n')
		if !long && len(line)+len(chunk) > MaxTranscriptLine {
			long, line = true, line[:0]
		}
		if !long {
			line = append(line, chunk...)
		}
	}
	return line, long, line[:0], err
}

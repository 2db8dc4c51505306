package session_test

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/event"
	"github.com/cairn-dev/cairn/helpers/internal/session/record"
)

const stopPayload = `{"session_id":"e165bcaf","hook_event_name":"Stop","last_assistant_message":"DECISION: x"}`

// repeatReader yields the same byte forever.
type repeatReader byte

func (r repeatReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(r)
	}
	return len(p), nil
}

type failingReader struct{}

func (failingReader) Read([]byte) (int, error) { return 0, errors.New("boom") }

func TestReadPayload(t *testing.T) {
	for _, in := range []string{"", " ", "\n", " \t\r\n  \n"} {
		if _, err := record.ReadPayload(strings.NewReader(in)); !errors.Is(err, record.ErrEmpty) {
			t.Errorf("ReadPayload(%q) error = %v, want ErrEmpty", in, err)
		}
	}
	got, err := record.ReadPayload(strings.NewReader(stopPayload))
	if err != nil || string(got) != stopPayload {
		t.Errorf("ReadPayload(stop payload) = %q, %v; want the payload", got, err)
	}
	got, err = record.ReadPayload(strings.NewReader("\n" + stopPayload + "\n"))
	if err != nil || string(got) != "\n"+stopPayload+"\n" {
		t.Errorf("ReadPayload(payload with newlines) = %q, %v", got, err)
	}
	if _, err := record.ReadPayload(failingReader{}); err == nil || errors.Is(err, record.ErrEmpty) {
		t.Errorf("ReadPayload(failing reader) error = %v, want the read error", err)
	}
	if _, err := record.ReadPayload(io.MultiReader(strings.NewReader("{"), failingReader{})); err == nil {
		t.Errorf("ReadPayload(reader failing midway) succeeded")
	}
}

func TestReadPayloadTooLarge(t *testing.T) {
	_, err := record.ReadPayload(io.LimitReader(repeatReader('a'), event.MaxPayload+1))
	if !errors.Is(err, record.ErrTooLarge) {
		t.Fatalf("ReadPayload(MaxPayload+1 bytes) error = %v, want ErrTooLarge", err)
	}
	// An endless reader is refused too, after MaxPayload+1 bytes.
	if _, err := record.ReadPayload(repeatReader(' ')); !errors.Is(err, record.ErrTooLarge) {
		t.Fatalf("ReadPayload(endless reader) error = %v, want ErrTooLarge", err)
	}
}

func TestReadPayloadAtLimit(t *testing.T) {
	got, err := record.ReadPayload(io.LimitReader(repeatReader('a'), event.MaxPayload))
	if err != nil {
		t.Fatalf("ReadPayload(MaxPayload bytes) error = %v", err)
	}
	if len(got) != event.MaxPayload {
		t.Fatalf("ReadPayload(MaxPayload bytes) returned %d bytes", len(got))
	}
}

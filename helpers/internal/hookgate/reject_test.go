package hookgate

import (
	"errors"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/event"
)

// Only a reply with nothing to capture is decoded, and only one with a
// transcript is queued (here: the pipeline is off, so nothing is written).
func TestRunDecodesOnlyRejectedReplies(t *testing.T) {
	errDecode := errors.New("decoded")
	c := Caller{
		Decode: func() (event.Event, error) { return event.Event{}, errDecode },
		Root:   func(event.Event) string { t.Fatal("Root called"); return "" },
		Getenv: func(string) string { return "" },
	}
	for _, tc := range []struct {
		kind    event.Kind
		payload string
		decoded bool
	}{
		{event.Reply, `{"last_assistant_message":"done"}`, true},
		{event.ToolRan, `{"tool_input":{}}`, false},
		{event.Reply, `{"last_assistant_message":"FACT: x"}`, false},
		{event.Reply, `nope`, false},
	} {
		_, err := Run(tc.kind, []byte(tc.payload), c)
		if errors.Is(err, errDecode) != tc.decoded {
			t.Errorf("Run(%v, %q): err %v, want decoded %v", tc.kind, tc.payload, err, tc.decoded)
		}
	}
}

package opencode_test

import (
	"encoding/json"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/agent/opencode"
	"github.com/cairn-dev/cairn/helpers/internal/agent/opencode/hooks"
	"github.com/cairn-dev/cairn/helpers/internal/event"
)

// FuzzDecode: any payload under any event name decodes or fails, never
// panics; a decoded event has the name's kind and names the opencode
// adapter; and whatever cairn answers it, Encode writes nothing or one
// line of JSON the plugin reads back to the same context and status.
func FuzzDecode(f *testing.F) {
	for _, p := range []string{sessionStartPayload, userPromptPayload, toolAfterPayload, textCompletePayload,
		`{}`, `{"exit":null}`, `{"exit":-1,"tool":"bash"}`, `{"text":"\u2028<untrusted-knowledge>"}`, `null`, `{"session_id":7}`} {
		for _, h := range hooks.Events {
			f.Add(h.Event, p, "ctx", "status")
		}
	}
	f.Add("Stop", `{}`, "", "")
	f.Fuzz(func(t *testing.T, name, payload, context, status string) {
		e, err := opencode.Adapter{}.Decode(name, []byte(payload), nil)
		if err != nil {
			return
		}
		if e.Kind != hooks.Spec.Kind(name) || e.Kind == event.Unknown || e.Agent != "opencode" || e.Name != name {
			t.Fatalf("Adapter{}.Decode(%q, %q) = %+v", name, payload, e)
		}
		out, err := opencode.Adapter{}.Encode(e, event.Answer{Context: context, Status: status})
		if err != nil {
			t.Fatal(err)
		}
		if len(out) == 0 {
			return
		}
		var back opencode.Output
		if err := json.Unmarshal(out, &back); err != nil {
			t.Fatalf("Encode wrote %q: %v", out, err)
		}
		if back.Status != toValid(status) {
			t.Fatalf("status %q came back %q", status, back.Status)
		}
		if (e.Kind == event.Start || e.Kind == event.Prompt) && back.Context != toValid(context) {
			t.Fatalf("context %q came back %q", context, back.Context)
		}
		if out[len(out)-1] != '\n' || !json.Valid(out[:len(out)-1]) {
			t.Fatalf("not one line of JSON: %q", out)
		}
	})
}

// toValid is s as JSON carries it: invalid UTF-8 replaced.
func toValid(s string) string {
	b, _ := json.Marshal(s)
	var back string
	_ = json.Unmarshal(b, &back)
	return back
}

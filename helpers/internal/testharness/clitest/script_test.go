package clitest

import (
	"errors"
	"slices"
	"testing"
)

type scriptReq struct {
	text      string
	turn      int
	responded bool
}

func nonEmpty(a []string) error {
	if len(a) == 0 {
		return errors.New("empty answer")
	}
	return nil
}

// Main requests take the scripted turns in order, then the done answer;
// side requests get nil (the fake's own answer) and take no turn; a
// responder's answer comes first and takes no turn, and an invalid one is
// an error. Every request is recorded with what happened, and numbered.
func TestScript(t *testing.T) {
	if _, err := NewScript[scriptReq]([][]string{{"a"}, {}}, nonEmpty, nil); err == nil {
		t.Fatal("an empty scripted turn was accepted")
	}
	s, err := NewScript[scriptReq]([][]string{{"one"}, {"two"}}, nonEmpty, []string{"done"})
	if err != nil {
		t.Fatal(err)
	}
	mark := func(r *scriptReq, turn int, responded bool) { r.turn, r.responded = turn, responded }
	s.Respond(func(r scriptReq) ([]string, bool) {
		switch r.text {
		case "ask the responder":
			return []string{"responded"}, true
		case "bad":
			return nil, true
		}
		return nil, false
	})
	for i, tc := range []struct {
		text    string
		side    bool
		want    []string
		wantErr bool
	}{
		{"first", false, []string{"one"}, false},
		{"a side call", true, nil, false},
		{"ask the responder", false, []string{"responded"}, false},
		{"second", false, []string{"two"}, false},
		{"bad", true, nil, true},
		{"past the script", false, []string{"done"}, false},
	} {
		got, n, err := s.Answer(scriptReq{text: tc.text}, tc.side, mark)
		if (err != nil) != tc.wantErr || !slices.Equal(got, tc.want) || n != i+1 {
			t.Errorf("%s: %q, %d, %v; want %q, %d, error %v", tc.text, got, n, err, tc.want, i+1, tc.wantErr)
		}
	}
	var turns []int
	for _, r := range s.Requests() {
		turns = append(turns, r.turn)
	}
	if want := []int{0, -1, -1, 1, -1, 2}; !slices.Equal(turns, want) {
		t.Errorf("recorded turns %v, want %v", turns, want)
	}
	if r := s.Requests()[2]; !r.responded {
		t.Error("the responder's answer is not recorded as responded")
	}
}

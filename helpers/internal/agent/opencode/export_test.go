package opencode

import (
	"github.com/cairn-dev/cairn/helpers/internal/agent"
	"github.com/cairn-dev/cairn/helpers/internal/agent/opencode/hooks"
)

// DecodePayload is the adapter's read of a payload, for the external tests.
func DecodePayload(data []byte) (hookPayload, error) {
	return agent.DecodePayload[hookPayload](hooks.Agent, data)
}

// ErrForeignPlugin is errForeignPlugin, for the external tests.
var ErrForeignPlugin = errForeignPlugin

// ErrNoTranscript is errNoTranscript, for the external tests.
var ErrNoTranscript = errNoTranscript

// IsPlugin is isPlugin, for the external tests.
var IsPlugin = isPlugin

// Output is output, for the external tests.
type Output = output

// PluginFile is pluginFile, for the external tests.
const PluginFile = pluginFile

// Payload is hookPayload, for the external tests.
type Payload = hookPayload

// Plugin is pluginText, for the external tests.
var Plugin = pluginText

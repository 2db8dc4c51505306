package opencode

// DecodePayload is decodePayload, for the external tests.
var DecodePayload = decodePayload

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

package codex

import "github.com/pelletier/go-toml/v2"

// ReadTranscriptMax is ReadTranscript reading at most max bytes.
var ReadTranscriptMax = readTranscript

// IsTOML reports whether data is a TOML document.
func IsTOML(data string) bool {
	var v map[string]any
	return toml.Unmarshal([]byte(data), &v) == nil
}

// CheckWiringIn is CheckWiring with codexHome given.
var CheckWiringIn = checkWiring

// Install is install, for the external tests.
var Install = install

// ParseUserConfig is parseUserConfig, for the external tests.
var ParseUserConfig = parseUserConfig

// Uninstall is uninstall, for the external tests.
var Uninstall = uninstall

// Command is hookCommand, for the external tests.
var Command = hookCommand

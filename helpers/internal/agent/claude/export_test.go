package claude

import "strings"

// Install adds hooks that run the plugin's wrapper at a path, as older
// versions of install.sh wrote them: the tests exercise through it the
// merge that Project uses, and the removal of such entries by Uninstall.
func Install(data []byte, wrapper string) ([]byte, bool, error) {
	return install(data, "'"+strings.ReplaceAll(wrapper, "'", `'\''`)+"'")
}

// ReadTranscriptMax is ReadTranscript reading at most max bytes.
var ReadTranscriptMax = readTranscript

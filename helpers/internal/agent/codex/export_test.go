package codex

// ReadTranscriptMax is ReadTranscript reading at most max bytes.
var ReadTranscriptMax = readTranscript

package cursor

// Command is command, for the external tests.
var Command = command

// ErrHooksFile is errHooksFile, for the external tests.
var ErrHooksFile = errHooksFile

// ErrNoTranscript is errNoTranscript, for the external tests.
var ErrNoTranscript = errNoTranscript

// Install is install, for the external tests.
var Install = install

// Marker is marker, for the external tests.
const Marker = marker

// Uninstall is uninstall, for the external tests.
var Uninstall = uninstall

// Wired is wiredEvents, for the external tests.
var Wired = wiredEvents

// Events is registeredEvents, for the external tests.
var Events = registeredEvents

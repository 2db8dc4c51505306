package session

// GlanceBytes is the bound of the read of the log a session start does
// while the cache is built.
const GlanceBytes = glanceBytes

// RecordInjections turns the record of injections on or off (benchmarks
// of its cost); it returns the setting before.
func RecordInjections(on bool) bool {
	was := recordInjections
	recordInjections = on
	return was
}

package session

// GlanceBytes is the bound of the read of the log a session start does
// while the cache is built.
const GlanceBytes = glanceBytes

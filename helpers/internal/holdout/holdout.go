// Package holdout decides which sessions go without recall, for
// measuring what recall is worth (`cairn report`): a share of sessions,
// chosen by a hash of the session's id, so that every hook of one session
// and the MCP server decide alike without keeping any state. It is a leaf
// (the standard library only): the hook path and MCP import it cheaply.
package holdout

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
)

// MaxShare is the largest share a config may ask for: half the sessions.
const MaxShare = 0.5

// Share is the share of sessions held out: the person's own setting when
// there is one (0 turns it off for them), else the team's, else 0. A share
// below 0, above [MaxShare] or not a number is clamped into [0, MaxShare].
func Share(team, person *float64) float64 {
	s := 0.0
	switch {
	case person != nil:
		s = *person
	case team != nil:
		s = *team
	}
	if math.IsNaN(s) || s <= 0 {
		return 0
	}
	return min(s, MaxShare)
}

// Out reports whether the session with this id goes without recall under
// share: its id's hash, read as a number in [0, 1), is below share. An
// empty id is never held out (nothing could tell its hooks apart). This is
// the one decision; every recall path asks it.
func Out(session string, share float64) bool {
	if session == "" || share <= 0 {
		return false
	}
	return Point(session) < share
}

// Point is where session's id falls in [0, 1): the first 8 bytes of its
// SHA-256, as a fraction.
func Point(session string) float64 {
	sum := sha256.Sum256([]byte(session))
	return float64(binary.BigEndian.Uint64(sum[:8])>>11) / (1 << 53)
}

// OffCommand turns the holdout off for the person who runs it.
const OffCommand = "cairn report holdout off"

// Status is the person's line at the start of a held-out session.
const Status = "cairn: holdout session — no recall, for measuring (turn off: " + OffCommand + ")"

// Describe says the share in effect and where it comes from: the
// person's own (own) and the team's (team), each a share or not set.
func Describe(team, own *float64) string {
	setting := func(v *float64) string {
		if v == nil {
			return "not set"
		}
		return strconv.FormatFloat(*v, 'g', -1, 64)
	}
	return fmt.Sprintf("holdout share %g (yours: %s; the team's: %s)", Share(team, own), setting(own), setting(team))
}

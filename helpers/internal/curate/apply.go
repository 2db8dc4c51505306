package curate

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"slices"
	"time"

	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
	"github.com/cairn-dev/cairn/helpers/internal/sanitize"
)

// Errors of applying a proposal or a retraction.
var (
	// ErrLogChanged: the log is not the one the proposal was made from.
	ErrLogChanged = errors.New("the log changed since the proposal was made; nothing applied")
	// ErrNoEntry: a key names no entry of the log.
	ErrNoEntry = errors.New("no entry with key")
	// ErrAlreadyRetracted: the entry is retracted already.
	ErrAlreadyRetracted = errors.New("already retracted")
	// ErrBadProposal: the proposal file does not read as one.
	ErrBadProposal = errors.New("not a valid proposal")
	// ErrNoProposal: there is no proposal file.
	ErrNoProposal = errors.New("no proposal at")
)

// ApplyFile applies the proposal in file (see Apply); errors name it.
func ApplyFile(s *knowledge.Store, file string) (int, error) {
	data, err := os.ReadFile(file)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, fmt.Errorf("%w %s", ErrNoProposal, file)
	}
	if err != nil {
		return 0, err
	}
	n, err := Apply(s, data)
	if errors.Is(err, ErrBadProposal) || errors.Is(err, ErrNoEntry) {
		return 0, fmt.Errorf("%s: %w", file, err)
	}
	return n, err
}

// proposalError is a failure to read a proposal: its own message, and
// ErrBadProposal for errors.Is.
type proposalError struct{ err error }

func (e proposalError) Error() string   { return e.err.Error() }
func (e proposalError) Unwrap() []error { return []error{e.err, ErrBadProposal} }

// latest maps each key of the log and archive to its latest entry.
func latest(s *knowledge.Store) (map[string]knowledge.Entry, error) {
	recs, _, err := s.ReadAll(true)
	if err != nil {
		return nil, err
	}
	out := map[string]knowledge.Entry{}
	for _, r := range knowledge.Latest(recs) {
		out[r.Entry.Key] = r.Entry
	}
	return out, nil
}

// Apply adds the lines of proposal data to s, each at its sorted place,
// only if every line names an entry of the log and the log is the one the
// proposal was made from; it returns how many lines it added.
func Apply(s *knowledge.Store, data []byte) (int, error) {
	prop, err := Decode(data)
	if err != nil {
		return 0, proposalError{err}
	}
	have, err := latest(s)
	if err != nil {
		return 0, err
	}
	var lines [][]byte
	for i := range prop.Lines {
		e := &prop.Lines[i]
		if _, ok := have[e.Key]; !ok {
			return 0, fmt.Errorf("%w %s in the log", ErrNoEntry, e.Key)
		}
		line, err := knowledge.Marshal(e)
		if err != nil {
			return 0, err
		}
		lines = append(lines, line)
	}
	err = s.InsertLinesIf(lines, func(log []byte) error {
		if knowledge.Sum(log) != prop.LogSHA256 {
			return ErrLogChanged
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	return len(lines), nil
}

// Retract adds the line that retracts the entry key for reason, by author
// when given, and returns the line as written (redacted where it had to
// be).
func Retract(s *knowledge.Store, key, reason, author string, now time.Time) (json.RawMessage, error) {
	have, err := latest(s)
	if err != nil {
		return nil, err
	}
	cur, ok := have[key]
	if !ok {
		return nil, unknownAmong(key, slices.Collect(maps.Keys(have)))
	}
	if cur.Status == knowledge.StatusRetracted {
		return nil, fmt.Errorf("%s is %w", key, ErrAlreadyRetracted)
	}
	ret := Retraction(cur, knowledge.CleanText(reason), now)
	if author != "" {
		ret.Author = author
	}
	line, err := knowledge.Marshal(&ret)
	if err != nil {
		return nil, err
	}
	written := [][]byte{line}
	if err := s.InsertLines(written); err != nil {
		return nil, err
	}
	return json.RawMessage(written[0]), nil
}

// DryRun runs sanitize on the project at root with store s and proposes
// the lines that record its findings in the log; it returns the proposal
// and its file form. Nothing is written.
func DryRun(s *knowledge.Store, root string, now time.Time) (Proposal, []byte, error) {
	res, _, err := sanitize.Run(s, sanitize.Options{Root: root, Collect: true}, true)
	if err != nil {
		return Proposal{}, nil, err
	}
	prop := Propose(res, now)
	data, err := prop.Encode()
	return prop, data, err
}

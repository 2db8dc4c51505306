package clitest

import (
	"fmt"
	"sync"
)

// Script is the conversation a fake model API holds: the scripted turns
// that main requests (those that offer tools) take in order, a responder
// consulted first, and the answer to main requests past the script. R is
// the fake's record of a request, T one block of an answer in its
// protocol. It records every request (it embeds RequestLog) and is safe
// for concurrent use.
type Script[R, T any] struct {
	RequestLog[R]
	turns [][]T
	check func([]T) error
	done  []T

	mu      sync.Mutex
	respond func(R) ([]T, bool)
	next    int // the next scripted turn
	n       int // requests answered
}

// NewScript is a script of turns, whose answers check validates, that
// answers main requests past them with done. A scripted turn check
// rejects is an error.
func NewScript[R, T any](turns [][]T, check func([]T) error, done []T) (*Script[R, T], error) {
	for i, turn := range turns {
		if err := check(turn); err != nil {
			return nil, fmt.Errorf("scripted turn %d: %w", i, err)
		}
	}
	return &Script[R, T]{turns: turns, check: check, done: done}, nil
}

// Respond sets a responder, consulted first for every model request, main
// or side (nil removes it). When it returns ok, its answer is the answer
// and the request takes no scripted turn; otherwise the request is
// answered as without a responder. The request is recorded either way.
//
// fn may be called from several goroutines at once, and must not block for
// long: the CLI waits for the answer. Typical use is answering a side call
// (say a distillation prompt a hook sends with "claude -p") by what the
// request contains. An answer check rejects fails the request (see
// [Script.Answer]).
func (s *Script[R, T]) Respond(fn func(R) ([]T, bool)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.respond = fn
}

// Answer answers one model request: req, as the fake read it; side when it
// offers no tools. mark notes on the record what happened — the scripted
// turn it took (-1 for none) and whether the responder answered — before
// it is recorded. It returns the responder's answer, else for a main
// request the next scripted turn or done, and for a side request nil (the
// fake answers that its own way); n is the request's number, from 1. An
// error says what is wrong with the responder's answer: the fake then
// answers with an error.
func (s *Script[R, T]) Answer(req R, side bool, mark func(r *R, turn int, responded bool)) (answer []T, n int, err error) {
	// The responder runs outside the lock: it may be slow or call
	// Requests.
	s.mu.Lock()
	respond := s.respond
	s.mu.Unlock()
	responded := false
	if respond != nil {
		answer, responded = respond(req)
	}
	if responded {
		err = s.check(answer)
	}
	s.mu.Lock()
	turn := -1
	if !side && !responded {
		turn = s.next
		s.next++
	}
	s.n++
	n = s.n
	mark(&req, turn, responded)
	s.Record(req)
	s.mu.Unlock()
	switch {
	case err != nil:
		return nil, n, err
	case responded:
		return answer, n, nil
	case side:
		return nil, n, nil
	case turn < len(s.turns):
		return s.turns[turn], n, nil
	}
	return s.done, n, nil
}

package clitest

import "sync"

// RequestLog is what a fake model API received: its record of every
// model request it answered (R, the fake's own type) and "METHOD PATH" of
// every HTTP request, each in arrival order. A fake embeds it; it is safe
// for concurrent use.
type RequestLog[R any] struct {
	mu       sync.Mutex
	requests []R
	hits     []string
}

// Hit records an HTTP request, as "METHOD PATH".
func (l *RequestLog[R]) Hit(methodPath string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.hits = append(l.hits, methodPath)
}

// Record records a model request once it is answered.
func (l *RequestLog[R]) Record(r R) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.requests = append(l.requests, r)
}

// Requests returns every model request recorded so far, in arrival order.
func (l *RequestLog[R]) Requests() []R {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]R(nil), l.requests...)
}

// Hits returns "METHOD PATH" for every HTTP request the fake received so
// far, in arrival order, whatever its method and path.
func (l *RequestLog[R]) Hits() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.hits...)
}

package rankers

import (
	"context"
	"fmt"
)

// unavailable stands in for a signal that could not be set up (an index
// that failed to open): every search reports why, none fails.
type unavailable struct {
	signal string
	err    error
}

// Unavailable returns a ranker that always fails with err, so the reason
// shows in signal_errors instead of the signal silently missing.
func Unavailable(signal string, err error) Ranker { return unavailable{signal, err} }

// IsUnavailable reports whether r stands in for a missing signal.
func IsUnavailable(r Ranker) bool {
	_, ok := r.(unavailable)
	return ok
}

func (u unavailable) Name() string { return u.signal }

// Rank reports why the signal is missing. The cause is not wrapped: a
// setup problem must never read as a problem with the caller's request.
func (u unavailable) Rank(context.Context, Request) ([]Candidate, error) {
	return nil, fmt.Errorf("unavailable: %v", u.err)
}

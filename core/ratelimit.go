package core

import "strings"

// Limiter counts requests per client in fixed windows aligned to multiples of the
// window length (unix time), exactly, in this instance's memory. It is not safe for
// concurrent use; a Worker isolate runs one request at a time through the module.
type Limiter struct {
	limit, window int64 // requests; seconds
	start         int64 // unix seconds at which the current window began
	counts        map[string]int64
}

// NewLimiter returns a limiter of limit requests per window seconds.
func NewLimiter(limit, window int64) *Limiter {
	return &Limiter{limit: limit, window: window, counts: make(map[string]int64)}
}

// Verdict is the outcome of Take: the count in the window after this request, and
// the seconds until the window resets.
type Verdict struct {
	Limit, Remaining, Reset int64
	Allowed                 bool
}

// Take counts one request from key at unix time now (seconds) and returns the verdict.
// key may alias a request buffer: it is copied when first stored.
func (l *Limiter) Take(key string, now int64) Verdict {
	start := now - now%l.window
	if start != l.start {
		l.start = start
		clear(l.counts) // counts of an ended window are never needed again
	}
	n, ok := l.counts[key]
	if !ok {
		key = strings.Clone(key)
	}
	n++
	l.counts[key] = n
	v := Verdict{Limit: l.limit, Remaining: l.limit - n, Reset: start + l.window - now, Allowed: n <= l.limit}
	if v.Remaining < 0 {
		v.Remaining = 0
	}
	return v
}

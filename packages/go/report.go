package watchlog

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"
)

// Problem says why events are not getting through.
type Problem string

const (
	ProblemUnauthorized   Problem = "unauthorized"    // 401: the API key is unknown or revoked
	ProblemForbidden      Problem = "forbidden"       // 403
	ProblemRejected       Problem = "rejected"        // refused as invalid (400, or listed in a 202)
	ProblemTooLarge       Problem = "too_large"       // one event over the server's size limit (413)
	ProblemFailed         Problem = "failed"          // any other answer retrying cannot fix (404, …)
	ProblemUnreachable    Problem = "unreachable"     // no answer, 408, 429 or 5xx: retried
	ProblemDropping       Problem = "dropping"        // the queue is full: the oldest events go
	ProblemIdentifyFailed Problem = "identify_failed" // Identify panicked or overran: recorded as anonymous
)

// DeliveryError is what OnError hears: the problem, the events concerned and the HTTP status
// (0 when there was no answer).
type DeliveryError struct {
	Problem Problem
	Message string
	Events  int
	Status  int
}

func (e *DeliveryError) Error() string { return e.Message }

// reporter tells the application that events are not getting through in a few lines, never one
// per event: an outage when it starts, dropping once when it starts, one line when delivery works
// again with the number dropped meanwhile.
type reporter struct {
	mu             sync.Mutex
	log            *slog.Logger
	onError        func(*DeliveryError)
	target         string
	reportedAuth   bool
	reportedIdent  bool
	reportedClosed bool
	reportedFail   map[int]bool
	outageSince    time.Time
	droppingSince  time.Time
	droppedBefore  int
	lastRejection  time.Time
	unreported     int
}

func (r *reporter) emit(level slog.Level, e *DeliveryError, msg string) {
	func() {
		// A broken logger or callback must not break delivery.
		defer func() { _ = recover() }()
		r.log.Log(context.Background(), level, "watchlog: "+msg)
	}()
	if e != nil && r.onError != nil {
		func() {
			defer func() { _ = recover() }()
			r.onError(e)
		}()
	}
}

func (r *reporter) auth(status, events int) {
	r.mu.Lock()
	if r.reportedAuth {
		r.mu.Unlock()
		return
	}
	r.reportedAuth = true
	r.mu.Unlock()
	p, msg := ProblemForbidden, fmt.Sprintf("%s refused this client (403): events are not being recorded", r.target)
	if status == 401 {
		p = ProblemUnauthorized
		msg = fmt.Sprintf("%s refused the API key (401): events are not being recorded; check APIKey", r.target)
	}
	r.emit(slog.LevelError, &DeliveryError{p, msg, events, status}, msg)
}

// rejected: at once, then at most once a minute.
func (r *reporter) rejected(count, status int) {
	r.mu.Lock()
	r.unreported += count
	if time.Since(r.lastRejection) < time.Minute {
		r.mu.Unlock()
		return
	}
	r.lastRejection = time.Now()
	n := r.unreported
	r.unreported = 0
	r.mu.Unlock()
	msg := fmt.Sprintf("%s rejected %d event(s) as invalid; they are not retried", r.target, n)
	r.emit(slog.LevelWarn, &DeliveryError{ProblemRejected, msg, n, status}, msg)
}

// failed: an answer retrying cannot fix, said once per status.
func (r *reporter) failed(p Problem, events, status int, msg string) {
	r.mu.Lock()
	if r.reportedFail[status] {
		r.mu.Unlock()
		return
	}
	r.reportedFail[status] = true
	r.mu.Unlock()
	r.emit(slog.LevelError, &DeliveryError{p, msg, events, status}, msg)
}

func (r *reporter) unreachable(reason string, pending, capacity int) {
	r.mu.Lock()
	if !r.outageSince.IsZero() {
		r.mu.Unlock()
		return
	}
	r.outageSince = time.Now()
	r.mu.Unlock()
	msg := fmt.Sprintf("cannot deliver events to %s (%s); retrying with backoff, keeping up to %d events in "+
		"memory (%d pending)", r.target, reason, capacity, pending)
	r.emit(slog.LevelWarn, &DeliveryError{ProblemUnreachable, msg, pending, 0}, msg)
}

// dropping: one warning per episode, however many events go.
func (r *reporter) dropping(droppedTotal, capacity int) {
	r.mu.Lock()
	if !r.droppingSince.IsZero() {
		r.mu.Unlock()
		return
	}
	r.droppingSince = time.Now()
	r.droppedBefore = droppedTotal - 1
	r.mu.Unlock()
	msg := fmt.Sprintf("queue full (%d events): dropping the oldest events", capacity)
	r.emit(slog.LevelWarn, &DeliveryError{ProblemDropping, msg, 1, 0}, msg)
}

// delivered: a batch got through; one line when it ends an outage or a dropping episode.
func (r *reporter) delivered(droppedTotal int) {
	r.mu.Lock()
	r.reportedAuth = false
	clear(r.reportedFail)
	if r.outageSince.IsZero() && r.droppingSince.IsZero() {
		r.mu.Unlock()
		return
	}
	since := r.outageSince
	if since.IsZero() || (!r.droppingSince.IsZero() && r.droppingSince.Before(since)) {
		since = r.droppingSince
	}
	dropped := 0
	if !r.droppingSince.IsZero() {
		dropped = droppedTotal - r.droppedBefore
	}
	r.outageSince, r.droppingSince = time.Time{}, time.Time{}
	r.mu.Unlock()
	r.emit(slog.LevelInfo, nil, fmt.Sprintf("delivering to %s again after %.1f s; %d event(s) dropped meanwhile",
		r.target, time.Since(since).Seconds(), dropped))
}

func (r *reporter) identifyFailed(why string) {
	r.mu.Lock()
	if r.reportedIdent {
		r.mu.Unlock()
		return
	}
	r.reportedIdent = true
	r.mu.Unlock()
	msg := why + "; such requests are recorded as anonymous (said once)"
	r.emit(slog.LevelWarn, &DeliveryError{ProblemIdentifyFailed, msg, 0, 0}, msg)
}

func (r *reporter) afterClose() {
	r.mu.Lock()
	if r.reportedClosed {
		r.mu.Unlock()
		return
	}
	r.reportedClosed = true
	r.mu.Unlock()
	r.emit(slog.LevelWarn, nil, "an event was recorded after Close; it is dropped (close watchlog after your "+
		"server has drained)")
}

func (r *reporter) internal(v any) {
	r.failed(ProblemFailed, 1, -1, fmt.Sprintf("could not record an event (internal error: %v)", v))
}

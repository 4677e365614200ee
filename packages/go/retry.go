package watchlog

import (
	"encoding/json"
	"net/http"
	"strings"
	"time"
)

// maxRetryAfter is the longest Retry-After honoured: a server asking for more gets this.
const maxRetryAfter = 5 * time.Minute

// answer is one delivery attempt's outcome: the server's answer, or Network (why there was
// none: refused, reset, timed out).
type answer struct {
	Network    string
	Status     int
	RetryAfter string
	Body       []byte
}

type settlement int

const (
	unsettled settlement = iota
	settleSent
	settleRejected
	settleFailed
)

// step is what an answer leads to: Settle (the batch is done), Split (halves, each a batch of
// its own), or a retry after RetryIn.
type step struct {
	Settle  settlement
	Split   bool
	RetryIn time.Duration
}

// backoff is the full-jitter delay before retry n (0 for the first answer):
// floor(random × min(max, initial × 2^n)), so clients that failed together do not retry together.
func backoff(n int, initial, max time.Duration, random float64) time.Duration {
	if n > 30 {
		n = 30
	}
	ceiling := float64(initial.Milliseconds()) * float64(int64(1)<<n)
	if m := float64(max.Milliseconds()); m < ceiling {
		ceiling = m
	}
	return time.Duration(int64(random*ceiling)) * time.Millisecond
}

// retryAfter reads Retry-After as delta-seconds (ASCII digits) or an IMF-fixdate less now; zero
// when absent, unreadable, or not in the future; at most five minutes.
func retryAfter(value string, now time.Time) time.Duration {
	v := jsTrim(value)
	if v == "" {
		return 0
	}
	digits := true
	for i := 0; i < len(v); i++ {
		digits = digits && isDigit(v[i])
	}
	if digits {
		// Any count of digits: past six the value is over the cap anyway.
		if len(strings.TrimLeft(v, "0")) > 6 {
			return maxRetryAfter
		}
		secs := 0
		for i := 0; i < len(v); i++ {
			secs = secs*10 + int(v[i]-'0')
		}
		return min(time.Duration(secs)*time.Second, maxRetryAfter)
	}
	at, err := time.Parse(http.TimeFormat, v)
	if err != nil || !at.After(now) {
		return 0
	}
	return min(at.Sub(now).Truncate(time.Millisecond), maxRetryAfter)
}

// namesAnItem: a 400 whose error details name an item ('<index>.<field>') is about events; one
// that names none is about the batch as a whole (more events than this deployment takes at once,
// a body it cannot read), and halving the batch fits the limit or isolates the event at fault.
func namesAnItem(body []byte) bool {
	var parsed struct {
		Error struct {
			Details []struct {
				Path any `json:"path"`
			} `json:"details"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &parsed) != nil {
		return false
	}
	for _, d := range parsed.Error.Details {
		if p, ok := d.Path.(string); ok && p != "" && isDigit(p[0]) {
			return true
		}
	}
	return false
}

// decide is the delivery decision for the answer to attempt n of a batch of `events` events.
func decide(n, events int, a answer, random float64, now time.Time, initial, max time.Duration) step {
	retry := func() step {
		if d := retryAfter(a.RetryAfter, now); a.Network == "" && d > 0 {
			return step{RetryIn: d}
		}
		return step{RetryIn: backoff(n, initial, max, random)}
	}
	if a.Network != "" {
		return retry()
	}
	switch s := a.Status; {
	case s >= 200 && s <= 299:
		return step{Settle: settleSent}
	case s == 400:
		if events > 1 && !namesAnItem(a.Body) {
			return step{Split: true}
		}
		return step{Settle: settleRejected}
	case s == 401 || s == 403:
		return step{Settle: settleFailed}
	case s == 413:
		if events > 1 {
			return step{Split: true}
		}
		return step{Settle: settleFailed}
	case s == 408 || s == 429 || (s >= 500 && s <= 599):
		return retry()
	}
	return step{Settle: settleFailed}
}

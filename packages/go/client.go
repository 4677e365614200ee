package watchlog

import (
	"context"
	"fmt"
	"math/rand"
	"net"
	"net/http"
	"sync"
	"time"
)

// Stats are the client's counters since New. Every queued event ends up in exactly one of Sent,
// Replayed, Rejected, Dropped and Failures, or is Pending:
// Queued = Sent + Replayed + Rejected + Dropped + Failures + Pending.
type Stats struct {
	Queued   int // events handed to the queue
	Sent     int // stored by watchlog
	Replayed int // already stored under their idempotency key (an earlier answer was lost): stored once
	Rejected int // refused by watchlog as invalid
	// Dropped: discarded unsent: the oldest when the queue was full, what was left at Close's
	// deadline, events recorded after Close.
	Dropped        int
	Failures       int // given up on an answer retrying cannot fix (401, 403, 404, an event too large)
	SkippedMethods int // requests not recorded because of their method
	Retries        int // delivery attempts repeated
	Pending        int // queued or in flight now
}

type queued struct {
	seq   uint64
	json  []byte
	chunk *eventChunk
}

type batch struct{ minSeq uint64 }

// Client records requests and delivers them to watchlog in batches. Its methods are safe for
// concurrent use and never panic into the application.
type Client struct {
	cfg      Config
	mapping  mapping
	batchURL string
	http     *http.Client
	report   *reporter

	mu             sync.Mutex
	queue          []queued // queue[head:] waits, oldest first
	head           int
	queueBytes     int
	arena          eventArena
	nextSeq        uint64
	dueSeq         uint64 // events up to this are due: the flush timer fired after they were queued
	flushSeq       uint64 // events up to this are due: Flush was called after they were queued
	timer          *time.Timer
	inFlight       map[*batch]bool
	inFlightEvents int
	stats          Stats
	closing        bool
	closed         bool
	abandoned      bool
	changed        chan struct{} // closed and replaced when anything settles
	wake           chan struct{} // closed and replaced to end the backoffs being slept
	attempts       context.Context
	abort          context.CancelFunc
	closeOnce      sync.Once
	closeStats     Stats
}

// New checks cfg (every fault named in one *ConfigError) and returns a client ready to record.
func New(cfg Config) (*Client, error) {
	batchURL, err := resolve(&cfg)
	if err != nil {
		return nil, err
	}
	transport := &http.Transport{
		Proxy:               http.ProxyFromEnvironment,
		DialContext:         (&net.Dialer{Timeout: cfg.RequestTimeout, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConnsPerHost: cfg.Concurrency,
		// Below watchlog's keep-alive timeout (5 s), so a pooled connection is not reused just as
		// the server closes it.
		IdleConnTimeout:       4 * time.Second,
		TLSHandshakeTimeout:   cfg.RequestTimeout,
		ResponseHeaderTimeout: cfg.RequestTimeout,
		ForceAttemptHTTP2:     true,
	}
	c := &Client{
		cfg:      cfg,
		batchURL: batchURL,
		mapping: mapping{serviceName: cfg.ServiceName, environment: cfg.Environment, anonymous: cfg.AnonymousIdentifier,
			captureRequest: cfg.CaptureRequestBody, captureResponse: cfg.CaptureResponseBody,
			maxBodyBytes: cfg.MaxBodyBytes},
		http: &http.Client{
			Transport: transport,
			// A redirect is a wrong endpoint, never followed (it would turn the POST into a GET).
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		},
		report:   &reporter{log: cfg.Logger, onError: cfg.OnError, target: batchURL, reportedFail: map[int]bool{}},
		nextSeq:  1,
		inFlight: map[*batch]bool{},
		changed:  make(chan struct{}),
		wake:     make(chan struct{}),
	}
	c.attempts, c.abort = context.WithCancel(context.Background())
	return c, nil
}

// Stats returns the counters since New, and Pending.
func (c *Client) Stats() Stats {
	if c == nil {
		return Stats{}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.statsLocked()
}

func (c *Client) statsLocked() Stats {
	s := c.stats
	s.Pending = len(c.queue) - c.head + c.inFlightEvents
	return s
}

func (c *Client) skippedMethod() {
	c.mu.Lock()
	c.stats.SkippedMethods++
	c.mu.Unlock()
}

// enqueue serialises the event once (every attempt resends these bytes, idempotency key
// included) and queues it, dropping the oldest when the queue is full.
func (c *Client) enqueue(e *wireEvent) {
	scratch := scratchPool.Get().(*[]byte)
	defer scratchPool.Put(scratch)
	written, err := appendEvent((*scratch)[:0], e)
	*scratch = written
	if err != nil {
		c.report.internal(err)
		return
	}
	c.mu.Lock()
	c.stats.Queued++
	if c.closed {
		c.stats.Dropped++
		c.mu.Unlock()
		c.report.afterClose()
		return
	}
	dropped := 0
	if len(c.queue)-c.head >= c.cfg.MaxQueueEvents {
		c.arena.release(c.shiftLocked().chunk)
		c.stats.Dropped++
		dropped = c.stats.Dropped
	}
	js, chunk := c.arena.store(written)
	c.queue = append(c.queue, queued{seq: c.nextSeq, json: js, chunk: chunk})
	c.queueBytes += len(js)
	c.nextSeq++
	if c.timer == nil && !c.closing {
		c.armTimerLocked()
	}
	c.pumpLocked()
	c.mu.Unlock()
	// Said outside the lock: a slow logger must not hold up other requests' events.
	if dropped > 0 {
		c.report.dropping(dropped, c.cfg.MaxQueueEvents)
	}
}

func (c *Client) shiftLocked() queued {
	q := c.queue[c.head]
	c.queue[c.head] = queued{}
	c.head++
	c.queueBytes -= len(q.json)
	// Compact once the consumed prefix dominates, so the backing array stays bounded.
	if c.head > 1024 && c.head*2 > len(c.queue) {
		c.queue = append([]queued(nil), c.queue[c.head:]...)
		c.head = 0
	}
	return q
}

func (c *Client) armTimerLocked() {
	c.timer = time.AfterFunc(c.cfg.FlushInterval, func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		c.timer = nil
		c.dueSeq = c.nextSeq - 1
		c.pumpLocked()
		if len(c.queue) > c.head && !c.closing {
			c.armTimerLocked()
		}
	})
}

// arrayBytes is the JSON array's size for count events of bytes in all: brackets and commas.
func arrayBytes(count, bytes int) int { return bytes + max(count-1, 0) + 2 }

// pumpLocked starts batches while fewer than Concurrency are in flight and one is due.
func (c *Client) pumpLocked() {
	for len(c.inFlight) < c.cfg.Concurrency && len(c.queue) > c.head {
		waiting := len(c.queue) - c.head
		head := c.queue[c.head].seq
		due := c.closing || head <= c.dueSeq || head <= c.flushSeq || waiting >= c.cfg.BatchMaxEvents ||
			arrayBytes(waiting, c.queueBytes) >= c.cfg.BatchMaxBytes
		if !due {
			return
		}
		var events [][]byte
		var chunks []*eventChunk
		size := 0
		b := &batch{minSeq: head}
		for len(events) < c.cfg.BatchMaxEvents && len(c.queue) > c.head {
			next := c.queue[c.head]
			// Always one: an event larger than BatchMaxBytes travels alone.
			if len(events) > 0 && arrayBytes(len(events)+1, size+len(next.json)) > c.cfg.BatchMaxBytes {
				break
			}
			c.shiftLocked()
			events = append(events, next.json)
			chunks = append(chunks, next.chunk)
			size += len(next.json)
		}
		c.inFlight[b] = true
		c.inFlightEvents += len(events)
		go func() {
			// The body holds the events from now on: their chunks are free for others.
			body := newBatchBody(events)
			c.mu.Lock()
			for _, ch := range chunks {
				c.arena.release(ch)
			}
			c.mu.Unlock()
			c.deliver(events, body)
			c.mu.Lock()
			defer c.mu.Unlock()
			delete(c.inFlight, b)
			c.notifyLocked()
			c.pumpLocked()
		}()
	}
}

func (c *Client) notifyLocked() {
	close(c.changed)
	c.changed = make(chan struct{})
}

func (c *Client) settle(counter *int, n int) {
	c.mu.Lock()
	*counter += n
	c.inFlightEvents -= n
	c.notifyLocked()
	c.mu.Unlock()
}

// deliver sends one batch until it is settled: stored, refused, split, or abandoned at Close;
// body (newBatchBody's, whose bytes events now are) is released at the end.
func (c *Client) deliver(events [][]byte, body *batchBody) {
	defer body.release()
	defer func() {
		if v := recover(); v != nil {
			// Written not to panic; if it ever does, the batch is given up and said, and the
			// queue goes on.
			c.settle(&c.stats.Failures, len(events))
			c.report.internal(v)
		}
	}()
	for attempt := 0; ; attempt++ {
		if c.isAbandoned() {
			c.settle(&c.stats.Dropped, len(events))
			return
		}
		a := c.post(body)
		st := decide(attempt, len(events), a, rand.Float64(), time.Now(), c.cfg.RetryInitialDelay, c.cfg.RetryMaxDelay)
		switch {
		case st.Split:
			half := (len(events) + 1) / 2
			c.deliver(events[:half], newBatchBody(events[:half]))
			c.deliver(events[half:], newBatchBody(events[half:]))
			return
		case st.Settle != unsettled:
			c.settled(st.Settle, events, a)
			return
		}
		reason := a.Network
		if reason == "" {
			reason = fmt.Sprintf("%d %s", a.Status, http.StatusText(a.Status))
		}
		c.mu.Lock()
		c.stats.Retries++
		pending, wake := len(c.queue)-c.head+c.inFlightEvents, c.wake
		c.mu.Unlock()
		c.report.unreachable(reason, pending, c.cfg.MaxQueueEvents)
		timer := time.NewTimer(st.RetryIn)
		select {
		case <-timer.C:
		case <-wake:
			timer.Stop()
		case <-c.attempts.Done():
			timer.Stop()
		}
	}
}

func (c *Client) isAbandoned() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.abandoned
}

func (c *Client) settled(s settlement, events [][]byte, a answer) {
	n := len(events)
	switch s {
	case settleSent:
		counts := countAnswer(a.Body)
		refused := min(counts.rejected, n)
		replays := min(counts.replayed, n-refused)
		c.mu.Lock()
		c.stats.Replayed += replays
		// The server answered 2xx for the batch: whatever it did not list as refused it stored.
		c.stats.Sent += n - refused - replays
		c.stats.Rejected += refused
		c.inFlightEvents -= n
		dropped := c.stats.Dropped
		c.notifyLocked()
		c.mu.Unlock()
		if refused > 0 {
			c.report.rejected(refused, a.Status)
		}
		c.report.delivered(dropped)
	case settleRejected:
		c.settle(&c.stats.Rejected, n)
		c.report.rejected(n, a.Status)
	default:
		c.settle(&c.stats.Failures, n)
		switch a.Status {
		case 401, 403:
			c.report.auth(a.Status, n)
		case 413:
			c.report.failed(ProblemTooLarge, n, 413, c.batchURL+" refused an event as too large (413); it is dropped")
		default:
			c.report.failed(ProblemFailed, n, a.Status, fmt.Sprintf("%s answered %d: events are not being "+
				"recorded; is Endpoint watchlog's base URL?", c.batchURL, a.Status))
		}
	}
}

// lowestUnsettledLocked is the oldest sequence number queued or in flight; nextSeq when none.
func (c *Client) lowestUnsettledLocked() uint64 {
	lowest := c.nextSeq
	if len(c.queue) > c.head {
		lowest = c.queue[c.head].seq
	}
	for b := range c.inFlight {
		lowest = min(lowest, b.minSeq)
	}
	return lowest
}

// waitFor waits until done (checked under the lock) holds, or ctx ends.
func (c *Client) waitFor(ctx context.Context, done func() bool) error {
	for {
		c.mu.Lock()
		if done() {
			c.mu.Unlock()
			return nil
		}
		changed := c.changed
		c.mu.Unlock()
		select {
		case <-changed:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// Flush sends everything queued so far without waiting for the timer, and returns once those
// events are settled (nil), or ctx's error when it ends first (they stay queued).
func (c *Client) Flush(ctx context.Context) error {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	target := c.nextSeq - 1
	c.flushSeq = max(c.flushSeq, target)
	c.pumpLocked()
	c.mu.Unlock()
	return c.waitFor(ctx, func() bool { return c.lowestUnsettledLocked() > target })
}

// Close stops the timer, sends everything queued at once (a batch waiting for a backoff is
// retried immediately) and returns the final Stats once all is settled; when ctx ends first,
// what is still unsent is counted as dropped and ctx's error is returned with the Stats. Events
// recorded after Close are dropped. It may be called more than once.
func (c *Client) Close(ctx context.Context) (Stats, error) {
	if c == nil {
		return Stats{}, nil
	}
	var err error
	c.closeOnce.Do(func() {
		c.mu.Lock()
		c.closing = true
		if c.timer != nil {
			c.timer.Stop()
			c.timer = nil
		}
		close(c.wake)
		c.wake = make(chan struct{})
		c.pumpLocked()
		c.mu.Unlock()
		err = c.waitFor(ctx, func() bool { return len(c.queue) == c.head && len(c.inFlight) == 0 })
		c.mu.Lock()
		c.closed = true
		if err != nil {
			c.abandoned = true
			c.stats.Dropped += len(c.queue) - c.head
			c.queue, c.head, c.queueBytes, c.arena = nil, 0, 0, eventArena{}
			c.notifyLocked()
		}
		c.mu.Unlock()
		if err != nil {
			c.abort()
			grace, cancel := context.WithTimeout(context.Background(), time.Second)
			_ = c.waitFor(grace, func() bool { return len(c.inFlight) == 0 })
			cancel()
		}
		c.abort()
		c.http.CloseIdleConnections()
		c.closeStats = c.Stats()
	})
	return c.closeStats, err
}

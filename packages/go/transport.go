package watchlog

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
)

// maxAnswerBytes: the answers are small (an id per event); anything larger is not read.
const maxAnswerBytes = 4 * mib

// batchBodies holds the bytes of batches sent, for the next batches: a batch is as large as its
// events (a few hundred kB), and making one each time was as much garbage again as the events.
var batchBodies sync.Pool

// batchBody is a batch as sent, a JSON array of its events, for every attempt.
type batchBody struct {
	bytes *[]byte
	// open counts the attempts whose request body the transport has not closed yet: until it
	// has, it may still read the bytes, and they are not given to another batch.
	open atomic.Int32
}

// newBatchBody copies events into a body, and points each of them at its copy there.
func newBatchBody(events [][]byte) *batchBody {
	p, _ := batchBodies.Get().(*[]byte)
	if p == nil {
		p = new([]byte)
	}
	size := 1
	for _, e := range events {
		size += len(e) + 1
	}
	b := slices.Grow((*p)[:0], size)
	b = append(b, '[')
	for i, e := range events {
		if i > 0 {
			b = append(b, ',')
		}
		start := len(b)
		b = append(b, e...)
		events[i] = b[start:len(b):len(b)]
	}
	*p = append(b, ']')
	return &batchBody{bytes: p}
}

// release gives the bytes back once the batch is settled, unless an attempt may still read them.
func (b *batchBody) release() {
	if b.open.Load() == 0 {
		batchBodies.Put(b.bytes)
	}
}

// attemptBody is one attempt's request body over the batch's bytes.
type attemptBody struct {
	bytes.Reader
	batch *batchBody
	once  sync.Once
}

func (a *attemptBody) Close() error {
	a.once.Do(func() { a.batch.open.Add(-1) })
	return nil
}

// post is one delivery attempt with its own deadline; it never fails, a failure is its answer.
func (c *Client) post(batch *batchBody) answer {
	ctx, cancel := context.WithTimeout(c.attempts, c.cfg.RequestTimeout)
	defer cancel()
	body := &attemptBody{batch: batch}
	body.Reset(*batch.bytes)
	batch.open.Add(1)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.batchURL, body)
	if err != nil {
		_ = body.Close()
		return answer{Network: err.Error()}
	}
	// Sent with its length, not chunked, as a bytes.Reader would be.
	req.ContentLength = int64(body.Len())
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-API-Key", c.cfg.APIKey)
	req.Header.Set("User-Agent", "watchlog-go")
	res, err := c.http.Do(req)
	if err != nil {
		return answer{Network: err.Error()}
	}
	defer res.Body.Close()
	text, err := io.ReadAll(io.LimitReader(res.Body, maxAnswerBytes))
	if err != nil {
		// Cut off mid-answer: whether the events were stored is unknown; the retry's idempotency
		// keys will tell.
		return answer{Network: "connection closed during the answer: " + err.Error()}
	}
	return answer{Status: res.StatusCode, RetryAfter: res.Header.Get("Retry-After"), Body: text}
}

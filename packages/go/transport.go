package watchlog

import (
	"bytes"
	"context"
	"io"
	"net/http"
)

// maxAnswerBytes: the answers are small (an id per event); anything larger is not read.
const maxAnswerBytes = 4 * mib

// post is one delivery attempt with its own deadline; it never fails, a failure is its answer.
func (c *Client) post(body []byte) answer {
	ctx, cancel := context.WithTimeout(c.attempts, c.cfg.RequestTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.batchURL, bytes.NewReader(body))
	if err != nil {
		return answer{Network: err.Error()}
	}
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

package watchlog

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// receiver plays watchlog's batch endpoint on 127.0.0.1: it keeps what it stores (once per
// idempotency key, as watchlog does) and can be told how to answer the next attempts.
type receiver struct {
	mu       sync.Mutex
	events   []map[string]any
	keys     map[string]bool
	attempts int
	script   []func(w http.ResponseWriter) bool // true: answered, nothing stored
	url      string
}

func startReceiver(t *testing.T) *receiver {
	t.Helper()
	rc := &receiver{keys: map[string]bool{}}
	srv := httptest.NewServer(http.HandlerFunc(rc.serve))
	t.Cleanup(srv.Close)
	rc.url = srv.URL
	return rc
}

func (rc *receiver) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	rc.mu.Lock()
	rc.attempts++
	var next func(http.ResponseWriter) bool
	if len(rc.script) > 0 {
		next, rc.script = rc.script[0], rc.script[1:]
	}
	rc.mu.Unlock()
	if next != nil && next(w) {
		return
	}
	if r.Header.Get("X-API-Key") != "key-1" {
		w.WriteHeader(401)
		return
	}
	if r.ContentLength != int64(len(body)) {
		// A batch is sent with its length, never chunked.
		w.WriteHeader(http.StatusLengthRequired)
		return
	}
	var batch []map[string]any
	if r.URL.Path != "/v1/audit/batch" || json.Unmarshal(body, &batch) != nil {
		w.WriteHeader(400)
		return
	}
	rc.mu.Lock()
	for _, e := range batch {
		if k, _ := e["idempotency_key"].(string); !rc.keys[k] {
			rc.keys[k] = true
			rc.events = append(rc.events, e)
		}
	}
	rc.mu.Unlock()
	w.WriteHeader(202)
	_, _ = io.WriteString(w, `{"accepted":[],"rejected":[]}`)
}

// then queues answers for the next attempts.
func (rc *receiver) then(answers ...func(w http.ResponseWriter) bool) {
	rc.mu.Lock()
	rc.script = append(rc.script, answers...)
	rc.mu.Unlock()
}

func status(code int, headers ...string) func(w http.ResponseWriter) bool {
	return func(w http.ResponseWriter) bool {
		for i := 0; i+1 < len(headers); i += 2 {
			w.Header().Set(headers[i], headers[i+1])
		}
		w.WriteHeader(code)
		return true
	}
}

func (rc *receiver) stored() []map[string]any {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]map[string]any(nil), rc.events...)
}

func (rc *receiver) byRequestID(id string) map[string]any {
	for _, e := range rc.stored() {
		if e["request_id"] == id {
			return e
		}
	}
	return nil
}

// testClient is a client of rc with short delays; logs go to the returned lines.
func testClient(t *testing.T, rc *receiver, edit func(*Config)) (*Client, *logLines) {
	t.Helper()
	logs := &logLines{}
	cfg := Config{Endpoint: rc.url, APIKey: "key-1", ServiceName: "shop", Environment: "development",
		FlushInterval: 10 * time.Millisecond, RetryInitialDelay: 10 * time.Millisecond,
		RetryMaxDelay: 50 * time.Millisecond, Logger: slog.New(logs)}
	if edit != nil {
		edit(&cfg)
	}
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c, logs
}

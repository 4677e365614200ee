// Package watchlogtest stands in for watchlog's batch endpoint in the tests of an application
// that uses the SDK (and of the SDK's router adapters): it keeps every event it is sent, by
// request id, and answers as watchlog does when it takes them all.
package watchlogtest

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// Receiver is a local `POST /v1/audit/batch`; its URL is the SDK's Endpoint.
type Receiver struct {
	URL    string
	mu     sync.Mutex
	events map[string]map[string]any
}

// NewReceiver starts a receiver on 127.0.0.1, closed when the test ends.
func NewReceiver(t testing.TB) *Receiver {
	rc := &Receiver{events: map[string]map[string]any{}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var batch []map[string]any
		if r.URL.Path != "/v1/audit/batch" || json.NewDecoder(r.Body).Decode(&batch) != nil {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		rc.mu.Lock()
		for _, e := range batch {
			if id, ok := e["request_id"].(string); ok {
				rc.events[id] = e
			}
		}
		rc.mu.Unlock()
		w.WriteHeader(http.StatusAccepted)
		_, _ = io.WriteString(w, `{"accepted":[],"rejected":[]}`)
	}))
	t.Cleanup(srv.Close)
	rc.URL = srv.URL
	return rc
}

// Event is the event last sent with this request id, or nil.
func (rc *Receiver) Event(requestID string) map[string]any {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return rc.events[requestID]
}

// Call sends a request (with X-Request-ID when requestID is set, and a JSON body when body is)
// and reads its answer whole.
func Call(t testing.TB, method, url, requestID, body string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if requestID != "" {
		req.Header.Set("X-Request-ID", requestID)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, res.Body)
	res.Body.Close()
	return res
}

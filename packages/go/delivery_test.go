package watchlog

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"
)

func record(c *Client, n int, path string) {
	for i := 0; i < n; i++ {
		ev := buildEvent(&c.mapping, &requestInfo{URL: path}, &responseInfo{Status: 200, Completed: true},
			nil, "GET", newUUID(), 1)
		c.enqueue(&ev)
	}
}

// 503 with Retry-After, then a reset: retried with the same bytes and stored once each; 413
// halves the batch until it fits.
func TestRetriesAndSplits(t *testing.T) {
	rc := startReceiver(t)
	c, logs := testClient(t, rc, func(cfg *Config) { cfg.BatchMaxEvents = 4; cfg.Concurrency = 1 })
	reset := func(w http.ResponseWriter) bool {
		conn, _, _ := http.NewResponseController(w).Hijack()
		conn.Close()
		return true
	}
	rc.then(status(503, "Retry-After", "1"), reset, status(413))
	started := time.Now()
	record(c, 4, "/a")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if waited := time.Since(started); waited < time.Second {
		t.Errorf("Retry-After: 1 not honoured (%v)", waited)
	}
	st := closeClient(t, c)
	if st.Sent != 4 || st.Retries != 2 || len(rc.stored()) != 4 || rc.attempts != 5 {
		t.Fatalf("%+v, %d stored in %d attempts", st, len(rc.stored()), rc.attempts)
	}
	if len(logs.matching("cannot deliver")) != 1 || len(logs.matching("again after")) != 1 {
		t.Errorf("log %q", logs.lines)
	}
}

// 401 is not retried: the events are failures, said once, and the host is told through OnError.
func TestUnauthorized(t *testing.T) {
	rc := startReceiver(t)
	var heard []*DeliveryError
	c, logs := testClient(t, rc, func(cfg *Config) {
		cfg.APIKey = "wrong"
		cfg.BatchMaxEvents = 2
		cfg.OnError = func(e *DeliveryError) { heard = append(heard, e) }
	})
	record(c, 6, "/a")
	st := closeClient(t, c)
	if st.Failures != 6 || st.Retries != 0 || rc.attempts != 3 {
		t.Fatalf("%+v after %d attempts", st, rc.attempts)
	}
	if len(logs.matching("refused the API key")) != 1 || len(heard) != 1 || heard[0].Problem != ProblemUnauthorized {
		t.Errorf("log %q, heard %+v", logs.lines, heard)
	}
}

// Close's deadline against a watchlog that never answers: what is unsent is dropped, and the
// queue is bounded before that.
func TestCloseDeadline(t *testing.T) {
	rc := startReceiver(t)
	hang := make(chan struct{})
	defer close(hang)
	c, logs := testClient(t, rc, func(cfg *Config) { cfg.MaxQueueEvents = 10; cfg.BatchMaxEvents = 5 })
	for i := 0; i < 4; i++ {
		rc.then(func(http.ResponseWriter) bool { <-hang; return true })
	}
	record(c, 30, "/a")
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	started := time.Now()
	st, err := c.Close(ctx)
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(started) > 2*time.Second {
		t.Fatalf("close: %v after %v", err, time.Since(started))
	}
	if st.Queued != 30 || st.Dropped != 30 || st.Pending != 0 || st.Sent != 0 {
		t.Fatalf("%+v", st)
	}
	if len(logs.matching("queue full")) != 1 {
		t.Errorf("log %q", logs.lines)
	}
	record(c, 1, "/late")
	if again, _ := c.Close(context.Background()); again.Queued != 30 || c.Stats().Dropped != 31 {
		t.Errorf("after close: %+v", c.Stats())
	}
}

func TestConfigProblems(t *testing.T) {
	_, err := New(Config{Endpoint: "ftp://x", APIKey: "bad key", Environment: "prod", BatchMaxEvents: 5000,
		RetryInitialDelay: time.Second, RetryMaxDelay: time.Millisecond})
	var ce *ConfigError
	if !errors.As(err, &ce) {
		t.Fatalf("%v", err)
	}
	named := map[string]bool{}
	for _, p := range ce.Problems {
		named[p.Option] = true
	}
	for _, o := range []string{"Endpoint", "APIKey", "ServiceName", "Environment", "BatchMaxEvents", "RetryMaxDelay"} {
		if !named[o] {
			t.Errorf("%s not named in %v", o, err)
		}
	}
	if strings.Contains(err.Error(), "bad key") {
		t.Error("the API key is echoed")
	}
	c, err := New(Config{Endpoint: "https://watchlog.example.com/base/", APIKey: "k", ServiceName: "s",
		Environment: "staging"})
	if err != nil || c.batchURL != "https://watchlog.example.com/base/v1/audit/batch" {
		t.Fatalf("%v %v", err, c)
	}
}

// Record: an event of the application's own, shaped and masked like the middleware's.
func TestRecord(t *testing.T) {
	rc := startReceiver(t)
	c, _ := testClient(t, rc, func(cfg *Config) { cfg.UnsupportedMethods = NearestMethod })
	type login struct {
		User     string `json:"user"`
		Password string `json:"password"`
	}
	c.Record(Event{Path: "jobs/nightly-export", Method: "patch", RequestID: "job-1",
		Identity: Identity{Identifier: "cron"}, RequestBody: login{"ann", "hunter2"},
		QueryParams: map[string]string{"card": "4111111111111111"}, ErrorMessage: "partial"})
	c.Record(Event{Path: "/x", Method: "OPTIONS"})
	st := closeClient(t, c)
	if st.Sent != 1 || st.SkippedMethods != 1 {
		t.Fatalf("%+v", st)
	}
	e := rc.byRequestID("job-1")
	want := `{"environment":"development","error_message":"partial","identifier":"cron",` +
		`"method":"PUT","path":"jobs/nightly-export","query_params":{"card":"************1111"},` +
		`"request_body":{"password":"********","user":"ann"},"request_id":"job-1","service_name":"shop",` +
		`"source":"backend"}`
	delete(e, "idempotency_key")
	if got := jsonOf(e); got != want {
		t.Fatalf("\n got %s\nwant %s", got, want)
	}
}

// A nil client (New failed and the error was logged) and a disabled one are no-ops.
func TestNilAndDisabledClients(t *testing.T) {
	var c *Client
	h := c.Middleware(http.NotFoundHandler())
	c.Record(Event{Path: "/x", Method: "GET"})
	if err := c.Flush(context.Background()); err != nil || c.Stats() != (Stats{}) {
		t.Fatal(err)
	}
	if _, err := c.Close(context.Background()); err != nil || h == nil {
		t.Fatal(err)
	}
	rc := startReceiver(t)
	d, _ := testClient(t, rc, func(cfg *Config) { cfg.Disabled = true })
	d.Record(Event{Path: "/x", Method: "GET"})
	if st := closeClient(t, d); st.Queued != 0 || rc.attempts != 0 {
		t.Fatalf("%+v", st)
	}
}

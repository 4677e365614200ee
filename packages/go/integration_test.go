package watchlog

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// hostApp is an application on net/http's ServeMux behind the middleware: it notes the request
// id the SDK gave each request it handled, so stored events can be held against them.
type hostApp struct {
	url     string
	mu      sync.Mutex
	handled []string
}

func startHostApp(t *testing.T, c *Client) *hostApp {
	t.Helper()
	app := &hostApp{}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /orders/{id}", func(w http.ResponseWriter, r *http.Request) {
		app.mu.Lock()
		app.handled = append(app.handled, RequestID(r))
		app.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id":%q}`, r.PathValue("id"))
	})
	srv := httptest.NewServer(c.Middleware(mux))
	t.Cleanup(srv.Close)
	app.url = srv.URL
	return app
}

func (a *hostApp) count() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.handled)
}

// drive sends amount requests over `workers` keep-alive connections at about rate per second
// in all; it returns how many were answered 200.
func drive(t *testing.T, url string, amount, workers, rate int) int {
	t.Helper()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: workers}, Timeout: 10 * time.Second}
	defer client.CloseIdleConnections()
	var next, ok atomic.Int64
	interval := time.Duration(workers) * time.Second / time.Duration(rate)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tick := time.NewTicker(interval)
			defer tick.Stop()
			for i := next.Add(1); i <= int64(amount); i = next.Add(1) {
				<-tick.C
				res, err := client.Get(fmt.Sprintf("%s/orders/%d?channel=web", url, i))
				if err != nil {
					continue
				}
				_, _ = io.Copy(io.Discard, res.Body)
				res.Body.Close()
				if res.StatusCode == 200 {
					ok.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	return int(ok.Load())
}

// Every request handled is stored exactly once across watchlog being killed and started again
// on the same data dir and port mid-load: the client keeps the events while watchlog is away
// and retries with the same idempotency keys, so an attempt whose answer died with the process
// is answered `replayed` instead of being stored twice.
func TestExactlyOnceAcrossRestart(t *testing.T) {
	const requests = 10000
	svc := startService(t, "", 0)
	token := svc.login()
	projectID, apiKey := svc.projectWithKey(token, "go-exactly-once")
	logs := &logLines{}
	c, err := New(Config{Endpoint: svc.url, APIKey: apiKey, ServiceName: "go-exactly-once", Environment: "staging",
		BatchMaxEvents: 200, FlushInterval: 50 * time.Millisecond, MaxQueueEvents: 20000,
		RetryInitialDelay: 50 * time.Millisecond, RetryMaxDelay: 500 * time.Millisecond, Logger: slog.New(logs)})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(context.Background())
	app := startHostApp(t, c)

	done := make(chan int)
	go func() { done <- drive(t, app.url, requests, 8, 2500) }()
	// A third of the way in, watchlog goes away under the load and comes back.
	for started := time.Now(); app.count() < requests/3; time.Sleep(10 * time.Millisecond) {
		if time.Since(started) > time.Minute {
			t.Fatalf("the load did not get going: %d requests handled", app.count())
		}
	}
	svc.kill()
	outageAt := app.count()
	svc = startService(t, svc.dataDir, svc.port)
	if ok := <-done; ok != requests {
		t.Fatalf("the application answered %d of %d requests", ok, requests)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := c.Flush(ctx); err != nil {
		t.Fatalf("flush: %v; %+v", err, c.Stats())
	}
	st := c.Stats()
	t.Logf("outage after %d requests; %+v; log: %q", outageAt, st, logs.lines)
	if st.Queued != requests || st.Dropped != 0 || st.Failures != 0 || st.Rejected != 0 || st.Pending != 0 {
		t.Fatalf("stats %+v", st)
	}
	if st.Sent+st.Replayed != requests || st.Retries == 0 {
		t.Fatalf("stats %+v: every event sent once, after retries", st)
	}
	if len(logs.matching("cannot deliver events")) != 1 || len(logs.matching("again after")) < 1 {
		t.Errorf("an outage is said once and its end once: %q", logs.lines)
	}

	svc.waitStored(token, projectID, requests)
	events := svc.exported(token, projectID)
	if len(events) != requests {
		t.Fatalf("exported %d events", len(events))
	}
	ids := map[string]bool{}
	for _, e := range events {
		if e.Path != "/orders/{id}" || e.Method != "GET" || e.ServiceName != "go-exactly-once" {
			t.Fatalf("event %+v", e)
		}
		ids[e.RequestID] = true
	}
	if len(ids) != requests {
		t.Fatalf("%d distinct request ids in %d events", len(ids), len(events))
	}
	app.mu.Lock()
	defer app.mu.Unlock()
	for _, id := range app.handled {
		if !ids[id] {
			t.Fatalf("request %s handled but not stored", id)
		}
	}
}

// An outage longer than the queue's bound drops the oldest queued events, counts them, says so
// once, and says how many when delivery works again; the newest events all arrive.
func TestOutageLongerThanTheQueueDropsTheOldest(t *testing.T) {
	const before, during, bound = 50, 1000, 300
	svc := startService(t, "", 0)
	token := svc.login()
	projectID, apiKey := svc.projectWithKey(token, "go-outage")
	logs := &logLines{}
	c, err := New(Config{Endpoint: svc.url, APIKey: apiKey, ServiceName: "go-outage", Environment: "staging",
		BatchMaxEvents: 100, FlushInterval: 20 * time.Millisecond, MaxQueueEvents: bound,
		RetryInitialDelay: 20 * time.Millisecond, RetryMaxDelay: 200 * time.Millisecond, Logger: slog.New(logs)})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(context.Background())
	app := startHostApp(t, c)
	if ok := drive(t, app.url, before, 2, 1000); ok != before {
		t.Fatalf("answered %d", ok)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := c.Flush(ctx); err != nil {
		t.Fatal(err)
	}

	svc.kill()
	if ok := drive(t, app.url, during, 4, 4000); ok != during {
		t.Fatalf("answered %d during the outage", ok)
	}
	mid := c.Stats()
	svc = startService(t, svc.dataDir, svc.port)
	if err := c.Flush(ctx); err != nil {
		t.Fatalf("flush: %v; %+v", err, c.Stats())
	}
	st := c.Stats()
	t.Logf("during the outage %+v; after %+v; log %q", mid, st, logs.lines)
	// At most the bound waits in the queue, and at most Concurrency batches are in flight.
	if min := during - bound - 2*100; st.Dropped < min {
		t.Fatalf("dropped %d, want at least %d", st.Dropped, min)
	}
	if st.Queued != before+during || st.Failures != 0 || st.Rejected != 0 || st.Pending != 0 ||
		st.Sent+st.Replayed+st.Dropped != st.Queued {
		t.Fatalf("stats %+v", st)
	}
	if got := logs.matching("queue full"); len(got) != 1 {
		t.Fatalf("dropping said %d times: %q", len(got), logs.lines)
	}
	if got := logs.matching(fmt.Sprintf("%d event(s) dropped meanwhile", st.Dropped)); len(got) != 1 {
		t.Fatalf("no line with the number dropped (%d): %q", st.Dropped, logs.lines)
	}
	stored := st.Queued - st.Dropped
	svc.waitStored(token, projectID, stored)
	ids := map[string]bool{}
	for _, e := range svc.exported(token, projectID) {
		ids[e.RequestID] = true
	}
	app.mu.Lock()
	defer app.mu.Unlock()
	// The newest `bound` requests (in the order they were handled) all arrived.
	newest := append([]string(nil), app.handled[len(app.handled)-bound:]...)
	sort.Strings(newest)
	for _, id := range newest {
		if !ids[id] {
			t.Fatalf("a request among the newest %d was dropped (%s); stored %d", bound, id, len(ids))
		}
	}
	if !strings.Contains(strings.Join(logs.lines, "\n"), "cannot deliver events") {
		t.Errorf("the outage was not said: %q", logs.lines)
	}
}

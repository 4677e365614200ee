package watchlog

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func get(t *testing.T, url string, headers ...string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	return res, string(body)
}

func closeClient(t *testing.T, c *Client) Stats {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	st, err := c.Close(ctx)
	if err != nil {
		t.Fatalf("close: %v %+v", err, st)
	}
	return st
}

func jsonOf(v any) string { b, _ := json.Marshal(v); return string(b) }

// The route template and wildcards come from ServeMux's pattern, also through a middleware that
// copies the request (with CapturePattern); the host's answer is what it wrote, plus a
// generated X-Request-ID and nothing else; Flush and ResponseController reach net/http's writer.
func TestServeMuxRoutesAndTheHostsAnswer(t *testing.T) {
	rc := startReceiver(t)
	c, _ := testClient(t, rc, func(cfg *Config) { cfg.CaptureResponseBody = true })
	mux := http.NewServeMux()
	mux.HandleFunc("GET /shops/{shop}/files/{path...}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(201)
		_, _ = io.WriteString(w, `{"a": 1, `)
		w.(http.Flusher).Flush()
		if err := http.NewResponseController(w).SetWriteDeadline(time.Now().Add(time.Second)); err != nil {
			t.Errorf("ResponseController: %v", err)
		}
		_, _ = io.WriteString(w, `"password": "x"}`)
	})
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {})
	// A middleware between the SDK and the mux passes a copy of the request on.
	copying := func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			h.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), struct{}{}, 1)))
		})
	}
	app := httptest.NewServer(c.Middleware(copying(CapturePattern(mux))))
	defer app.Close()

	res, body := get(t, app.URL+"/shops/7/files/a/b.txt?x=1&x=2&y=%zz;z")
	if res.StatusCode != 201 || body != `{"a": 1, "password": "x"}` {
		t.Fatalf("the host's answer changed: %d %q", res.StatusCode, body)
	}
	id := res.Header.Get("X-Request-ID")
	get(t, app.URL+"/", "X-Request-ID", "given-1")
	res, _ = get(t, app.URL+"/nowhere")
	missing := res.Header.Get("X-Request-ID")
	if st := closeClient(t, c); st.Sent != 3 {
		t.Fatalf("%+v", st)
	}
	e := rc.byRequestID(id)
	if e == nil {
		t.Fatalf("no event for %q in %v", id, rc.stored())
	}
	for field, want := range map[string]string{
		"path":          `"/shops/{shop}/files/{path...}"`,
		"path_params":   `{"path":"a/b.txt","shop":"7"}`,
		"query_params":  `{"x":["1","2"],"y":"%zz;z"}`,
		"status_code":   `201`,
		"response_body": `{"a":1,"password":"********"}`,
		"ip":            `"127.0.0.1"`,
	} {
		if got := jsonOf(e[field]); got != want {
			t.Errorf("%s: %s, want %s", field, got, want)
		}
	}
	if e := rc.byRequestID("given-1"); e == nil || e["path"] != "/" || e["status_code"] != 200.0 {
		t.Errorf("root: %v", e)
	}
	if e := rc.byRequestID(missing); e == nil || e["path"] != "/nowhere" || e["status_code"] != 404.0 ||
		e["path_params"] != nil {
		t.Errorf("404: %v", e)
	}
}

// A handler's panic goes on to the host's recovery unchanged, and the request is recorded
// with the panic's message; Identify panicking records anonymous and is said once.
func TestPanicsPassThrough(t *testing.T) {
	rc := startReceiver(t)
	c, logs := testClient(t, rc, func(cfg *Config) {
		cfg.Identify = func(r *http.Request) Identity {
			if r.URL.Path == "/who" {
				panic("no user")
			}
			return Identity{Identifier: "u-1"}
		}
	})
	var recovered any
	recovery := func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			defer func() {
				if recovered = recover(); recovered != nil {
					w.WriteHeader(503)
				}
			}()
			h.ServeHTTP(w, r)
		})
	}
	boom := errors.New("boom")
	app := httptest.NewServer(recovery(c.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/boom" {
			panic(boom)
		}
	}))))
	defer app.Close()
	if res, _ := get(t, app.URL+"/boom", "X-Request-ID", "p-1"); res.StatusCode != 503 || recovered != boom {
		t.Fatalf("the host's recovery saw %v and answered %d", recovered, res.StatusCode)
	}
	get(t, app.URL+"/who", "X-Request-ID", "p-2")
	get(t, app.URL+"/who", "X-Request-ID", "p-3")
	closeClient(t, c)
	if e := rc.byRequestID("p-1"); e["status_code"] != 500.0 || e["error_message"] != "boom" || e["identifier"] != "u-1" {
		t.Errorf("panic event %v", e)
	}
	if e := rc.byRequestID("p-3"); e["identifier"] != "anonymous" {
		t.Errorf("identify panic: %v", e)
	}
	if n := len(logs.matching("Identify panicked")); n != 1 {
		t.Errorf("said %d times: %q", n, logs.lines)
	}
}

// A client that leaves before any answer is recorded as 499 with the client-closed message.
func TestClientGone(t *testing.T) {
	rc := startReceiver(t)
	c, _ := testClient(t, rc, nil)
	entered := make(chan struct{})
	app := httptest.NewServer(c.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(entered)
		<-r.Context().Done()
	})))
	defer app.Close()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "POST", app.URL+"/slow", nil)
	req.Header.Set("X-Request-ID", "gone-1")
	go func() {
		<-entered
		cancel()
	}()
	if _, err := http.DefaultClient.Do(req); err == nil {
		t.Fatal("the request was not cancelled")
	}
	deadline := time.Now().Add(5 * time.Second)
	for c.Stats().Queued == 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	closeClient(t, c)
	e := rc.byRequestID("gone-1")
	if e["status_code"] != 499.0 || e["error_message"] != clientClosedMessage || e["method"] != "POST" {
		t.Fatalf("event %v", e)
	}
}

// Request bodies: what the handler read, masked; one over the cap is a marker with its size.
func TestRequestBodies(t *testing.T) {
	rc := startReceiver(t)
	c, _ := testClient(t, rc, func(cfg *Config) { cfg.CaptureRequestBody = true; cfg.MaxBodyBytes = 256 })
	app := httptest.NewServer(c.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
	})))
	defer app.Close()
	post := func(id, body string) {
		req, _ := http.NewRequest("POST", app.URL+"/in", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json; charset=utf-8")
		req.Header.Set("X-Request-ID", id)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
	}
	post("b-1", `{ "card": "4111 1111 1111 1111", "token": "t" }`)
	post("b-2", fmt.Sprintf(`{"note":%q}`, strings.Repeat("é", 200)))
	post("b-3", `[1, 2]`)
	closeClient(t, c)
	if got := jsonOf(rc.byRequestID("b-1")["request_body"]); got != `{"card":"**** **** **** 1111","token":"********"}` {
		t.Errorf("b-1: %s", got)
	}
	tooLarge := `{"_watchlog_omitted":"too_large","bytes":411,"limit":256}`
	if got := jsonOf(rc.byRequestID("b-2")["request_body"]); got != tooLarge {
		t.Errorf("b-2: %s", got)
	}
	if e := rc.byRequestID("b-3"); e == nil || e["request_body"] != nil {
		t.Errorf("b-3: %v", e)
	}
}

// io.Copy into the writer keeps net/http's ReadFrom path, and a hijacked connection is the
// handler's: the SDK records both without touching what is sent.
func TestReadFromAndHijack(t *testing.T) {
	rc := startReceiver(t)
	c, _ := testClient(t, rc, nil)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /file", func(w http.ResponseWriter, r *http.Request) {
		http.ServeContent(w, r, "a.txt", time.Time{}, strings.NewReader(strings.Repeat("x", 100000)))
	})
	mux.HandleFunc("GET /upgrade", func(w http.ResponseWriter, r *http.Request) {
		conn, buf, err := http.NewResponseController(w).Hijack()
		if err != nil {
			t.Error(err)
			return
		}
		defer conn.Close()
		_, _ = buf.WriteString("HTTP/1.1 101 Switching Protocols\r\nUpgrade: x\r\nConnection: Upgrade\r\n\r\nhello")
		_ = buf.Flush()
	})
	app := httptest.NewServer(c.Middleware(mux))
	defer app.Close()
	res, body := get(t, app.URL+"/file", "Range", "bytes=10-19", "X-Request-ID", "f-1")
	if res.StatusCode != 206 || body != "xxxxxxxxxx" {
		t.Fatalf("%d %q", res.StatusCode, body)
	}
	res, _ = get(t, app.URL+"/upgrade", "X-Request-ID", "u-1")
	if res.StatusCode != 101 {
		t.Fatalf("upgrade: %d", res.StatusCode)
	}
	// The client can read a hijacked answer whole before the handler has returned.
	for deadline := time.Now().Add(5 * time.Second); c.Stats().Queued < 2 && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	closeClient(t, c)
	if e := rc.byRequestID("f-1"); e["status_code"] != 206.0 || e["path"] != "/file" {
		t.Errorf("file: %v", e)
	}
	if e := rc.byRequestID("u-1"); e["status_code"] != 101.0 || e["path"] != "/upgrade" || e["error_message"] != nil {
		t.Errorf("upgrade: %v", e)
	}
}

// Identify's request carries IdentifyTimeout's deadline: a lookup that honours it ends then, and
// the request is recorded as anonymous and said once.
func TestIdentifyTimeout(t *testing.T) {
	rc := startReceiver(t)
	c, logs := testClient(t, rc, func(cfg *Config) {
		cfg.IdentifyTimeout = 20 * time.Millisecond
		cfg.Identify = func(r *http.Request) Identity {
			if r.URL.Path == "/slow" {
				<-r.Context().Done()
			}
			return Identity{Identifier: "u-1"}
		}
	})
	app := httptest.NewServer(c.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {})))
	defer app.Close()
	start := time.Now()
	get(t, app.URL+"/slow", "X-Request-ID", "s-1")
	get(t, app.URL+"/slow", "X-Request-ID", "s-2")
	get(t, app.URL+"/quick", "X-Request-ID", "q-1")
	if took := time.Since(start); took > 5*time.Second {
		t.Fatalf("three requests took %v", took)
	}
	closeClient(t, c)
	for _, id := range []string{"s-1", "s-2"} {
		if e := rc.byRequestID(id); e["identifier"] != "anonymous" {
			t.Errorf("%s: %v", id, e)
		}
	}
	if e := rc.byRequestID("q-1"); e["identifier"] != "u-1" {
		t.Errorf("quick: %v", e)
	}
	if n := len(logs.matching("Identify took longer than IdentifyTimeout (20ms)")); n != 1 {
		t.Errorf("said %d times: %q", n, logs.lines)
	}
}

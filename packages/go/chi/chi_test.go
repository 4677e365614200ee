package watchlogchi

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/go-chi/chi/v5"
	watchlog "github.com/watchlog/watchlog/packages/go"
	"github.com/watchlog/watchlog/packages/go/watchlogtest"
)

func TestChiRouter(t *testing.T) {
	rc := watchlogtest.NewReceiver(t)
	endpoint := rc.URL
	c, err := watchlog.New(watchlog.Config{Endpoint: endpoint, APIKey: "k", ServiceName: "chi-app",
		Environment: "development", CaptureRequestBody: true, CaptureResponseBody: true,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	ok := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"ok":true,"token":"t-1"}`)
	}
	r := chi.NewRouter()
	r.Use(Middleware(c))
	r.Get("/orders/{id}", ok)
	r.Route("/api", func(r chi.Router) {
		r.Post("/users/{uid}/posts/{pid}", func(w http.ResponseWriter, r *http.Request) {
			var post map[string]any
			_ = json.NewDecoder(r.Body).Decode(&post)
			ok(w, r)
		})
	})
	admin := chi.NewRouter()
	admin.Get("/items/{item}", ok)
	r.Mount("/admin", admin)
	app := httptest.NewServer(r)
	defer app.Close()

	watchlogtest.Call(t, "GET", app.URL+"/orders/42?card=4111111111111111", "r-orders", "")
	watchlogtest.Call(t, "POST", app.URL+"/api/users/7/posts/9", "r-posts", `{"title":"x","password":"p"}`)
	watchlogtest.Call(t, "GET", app.URL+"/admin/items/lamp", "r-admin", "")
	if res := watchlogtest.Call(t, "GET", app.URL+"/nowhere/1", "r-404", ""); res.StatusCode != 404 {
		t.Fatalf("404 became %d", res.StatusCode)
	}
	watchlogtest.Call(t, "PATCH", app.URL+"/orders/1", "r-patch", "")
	res := watchlogtest.Call(t, "GET", app.URL+"/orders/1", "", "")
	generated := res.Header.Get("X-Request-ID")

	stats, err := c.Close(context.Background())
	if err != nil || stats.Sent != 5 || stats.SkippedMethods != 1 {
		t.Fatalf("close: %v %+v", err, stats)
	}
	want := map[string]string{"r-orders": "/orders/{id}", "r-posts": "/api/users/{uid}/posts/{pid}",
		"r-admin": "/admin/items/{item}", "r-404": "/nowhere/1", generated: "/orders/{id}"}
	for id, path := range want {
		e := rc.Event(id)
		if e == nil || e["path"] != path {
			t.Fatalf("%s: path %v, want %s (%v)", id, e["path"], path, e)
		}
	}
	js := func(v any) string { b, _ := json.Marshal(v); return string(b) }
	if got := js(rc.Event("r-orders")["path_params"]); got != `{"id":"42"}` {
		t.Errorf("path_params %s", got)
	}
	if got := js(rc.Event("r-orders")["query_params"]); got != `{"card":"************1111"}` {
		t.Errorf("query_params %s", got)
	}
	posts := rc.Event("r-posts")
	if got := js(posts["path_params"]); got != `{"pid":"9","uid":"7"}` {
		t.Errorf("path_params %s", got)
	}
	if got := js(posts["request_body"]); got != `{"password":"********","title":"x"}` {
		t.Errorf("request_body %s", got)
	}
	if got := js(posts["response_body"]); got != `{"ok":true,"token":"********"}` {
		t.Errorf("response_body %s", got)
	}
	if e := rc.Event("r-404"); e["status_code"] != 404.0 || e["path_params"] != nil {
		t.Errorf("404 event %v", e)
	}
}

package watchloggin

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/gin-gonic/gin"
	watchlog "github.com/watchlog/watchlog/packages/go"
	"github.com/watchlog/watchlog/packages/go/watchlogtest"
)

func TestGinEngine(t *testing.T) {
	gin.SetMode(gin.ReleaseMode)
	rc := watchlogtest.NewReceiver(t)
	endpoint := rc.URL
	c, err := watchlog.New(watchlog.Config{Endpoint: endpoint, APIKey: "k", ServiceName: "gin-app",
		Environment: "development", CaptureRequestBody: true, CaptureResponseBody: true,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	e := gin.New()
	e.Use(gin.CustomRecoveryWithWriter(io.Discard, func(c *gin.Context, _ any) { c.AbortWithStatus(500) }))
	e.Use(func(g *gin.Context) { g.Set("user", g.GetHeader("X-User")) })
	e.Use(Middleware(c, Identify(func(g *gin.Context) watchlog.Identity {
		return watchlog.Identity{Identifier: g.GetString("user"), UserRoles: []string{"buyer"}}
	})))
	e.GET("/orders/:id", func(g *gin.Context) { g.JSON(200, gin.H{"id": g.Param("id"), "secret": "s"}) })
	api := e.Group("/api")
	api.POST("/users/:uid", func(g *gin.Context) {
		var body map[string]any
		if err := g.ShouldBindJSON(&body); err != nil {
			g.Status(400)
			return
		}
		g.Status(204)
	})
	e.GET("/files/*path", func(g *gin.Context) { g.String(200, "file") })
	e.GET("/boom", func(*gin.Context) { panic("boom") })
	app := httptest.NewServer(e)
	defer app.Close()

	req, _ := http.NewRequest("GET", app.URL+"/orders/42?q=1", nil)
	req.Header.Set("X-Request-ID", "g-orders")
	req.Header.Set("X-User", "u-7")
	req.Header.Set("X-Forwarded-For", "203.0.113.9")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if string(body) != `{"id":"42","secret":"s"}` || res.StatusCode != 200 {
		t.Fatalf("the host's answer changed: %d %s", res.StatusCode, body)
	}
	if res := watchlogtest.Call(t, "POST", app.URL+"/api/users/9", "g-post", `{"name":"a","api_key":"k"}`); res.StatusCode != 204 {
		t.Fatalf("post: %d", res.StatusCode)
	}
	watchlogtest.Call(t, "GET", app.URL+"/files/a/b.txt", "g-files", "")
	if res := watchlogtest.Call(t, "GET", app.URL+"/missing", "g-404", ""); res.StatusCode != 404 {
		t.Fatalf("404 became %d", res.StatusCode)
	}
	if res := watchlogtest.Call(t, "GET", app.URL+"/boom", "g-boom", ""); res.StatusCode != 500 {
		t.Fatalf("panic answered %d", res.StatusCode)
	}

	stats, err := c.Close(context.Background())
	if err != nil || stats.Sent != 5 {
		t.Fatalf("close: %v %+v", err, stats)
	}
	js := func(v any) string { b, _ := json.Marshal(v); return string(b) }
	expect := func(id, field, want string) {
		t.Helper()
		if got := js(rc.Event(id)[field]); got != want {
			t.Errorf("%s %s: %s, want %s", id, field, got, want)
		}
	}
	expect("g-orders", "path", `"/orders/:id"`)
	expect("g-orders", "path_params", `{"id":"42"}`)
	expect("g-orders", "query_params", `{"q":"1"}`)
	expect("g-orders", "identifier", `"u-7"`)
	expect("g-orders", "ip", `"203.0.113.9"`)
	expect("g-post", "ip", `"127.0.0.1"`)
	expect("g-orders", "user_roles", `["buyer"]`)
	expect("g-orders", "response_body", `{"id":"42","secret":"********"}`)
	expect("g-post", "path", `"/api/users/:uid"`)
	expect("g-post", "status_code", `204`)
	expect("g-post", "request_body", `{"api_key":"********","name":"a"}`)
	expect("g-post", "identifier", `"anonymous"`)
	expect("g-files", "path", `"/files/*path"`)
	expect("g-files", "path_params", `{"path":"/a/b.txt"}`)
	expect("g-404", "path", `"/missing"`)
	expect("g-404", "status_code", `404`)
	expect("g-404", "path_params", `null`)
	expect("g-boom", "path", `"/boom"`)
	expect("g-boom", "status_code", `500`)
	expect("g-boom", "error_message", `"boom"`)
}

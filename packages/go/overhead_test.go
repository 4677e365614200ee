package watchlog

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
)

// The middleware's cost to a request in-process, the delivery to a local receiver included:
// go test -run '^$' -bench Overhead -cpu 1 (one P, as the SDK benchmark's app has). The
// difference of the two is what the SDK adds; npm run bench sdk measures it in a served app.

type discardWriter struct{ h http.Header }

func (d *discardWriter) Header() http.Header         { return d.h }
func (d *discardWriter) Write(b []byte) (int, error) { return len(b), nil }
func (d *discardWriter) WriteHeader(int)             {}

func benchApp() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /orders/{id}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]string{"order": r.PathValue("id")})
	})
	return mux
}

func runBench(b *testing.B, h http.Handler) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		r, _ := http.NewRequest("GET", "http://127.0.0.1/orders/42", nil)
		r.RequestURI = "/orders/42"
		r.RemoteAddr = "127.0.0.1:5555"
		r.Header.Set("User-Agent", "autocannon")
		h.ServeHTTP(&discardWriter{h: http.Header{}}, r)
	}
}

func BenchmarkOverheadBare(b *testing.B) { runBench(b, benchApp()) }

func BenchmarkOverheadSDK(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.WriteHeader(202)
		_, _ = w.Write([]byte(`{"accepted":[],"rejected":[]}`))
	}))
	defer srv.Close()
	c, err := New(Config{Endpoint: srv.URL, APIKey: "k", ServiceName: "bench", Environment: "production",
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		b.Fatal(err)
	}
	runBench(b, c.Middleware(benchApp()))
	_ = c.Flush(context.Background())
}

// The Go host of the SDK benchmark (bench/sdk-go.ts): a hello-world net/http ServeMux app, bare
// (SDK=off) or wrapped in the watchlog middleware sending to RECEIVER (SDK=on), on 127.0.0.1:PORT.
// Both variants run the same code but for the one wrapper.
package main

import (
	"context"
	"encoding/json"
	"io"
	"log"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
	"time"

	watchlog "github.com/watchlog/watchlog/packages/go"
)

// handled counts the requests the measured route answered: with the SDK on, each is one event.
var handled atomic.Int64

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

func main() {
	var wl *watchlog.Client
	if os.Getenv("SDK") == "on" {
		var err error
		wl, err = watchlog.New(watchlog.Config{
			Endpoint: os.Getenv("RECEIVER"), APIKey: "bench-key",
			ServiceName: "bench", Environment: "production",
			Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		})
		if err != nil {
			log.Fatal(err)
		}
	}

	app := http.NewServeMux()
	app.HandleFunc("GET /orders/{id}", func(w http.ResponseWriter, r *http.Request) {
		handled.Add(1)
		writeJSON(w, map[string]string{"order": r.PathValue("id")})
	})
	var measured http.Handler = app
	if wl != nil {
		measured = wl.Middleware(app)
	}

	// The bench's own routes sit outside the middleware, so reading them records nothing.
	root := http.NewServeMux()
	root.HandleFunc("GET /__cpu", func(w http.ResponseWriter, _ *http.Request) {
		var ru syscall.Rusage
		_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		micros := func(t syscall.Timeval) int64 { return t.Sec*1_000_000 + int64(t.Usec) }
		writeJSON(w, map[string]int64{"user": micros(ru.Utime), "system": micros(ru.Stime), "handled": handled.Load()})
	})
	root.HandleFunc("GET /__flush", func(w http.ResponseWriter, r *http.Request) {
		answer := map[string]any{"flushed": true, "handled": handled.Load(), "stats": nil}
		if wl != nil {
			ctx, cancel := context.WithTimeout(r.Context(), 30*time.Second)
			defer cancel()
			answer["flushed"] = wl.Flush(ctx) == nil
			s := wl.Stats()
			answer["stats"] = map[string]int{
				"queued": s.Queued, "sent": s.Sent, "replayed": s.Replayed, "rejected": s.Rejected,
				"dropped": s.Dropped, "failures": s.Failures, "retries": s.Retries, "pending": s.Pending,
			}
		}
		writeJSON(w, answer)
	})
	root.Handle("/", measured)

	srv := &http.Server{Addr: "127.0.0.1:" + os.Getenv("PORT"), Handler: root}
	go func() {
		stop := make(chan os.Signal, 1)
		signal.Notify(stop, syscall.SIGTERM)
		<-stop
		_ = srv.Close()
	}()
	if err := srv.ListenAndServe(); err != http.ErrServerClosed {
		log.Fatal(err)
	}
	if wl != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_, _ = wl.Close(ctx)
	}
}

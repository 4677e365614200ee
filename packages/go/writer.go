package watchlog

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
)

// bodyTap keeps a copy of the first bytes of a body as it passes (the handler reads the
// request's, and writes the response's): the SDK never reads or writes a byte of its own.
type bodyTap struct {
	body  io.ReadCloser // the request body; nil for a response
	limit int
	buf   []byte
	total int
	over  bool
}

func (t *bodyTap) keep(p []byte) {
	t.total += len(p)
	if t.over {
		return
	}
	if len(t.buf)+len(p) > t.limit {
		t.over = true
		return
	}
	t.buf = append(t.buf, p...)
}

func (t *bodyTap) Read(p []byte) (int, error) {
	n, err := t.body.Read(p)
	t.keep(p[:n])
	return n, err
}

func (t *bodyTap) Close() error { return t.body.Close() }

// responseWriter notes the status, whether a write failed and (with a tap) the body, passing
// everything on unchanged. Flush, Hijack and ReadFrom are passed on too, and Unwrap lets
// http.ResponseController reach the writer's other abilities (deadlines, full duplex).
type responseWriter struct {
	w        http.ResponseWriter
	status   int
	writeErr error
	hijacked bool
	tap      *bodyTap
}

func (rw *responseWriter) Header() http.Header { return rw.w.Header() }

func (rw *responseWriter) WriteHeader(code int) {
	// 1xx other than 101 are interim answers (103 Early Hints): the final status comes later.
	if rw.status == 0 && (code >= 200 || code == http.StatusSwitchingProtocols) {
		rw.status = code
	}
	rw.w.WriteHeader(code)
}

func (rw *responseWriter) Write(p []byte) (int, error) {
	if rw.status == 0 {
		rw.status = http.StatusOK
	}
	n, err := rw.w.Write(p)
	if err != nil && rw.writeErr == nil {
		rw.writeErr = err
	}
	if rw.tap != nil {
		rw.tap.keep(p[:n])
	}
	return n, err
}

func (rw *responseWriter) Unwrap() http.ResponseWriter { return rw.w }

// Flush passes on to the writer when it can flush (net/http's always can).
func (rw *responseWriter) Flush() {
	if f, ok := rw.w.(http.Flusher); ok {
		if rw.status == 0 {
			rw.status = http.StatusOK
		}
		f.Flush()
	}
}

func (rw *responseWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	h, ok := rw.w.(http.Hijacker)
	if !ok {
		return nil, nil, fmt.Errorf("watchlog: the underlying ResponseWriter cannot hijack: %w", http.ErrNotSupported)
	}
	conn, buf, err := h.Hijack()
	if err == nil {
		rw.hijacked = true
	}
	return conn, buf, err
}

// writerOnly hides ReadFrom, so io.Copy goes through Write.
type writerOnly struct{ io.Writer }

// ReadFrom keeps net/http's sendfile path when the body is not captured.
func (rw *responseWriter) ReadFrom(src io.Reader) (int64, error) {
	if rf, ok := rw.w.(io.ReaderFrom); ok && rw.tap == nil {
		if rw.status == 0 {
			rw.status = http.StatusOK
		}
		n, err := rf.ReadFrom(src)
		if err != nil && rw.writeErr == nil {
			rw.writeErr = err
		}
		return n, err
	}
	return io.Copy(writerOnly{rw}, src)
}

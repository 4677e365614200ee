package watchlog

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"
)

// RouteInfo is what a router knows once the handler returned: its route template ("" when none
// matched), the template's parameters, and optionally the status the framework sends (0: the
// status the SDK saw written, 200 when none was), the identity (nil: Identify, else
// Config.Identify) and the client's address as the framework reads it, with its trusted proxies
// ("": Config.ClientIP, or RemoteAddr's host).
type RouteInfo struct {
	Route    string
	Params   map[string]string
	Status   int
	Identity *Identity
	// Identify stands for Config.Identify for this request (a framework's own hook), held to
	// IdentifyTimeout and its panics caught alike.
	Identify func(r *http.Request) Identity
	IP       string
}

// RouteFunc reads RouteInfo from the request after the handler returned; adapters for routers
// other than http.ServeMux supply one.
type RouteFunc func(r *http.Request) RouteInfo

type ctxKey struct{}

// exchange is one request being recorded. It is also the context the handler's request carries
// (the request's own, plus itself under ctxKey) and holds the response writer the handler
// writes through: one allocation a request for all three.
type exchange struct {
	context.Context
	rw        responseWriter
	start     time.Time
	method    string
	requestID string
	idHeader  [1]string
	// Set by CapturePattern or SetRoute from inside the handler chain.
	route  string
	params []pathParam
	// Room for a route's parameters without an allocation of their own.
	paramBuf  [2]pathParam
	routeSet  bool
	panicked  bool
	panicText string
}

// Value answers the exchange itself under ctxKey, and the request's context for every other key.
func (x *exchange) Value(key any) any {
	if _, ok := key.(ctxKey); ok {
		return x
	}
	return x.Context.Value(key)
}

func exchangeOf(r *http.Request) *exchange {
	x, _ := r.Context().Value(ctxKey{}).(*exchange)
	return x
}

// RequestID is the request id the middleware chose for r (X-Request-ID, the traceparent's trace
// id, or a generated one); "" when the request is not recorded.
func RequestID(r *http.Request) string {
	if x := exchangeOf(r); x != nil {
		return x.requestID
	}
	return ""
}

// SetRoute tells the middleware the route template and its parameters, for routers it has no
// adapter for; call it from a handler (or a middleware inside the router).
func SetRoute(r *http.Request, route string, params map[string]string) {
	if x := exchangeOf(r); x != nil {
		x.route, x.params, x.routeSet = route, paramsOf(params), true
	}
}

// CapturePattern wraps an http.ServeMux (or any handler that sets Request.Pattern) so the
// middleware learns the pattern even when middlewares between the two pass a copy of the
// request on (r.WithContext): ServeMux sets Pattern on the request it is given, and only that
// copy's holder can read it back.
func CapturePattern(mux http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mux.ServeHTTP(w, r)
		if x := exchangeOf(r); x != nil && r.Pattern != "" {
			x.route, x.params = patternRoute(r, x.paramBuf[:0])
			x.routeSet = true
		}
	})
}

// patternRoute reads the route template and the wildcards' values of a request ServeMux routed:
// "GET example.com/orders/{id}/{rest...}" gives "/orders/{id}/{rest...}" and {id, rest}, the
// latter appended to params.
func patternRoute(r *http.Request, params []pathParam) (string, []pathParam) {
	p := r.Pattern
	if i := strings.IndexAny(p, " \t"); i >= 0 {
		p = strings.TrimLeft(p[i:], " \t")
	}
	if i := strings.IndexByte(p, '/'); i > 0 {
		p = p[i:]
	}
	// {$} only anchors the end of the path: the template is the path it matches.
	p = strings.TrimSuffix(p, "{$}")
	for rest := p; ; {
		i := strings.IndexByte(rest, '{')
		if i < 0 {
			break
		}
		j := strings.IndexByte(rest[i:], '}')
		if j < 0 {
			break
		}
		name := strings.TrimSuffix(rest[i+1:i+j], "...")
		params = append(params, pathParam{name, r.PathValue(name)})
		rest = rest[i+j+1:]
	}
	return p, params
}

// Middleware records every request next handles. Wrap an http.ServeMux with it: the route
// template is the mux's Request.Pattern (Go 1.22 patterns), path_params its wildcards. Put it
// outermost; when middlewares between it and the mux copy the request, wrap the mux in
// CapturePattern as well.
func (c *Client) Middleware(next http.Handler) http.Handler {
	return c.Wrap(next, nil)
}

// Wrap is Middleware with a router's own RouteFunc (nil: ServeMux's pattern).
func (c *Client) Wrap(next http.Handler, route RouteFunc) http.Handler {
	if c == nil || c.cfg.Disabled {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		x := c.begin(w, r)
		if x == nil {
			next.ServeHTTP(w, r)
			return
		}
		x.Context = r.Context()
		r2 := r.WithContext(x)
		rw := &x.rw
		rw.w = w
		var reqTap *bodyTap
		if c.cfg.CaptureRequestBody && r.Body != nil && r.Body != http.NoBody && isJSON(r.Header) {
			reqTap = &bodyTap{body: r.Body, limit: 2 * c.cfg.MaxBodyBytes}
			r2.Body = reqTap
		}
		if c.cfg.CaptureResponseBody {
			rw.tap = &bodyTap{limit: 2 * c.cfg.MaxBodyBytes}
		}
		defer func() {
			if v := recover(); v != nil {
				x.panicked = true
				x.panicText = panicMessage(v)
				c.finish(x, r2, rw, reqTap, route)
				// The host's panic goes on as it was: its recovery, or net/http's.
				panic(v)
			}
		}()
		next.ServeHTTP(rw, r2)
		c.finish(x, r2, rw, reqTap, route)
	})
}

// panicMessage is the panic's error message or printed value; an Error method that panics
// itself must not replace the host's panic with another.
func panicMessage(v any) (msg string) {
	defer func() {
		if recover() != nil {
			msg = "panic"
		}
	}()
	if err, ok := v.(error); ok {
		return err.Error()
	}
	return fmt.Sprint(v)
}

// begin starts timing a request; nil when its method is skipped (or the SDK failed).
func (c *Client) begin(w http.ResponseWriter, r *http.Request) (x *exchange) {
	defer func() {
		if v := recover(); v != nil {
			c.report.internal(v)
			x = nil
		}
	}()
	start := time.Now()
	method := methodFor(c.cfg.UnsupportedMethods, r.Method)
	if method == "" {
		c.skippedMethod()
		return nil
	}
	// The canonical keys, read without canonicalising them on each request.
	x = &exchange{start: start, method: method}
	x.requestID = incomingRequestID(firstValue(r.Header["X-Request-Id"]), firstValue(r.Header["Traceparent"]))
	if x.requestID == "" {
		x.requestID = newUUID()
		if !c.cfg.DisableRequestIDHeader {
			// The canonical key as Header.Set would make it, without making it each time; its
			// value held by the exchange, without an allocation of its own.
			x.idHeader[0] = x.requestID
			w.Header()["X-Request-Id"] = x.idHeader[:]
		}
	}
	return x
}

func firstValue(values []string) string {
	if len(values) == 0 {
		return ""
	}
	return values[0]
}

func isJSON(h http.Header) bool {
	ct := strings.ToLower(h.Get("Content-Type"))
	return strings.Contains(ct, "application/json") || strings.Contains(ct, "+json")
}

func clientIP(r *http.Request) string {
	if host, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
		return host
	}
	return r.RemoteAddr
}

// finish builds the event and queues it; nothing here may reach the host.
func (c *Client) finish(x *exchange, r *http.Request, rw *responseWriter, reqTap *bodyTap, route RouteFunc) {
	defer func() {
		if v := recover(); v != nil {
			c.report.internal(v)
		}
	}()
	elapsed := time.Since(x.start).Milliseconds()
	var info RouteInfo
	var params []pathParam
	switch {
	case route != nil:
		info = route(r)
		params = paramsOf(info.Params)
	case x.routeSet:
		info.Route, params = x.route, x.params
	case r.Pattern != "":
		info.Route, params = patternRoute(r, x.paramBuf[:0])
	}
	if x.routeSet && info.Route == "" {
		info.Route, params = x.route, x.params
	}
	// The client is gone when a write failed or the server cancelled the request's context
	// before the handler returned (it cancels it when the connection closes).
	// A hijacked connection is the handler's: whatever happens on it is not the SDK's to judge.
	completed := rw.hijacked || rw.writeErr == nil && r.Context().Err() == nil
	status := rw.status
	switch {
	case x.panicked && status == 0:
		// Nothing was sent: the host's recovery (or net/http, closing the connection) answers.
		status = http.StatusInternalServerError
	case info.Status != 0:
		status = info.Status
	}
	if rw.hijacked && status == 0 {
		// The handler answered on the connection itself, in practice to switch protocols.
		status = http.StatusSwitchingProtocols
	}
	if status == 0 && completed {
		// net/http answers 200 for a handler that wrote nothing.
		status = http.StatusOK
	}
	req := &requestInfo{Method: r.Method, Route: info.Route, URL: requestTarget(r), UserAgent: r.UserAgent(),
		PathParams: params}
	switch {
	case c.cfg.ClientIP != nil:
		req.IP = c.cfg.ClientIP(r)
	case info.IP != "":
		req.IP = info.IP
	default:
		req.IP = clientIP(r)
	}
	if reqTap != nil {
		req.Body = reqTap.value()
	}
	res := &responseInfo{Status: status, Completed: completed, Err: x.panicText, HasErr: x.panicked}
	if rw.tap != nil && isJSON(rw.Header()) {
		res.Body = rw.tap.value()
	}
	id := info.Identity
	if id == nil && info.Identify != nil {
		id = c.identify(r, info.Identify)
	} else if id == nil && c.cfg.Identify != nil {
		id = c.identify(r, c.cfg.Identify)
	}
	ev := buildEvent(&c.mapping, req, res, id, x.method, x.requestID, elapsed)
	c.enqueue(&ev)
}

func (c *Client) identify(r *http.Request, identify func(*http.Request) Identity) (id *Identity) {
	ctx, cancel := context.WithTimeout(r.Context(), c.cfg.IdentifyTimeout)
	defer cancel()
	defer func() {
		if v := recover(); v != nil {
			c.report.identifyFailed(fmt.Sprintf("Identify panicked (%v)", v))
			id = nil
		}
	}()
	got := identify(r.WithContext(ctx))
	if ctx.Err() == context.DeadlineExceeded {
		c.report.identifyFailed(fmt.Sprintf("Identify took longer than IdentifyTimeout (%v)", c.cfg.IdentifyTimeout))
		return nil
	}
	return &got
}

// requestTarget is the path and query as on the request line.
func requestTarget(r *http.Request) string {
	if strings.HasPrefix(r.RequestURI, "/") {
		return r.RequestURI
	}
	return r.URL.RequestURI()
}

// tooLarge stands for a captured body past the tap's limit: its size is what was read.
type tooLarge struct{ bytes int }

// value is the captured JSON: a decoded value, tooLarge, or nil when it is no JSON (or was not
// read whole).
func (t *bodyTap) value() any {
	if t.over {
		if first := strings.TrimLeft(string(t.buf[:min(len(t.buf), 64)]), " \t\r\n"); strings.HasPrefix(first, "{") {
			return tooLarge{t.total}
		}
		return nil
	}
	var v any
	if json.Unmarshal(t.buf, &v) != nil {
		return nil
	}
	return v
}

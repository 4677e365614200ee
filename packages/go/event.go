package watchlog

import (
	"encoding/binary"
	"math/rand/v2"
	"slices"
	"strings"
)

// Limits the server enforces (SPEC 2.1 and 8), in UTF-16 units as it counts them; the SDK shapes
// every event to fit, because an event the server refuses is lost.
const (
	maxPath        = 255
	maxIdentifier  = 100
	maxServiceName = 255
	maxUserEmail   = 320
	maxIP          = 64
	maxRequestID   = 255
	maxSessionID   = 255
	// Not limited by the server; capped so one hostile header cannot bloat every batch.
	maxUserAgent    = 512
	maxErrorMessage = 1000
	// The batch nests events one level inside its array and the server refuses a body nested
	// deeper than 32 levels as a whole: an object past this depth would take its batch down.
	maxObjectDepth = 20
)

const clientClosedMessage = "client closed the connection before the response was complete"

// statusClientClosed is recorded when the client left before any response was sent (nginx's
// convention): there was no status, and 200 would be a lie.
const statusClientClosed = 499

// omittedKey marks an object that could not be sent as it is.
const omittedKey = "_watchlog_omitted"

// wireEvent is the audit event as sent (SPEC 2.1), with its idempotency key; appendEvent writes
// it, the fields in this order, the empty ones left out (but identifier, service_name,
// environment and source, always sent, and a response time of 0).
type wireEvent struct {
	Path            string
	Method          string
	StatusCode      int // left out when 0
	ResponseTime    int64
	HasResponseTime bool
	Identifier      string
	ServiceName     string
	Environment     string
	UserEmail       string
	UserName        string
	UserRoles       *[]string // nil is left out; an empty list is sent as []
	UserType        string
	TenantID        string
	SessionID       string
	IP              string
	UserAgent       string
	RequestID       string
	QueryParams     any
	PathParams      any
	RequestBody     any
	ResponseBody    any
	ErrorMessage    string
	Source          string
	IdempotencyKey  string
}

// MarshalJSON is appendEvent's output: what is sent.
func (e wireEvent) MarshalJSON() ([]byte, error) { return appendEvent(nil, &e) }

// Identity is who made a request, as the application knows it; the field names are the
// event's. Empty fields are left out; an empty Identifier becomes Config.AnonymousIdentifier.
type Identity struct {
	Identifier string
	UserEmail  string
	UserName   string
	// UserRoles: nil is left out; an empty, non-nil slice is sent as [].
	UserRoles []string
	UserType  string
	TenantID  string
	SessionID string
}

// requestInfo is a request as any router sees it: what the event mapping needs, free of
// net/http, so the conformance vectors drive the same code the middleware runs.
type requestInfo struct {
	Method     string
	Route      string // the route template; "" when none matched
	URL        string // path and query, as on the request line
	PathParams []pathParam
	Body       any // the parsed JSON body; nil when none
	IP         string
	UserAgent  string
}

// responseInfo is how the request ended.
type responseInfo struct {
	Status    int  // 0: no response was sent
	Completed bool // false: the client left before the response was complete
	Body      any  // the parsed JSON response body; nil when none
	Err       string
	HasErr    bool
}

// mapping is what the options say about events.
type mapping struct {
	serviceName, environment, anonymous string
	captureRequest, captureResponse     bool
	maxBodyBytes                        int
}

func pathOf(url string) string {
	if i := strings.IndexAny(url, "?#"); i >= 0 {
		url = url[:i]
	}
	if url == "" {
		return "/"
	}
	return url
}

func queryOf(url string) string {
	i := strings.IndexByte(url, '?')
	if i < 0 {
		return ""
	}
	q := url[i+1:]
	if j := strings.IndexByte(q, '#'); j >= 0 {
		q = q[:j]
	}
	return q
}

// depthOver reports whether v holds a container nested deeper than limit levels (v itself is
// the first level).
func depthOver(v any, limit int) bool {
	switch t := v.(type) {
	case map[string]any:
		if limit == 0 {
			return true
		}
		for _, e := range t {
			if depthOver(e, limit-1) {
				return true
			}
		}
	case []any:
		if limit == 0 {
			return true
		}
		for _, e := range t {
			if depthOver(e, limit-1) {
				return true
			}
		}
	}
	return false
}

// captureObject is a masked copy of v when it is a JSON object whose compact JSON fits
// maxBytes; a marker object when it is too large or too deep; nil when it is no object (arrays,
// strings and numbers are never sent). The size counted is that of the JSON before masking.
func captureObject(v any, maxBytes int) any {
	if big, ok := v.(tooLarge); ok {
		return map[string]any{omittedKey: "too_large", "bytes": big.bytes, "limit": maxBytes}
	}
	o, ok := v.(map[string]any)
	if !ok || o == nil {
		return nil
	}
	size, err := jsonSize(o)
	if err != nil {
		return map[string]any{omittedKey: "not_serializable"}
	}
	if size > maxBytes {
		return map[string]any{omittedKey: "too_large", "bytes": size, "limit": maxBytes}
	}
	if depthOver(o, maxObjectDepth) {
		return map[string]any{omittedKey: "too_deep", "limit": maxObjectDepth}
	}
	masked, _ := maskShared(o)
	return masked
}

// pathParam is one of a route's parameters.
type pathParam struct{ name, value string }

// pathParams is a route's parameters sent as they are (nothing in them masked, within the size
// limit), sorted by name: appendValue writes them as the object a map would give, without
// making the map (a route's parameters are recorded on every request).
type pathParams []pathParam

// paramsOf is a router's parameter map as pathParams, in any order.
func paramsOf(m map[string]string) []pathParam {
	if len(m) == 0 {
		return nil
	}
	out := make([]pathParam, 0, len(m))
	for k, v := range m {
		out = append(out, pathParam{k, v})
	}
	return out
}

// capturePathParams is captureParams for a route's parameters; it sorts ps.
func capturePathParams(ps []pathParam, maxBytes int) any {
	if len(ps) == 0 {
		return nil
	}
	slices.SortFunc(ps, func(a, b pathParam) int { return strings.Compare(a.name, b.name) })
	plain := true
	for i, p := range ps {
		if IsSecretKey(p.name) || MaskCardNumbers(p.value) != p.value || i > 0 && ps[i-1].name == p.name {
			plain = false
			break
		}
	}
	if plain {
		v := any(pathParams(ps))
		if size, err := jsonSize(v); err == nil && size <= maxBytes {
			return v
		}
	}
	m := make(map[string]any, len(ps))
	for _, p := range ps {
		m[p.name] = p.value
	}
	return captureObject(m, maxBytes)
}

// captureParams: query and path parameters, sent (masked) only when there is one.
func captureParams(p map[string]any, maxBytes int) any {
	if len(p) == 0 {
		return nil
	}
	return captureObject(p, maxBytes)
}

func identityFields(e *wireEvent, id *Identity, anonymous string) {
	e.Identifier = anonymous
	if id == nil {
		return
	}
	if id.Identifier != "" {
		e.Identifier = truncate(id.Identifier, maxIdentifier)
	}
	// A cut e-mail address is a wrong one: left out instead.
	if id.UserEmail != "" && utf16Len(id.UserEmail) <= maxUserEmail {
		e.UserEmail = validUTF8(id.UserEmail)
	}
	e.UserName = validUTF8(id.UserName)
	if id.UserRoles != nil {
		roles := make([]string, len(id.UserRoles))
		for i, r := range id.UserRoles {
			roles[i] = validUTF8(r)
		}
		e.UserRoles = &roles
	}
	e.UserType = validUTF8(id.UserType)
	e.TenantID = validUTF8(id.TenantID)
	// A cut session id still groups the same requests together.
	e.SessionID = truncate(id.SessionID, maxSessionID)
}

// buildEvent maps a request and its outcome to the event sent, pure: appendEvent makes its
// idempotency key as it writes it.
// method is the method to record (the policy already applied), requestID the id chosen.
func buildEvent(m *mapping, req *requestInfo, res *responseInfo, id *Identity, method, requestID string,
	elapsedMs int64) wireEvent {
	e := wireEvent{
		Method:      method,
		ServiceName: m.serviceName,
		Environment: m.environment,
		RequestID:   requestID,
		Source:      "backend",
	}
	if elapsedMs < 0 {
		elapsedMs = 0
	}
	e.ResponseTime, e.HasResponseTime = elapsedMs, true
	if req.Route != "" {
		e.Path = truncate(req.Route, maxPath)
	} else {
		e.Path = truncate(pathOf(req.URL), maxPath)
	}
	status := res.Status
	if status == 0 && !res.Completed {
		status = statusClientClosed
	}
	if status >= 100 && status <= 599 {
		e.StatusCode = status
	}
	switch {
	case res.HasErr:
		e.ErrorMessage = truncate(res.Err, maxErrorMessage)
	case !res.Completed:
		e.ErrorMessage = clientClosedMessage
	}
	identityFields(&e, id, m.anonymous)
	if req.IP != "" && utf16Len(req.IP) <= maxIP {
		e.IP = validUTF8(req.IP)
	}
	if req.UserAgent != "" {
		e.UserAgent = truncate(req.UserAgent, maxUserAgent)
	}
	e.QueryParams = captureParams(parseQuery(queryOf(req.URL)), m.maxBodyBytes)
	e.PathParams = capturePathParams(req.PathParams, m.maxBodyBytes)
	if m.captureRequest {
		e.RequestBody = captureObject(req.Body, m.maxBodyBytes)
	}
	if m.captureResponse {
		e.ResponseBody = captureObject(res.Body, m.maxBodyBytes)
	}
	return e
}

// newUUID is a random (version 4) UUID: generated request ids and idempotency keys.
func newUUID() string {
	var s [36]byte
	return string(appendUUID(s[:0]))
}

// appendUUID writes a random (version 4) UUID. Its bits come from math/rand/v2's global source,
// the runtime's ChaCha8Rand, a cryptographic generator seeded from the system per thread, at a
// fifth of crypto/rand's cost (a request makes two). A generator whose state its outputs give
// away would not do: from the request ids clients see, the idempotency keys to come could be
// worked out and claimed first with an ingest key of the project, and the service's own events
// would be answered replayed and never stored.
func appendUUID(dst []byte) []byte {
	var b [16]byte
	binary.LittleEndian.PutUint64(b[:8], rand.Uint64())
	binary.LittleEndian.PutUint64(b[8:], rand.Uint64())
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	for i, c := range b {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			dst = append(dst, '-')
		}
		dst = append(dst, hexDigits[c>>4], hexDigits[c&0xf])
	}
	return dst
}

// isAuditMethod: the four methods SPEC 2.1 accepts.
func isAuditMethod(m string) bool { return m == "GET" || m == "POST" || m == "PUT" || m == "DELETE" }

// NearestMethod is a ready MethodPolicy: PATCH is recorded as PUT (both update) and HEAD as GET
// (a GET without its body); OPTIONS and the rest are skipped.
func NearestMethod(method string) string {
	switch method {
	case "PATCH":
		return "PUT"
	case "HEAD":
		return "GET"
	}
	return ""
}

// methodFor is the method to record, or "" to skip the request. A policy that panics or answers
// anything but the four methods skips it too.
func methodFor(policy func(string) string, method string) (out string) {
	upper := strings.ToUpper(method)
	if isAuditMethod(upper) {
		return upper
	}
	if policy == nil {
		return ""
	}
	defer func() {
		if recover() != nil {
			out = ""
		}
	}()
	if mapped := policy(upper); isAuditMethod(mapped) {
		return mapped
	}
	return ""
}

// incomingRequestID is the caller's correlation id: X-Request-ID when, trimmed, it is 1–255
// visible ASCII characters; else the trace id of a valid W3C traceparent; else "".
func incomingRequestID(xRequestID, traceparent string) string {
	if given := jsTrim(xRequestID); given != "" && len(given) <= maxRequestID && printableASCII(given) {
		return given
	}
	tp := strings.ToLower(jsTrim(traceparent))
	// version-traceid-parentid-flags; anything may follow (a later version adds fields).
	if len(tp) < 55 || tp[2] != '-' || tp[35] != '-' || tp[52] != '-' {
		return ""
	}
	if !hexOnly(tp[0:2]) || !hexOnly(tp[3:35]) || !hexOnly(tp[36:52]) || !hexOnly(tp[53:55]) {
		return ""
	}
	if traceID := tp[3:35]; traceID != strings.Repeat("0", 32) {
		return traceID
	}
	return ""
}

func printableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x21 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

func hexOnly(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) && (s[i] < 'a' || s[i] > 'f') {
			return false
		}
	}
	return true
}

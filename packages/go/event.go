package watchlog

import (
	"crypto/rand"
	"fmt"
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

// wireEvent is the audit event as sent (SPEC 2.1), with its idempotency key.
type wireEvent struct {
	Path           string    `json:"path"`
	Method         string    `json:"method"`
	StatusCode     int       `json:"status_code,omitempty"`
	ResponseTime   *int64    `json:"response_time,omitempty"`
	Identifier     string    `json:"identifier"`
	ServiceName    string    `json:"service_name"`
	Environment    string    `json:"environment"`
	UserEmail      string    `json:"user_email,omitempty"`
	UserName       string    `json:"user_name,omitempty"`
	UserRoles      *[]string `json:"user_roles,omitempty"`
	UserType       string    `json:"user_type,omitempty"`
	TenantID       string    `json:"tenant_id,omitempty"`
	SessionID      string    `json:"session_id,omitempty"`
	IP             string    `json:"ip,omitempty"`
	UserAgent      string    `json:"user_agent,omitempty"`
	RequestID      string    `json:"request_id,omitempty"`
	QueryParams    any       `json:"query_params,omitempty"`
	PathParams     any       `json:"path_params,omitempty"`
	RequestBody    any       `json:"request_body,omitempty"`
	ResponseBody   any       `json:"response_body,omitempty"`
	ErrorMessage   string    `json:"error_message,omitempty"`
	Source         string    `json:"source"`
	IdempotencyKey string    `json:"idempotency_key"`
}

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
	PathParams map[string]any
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
	return MaskValue(o)
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

// buildEvent maps a request and its outcome to the event sent: pure but for the idempotency key.
// method is the method to record (the policy already applied), requestID the id chosen.
func buildEvent(m *mapping, req *requestInfo, res *responseInfo, id *Identity, method, requestID string,
	elapsedMs int64) *wireEvent {
	e := &wireEvent{
		Method:         method,
		ServiceName:    m.serviceName,
		Environment:    m.environment,
		RequestID:      requestID,
		Source:         "backend",
		IdempotencyKey: newUUID(),
	}
	if elapsedMs < 0 {
		elapsedMs = 0
	}
	e.ResponseTime = &elapsedMs
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
	identityFields(e, id, m.anonymous)
	if req.IP != "" && utf16Len(req.IP) <= maxIP {
		e.IP = validUTF8(req.IP)
	}
	if req.UserAgent != "" {
		e.UserAgent = truncate(req.UserAgent, maxUserAgent)
	}
	e.QueryParams = captureParams(parseQuery(queryOf(req.URL)), m.maxBodyBytes)
	e.PathParams = captureParams(req.PathParams, m.maxBodyBytes)
	if m.captureRequest {
		e.RequestBody = captureObject(req.Body, m.maxBodyBytes)
	}
	if m.captureResponse {
		e.ResponseBody = captureObject(res.Body, m.maxBodyBytes)
	}
	return e
}

// newUUID is a random (version 4) UUID: idempotency keys and generated request ids.
func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
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

package watchlog

import (
	"encoding/json"
	"reflect"
	"testing"
)

type vectorOptions struct {
	ServiceName         *string `json:"service_name"`
	Environment         *string `json:"environment"`
	CaptureRequestBody  *bool   `json:"capture_request_body"`
	CaptureResponseBody *bool   `json:"capture_response_body"`
	MaxBodyBytes        *int    `json:"max_body_bytes"`
	UnsupportedMethods  *string `json:"unsupported_methods"`
	AnonymousIdentifier *string `json:"anonymous_identifier"`
	SetRequestIDHeader  *bool   `json:"set_request_id_header"`
}

// merge overlays o's fields on d.
func (d vectorOptions) merge(o vectorOptions) vectorOptions {
	dv, ov := reflect.ValueOf(&d).Elem(), reflect.ValueOf(o)
	for i := 0; i < dv.NumField(); i++ {
		if !ov.Field(i).IsNil() {
			dv.Field(i).Set(ov.Field(i))
		}
	}
	return d
}

type eventCase struct {
	Name    string
	Options vectorOptions
	Request struct {
		Method     string
		Route      *string
		URL        string
		PathParams map[string]string `json:"path_params"`
		Headers    map[string]string
		Body       any
		IP         string
	}
	Response struct {
		Status    *int
		Completed bool
		Body      any
		Error     *string
	}
	Identity            json.RawMessage
	Event               map[string]any
	SetsRequestIDHeader bool `json:"sets_request_id_header"`
}

// identityOf reads the vector's identity as an application's Identify would fill Identity: a
// field of the wrong type is left out.
func identityOf(raw json.RawMessage) *Identity {
	var v any
	if len(raw) == 0 || json.Unmarshal(raw, &v) != nil || v == nil {
		return nil
	}
	if s, ok := v.(string); ok {
		return &Identity{Identifier: s}
	}
	o, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	str := func(k string) string { s, _ := o[k].(string); return s }
	id := &Identity{Identifier: str("identifier"), UserEmail: str("user_email"), UserName: str("user_name"),
		UserType: str("user_type"), TenantID: str("tenant_id"), SessionID: str("session_id")}
	if roles, ok := o["user_roles"].([]any); ok {
		id.UserRoles = []string{}
		for _, r := range roles {
			if s, ok := r.(string); ok {
				id.UserRoles = append(id.UserRoles, s)
			}
		}
	}
	return id
}

// mapCase runs a vector through the functions the middleware runs; nil when nothing is recorded.
func mapCase(o vectorOptions, c *eventCase) (*wireEvent, bool) {
	var policy func(string) string
	if *o.UnsupportedMethods == "nearest" {
		policy = NearestMethod
	}
	method := methodFor(policy, c.Request.Method)
	if method == "" {
		return nil, false
	}
	id := incomingRequestID(c.Request.Headers["x-request-id"], c.Request.Headers["traceparent"])
	generated := id == ""
	if generated {
		id = newUUID()
	}
	m := &mapping{serviceName: *o.ServiceName, environment: *o.Environment, anonymous: *o.AnonymousIdentifier,
		captureRequest: *o.CaptureRequestBody, captureResponse: *o.CaptureResponseBody, maxBodyBytes: *o.MaxBodyBytes}
	req := &requestInfo{Method: c.Request.Method, URL: c.Request.URL, PathParams: paramsOf(c.Request.PathParams),
		Body: c.Request.Body, IP: c.Request.IP, UserAgent: c.Request.Headers["user-agent"]}
	if c.Request.Route != nil {
		req.Route = *c.Request.Route
	}
	res := &responseInfo{Completed: c.Response.Completed, Body: c.Response.Body}
	if c.Response.Status != nil {
		res.Status = *c.Response.Status
	}
	if c.Response.Error != nil {
		res.Err, res.HasErr = *c.Response.Error, true
	}
	ev := buildEvent(m, req, res, identityOf(c.Identity), method, id, 0)
	return &ev, generated && *o.SetRequestIDHeader
}

func TestConformanceEvents(t *testing.T) {
	var file struct {
		Defaults struct{ Options vectorOptions }
		Cases    []eventCase
	}
	loadVectors(t, "events.json", &file)
	if len(file.Cases) == 0 {
		t.Fatal("no cases")
	}
	for i := range file.Cases {
		c := &file.Cases[i]
		t.Run(c.Name, func(t *testing.T) {
			ev, setsHeader := mapCase(file.Defaults.Options.merge(c.Options), c)
			if setsHeader != c.SetsRequestIDHeader {
				t.Errorf("sets X-Request-ID: %v, want %v", setsHeader, c.SetsRequestIDHeader)
			}
			if c.Event == nil {
				if ev != nil {
					t.Fatalf("recorded %+v, want nothing", ev)
				}
				return
			}
			if ev == nil {
				t.Fatal("recorded nothing")
			}
			got := roundTrip(t, ev).(map[string]any)
			if key, _ := got["idempotency_key"].(string); key == "" {
				t.Errorf("idempotency_key %v", got["idempotency_key"])
			}
			if rt, ok := got["response_time"].(float64); !ok || rt < 0 || rt != float64(int64(rt)) {
				t.Errorf("response_time %v", got["response_time"])
			}
			want := map[string]any{}
			for k, v := range c.Event {
				want[k] = v
			}
			for _, k := range []string{"idempotency_key", "response_time"} {
				delete(got, k)
				delete(want, k)
			}
			if want["request_id"] == "<generated>" {
				id, _ := got["request_id"].(string)
				if id == "" || len(id) > maxRequestID || !printableASCII(id) {
					t.Errorf("generated request_id %q", id)
				}
				delete(got, "request_id")
				delete(want, "request_id")
			}
			if !reflect.DeepEqual(got, want) {
				gj, _ := json.Marshal(got)
				wj, _ := json.Marshal(want)
				t.Fatalf("\n got %s\nwant %s", gj, wj)
			}
		})
	}
}

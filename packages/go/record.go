package watchlog

import (
	"encoding/json"
	"time"
)

// Event is an event of your own for Record (a job, a message handler): SPEC 2.1's fields, with
// the service, environment and identifier defaulting from the Config.
type Event struct {
	Path         string
	Method       string // any method: Config.UnsupportedMethods applies
	StatusCode   int    // left out unless 100–599
	ResponseTime time.Duration
	Identity     Identity
	ServiceName  string // default Config.ServiceName
	Environment  string // default Config.Environment
	IP           string
	UserAgent    string
	RequestID    string
	QueryParams  map[string]string
	PathParams   map[string]string
	// RequestBody and ResponseBody: anything encoding/json turns into an object (a map, a
	// struct); sent masked and capped whatever the Capture fields say.
	RequestBody  any
	ResponseBody any
	ErrorMessage string
	Source       string // "backend" (default) or "browser"
}

// asJSONValue is v as JSON.stringify and JSON.parse would leave it: structs become objects, as
// their JSON encoding says.
func asJSONValue(v any) any {
	if v == nil {
		return nil
	}
	js, err := compactJSON(v)
	if err != nil {
		return map[string]any{omittedKey: "not_serializable"}
	}
	var out any
	if json.Unmarshal(js, &out) != nil {
		return nil
	}
	return out
}

func stringMap(m map[string]string) map[string]any {
	if len(m) == 0 {
		return nil
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// Record queues an event of your own with the same shaping, masking and limits as the
// middleware's. It never panics.
func (c *Client) Record(e Event) {
	if c == nil {
		return
	}
	defer func() {
		if v := recover(); v != nil {
			c.report.internal(v)
		}
	}()
	if c.cfg.Disabled {
		return
	}
	method := methodFor(c.cfg.UnsupportedMethods, e.Method)
	if method == "" {
		c.skippedMethod()
		return
	}
	m := c.mapping
	m.captureRequest, m.captureResponse = true, true
	if e.ServiceName != "" {
		m.serviceName = truncate(e.ServiceName, maxServiceName)
	}
	switch e.Environment {
	case "production", "staging", "development":
		m.environment = e.Environment
	}
	path := e.Path
	if path == "" {
		path = "/"
	}
	req := &requestInfo{Route: path, PathParams: paramsOf(e.PathParams), Body: asJSONValue(e.RequestBody),
		IP: e.IP, UserAgent: e.UserAgent}
	res := &responseInfo{Status: e.StatusCode, Completed: true, Body: asJSONValue(e.ResponseBody),
		Err: e.ErrorMessage, HasErr: e.ErrorMessage != ""}
	if e.StatusCode == 0 {
		res.Status = -1 // no status: left out
	}
	ev := buildEvent(&m, req, res, &e.Identity, method, truncate(e.RequestID, maxRequestID),
		e.ResponseTime.Milliseconds())
	ev.HasResponseTime = e.ResponseTime != 0
	ev.QueryParams = captureParams(stringMap(e.QueryParams), m.maxBodyBytes)
	if e.Source == "browser" {
		ev.Source = "browser"
	}
	c.enqueue(&ev)
}

package watchlog

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
)

// referenceEvent is wireEvent as encoding/json would write it from struct tags: appendEvent must
// write the same bytes.
type referenceEvent struct {
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

// encodingJSON is encoding/json's compact output without HTML escaping.
func encodingJSON(t *testing.T, v any) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// awkwardStrings: every escape encoding/json makes, invalid UTF-8, and the characters it keeps.
var awkwardStrings = []string{
	"", "plain", `quote " and \ backslash`, "\x00\x01\b\f\n\r\t\x1f\x7f", "<html> & 'x'", "é ü 日本 🎉",
	"\u2028 and \u2029", "bad \xff\xfe byte", "cut \xe6\x97", "\xed\xa0\x80 surrogate", "\uFFFD kept", "/slash/",
}

func randomString(r *rand.Rand) string {
	var b strings.Builder
	for range r.IntN(12) {
		switch r.IntN(4) {
		case 0:
			b.WriteByte(byte(r.IntN(256)))
		case 1:
			b.WriteRune(rune(r.IntN(0x3000)))
		default:
			b.WriteString(awkwardStrings[r.IntN(len(awkwardStrings))])
		}
	}
	return b.String()
}

func randomValue(r *rand.Rand, depth int) any {
	switch k := r.IntN(8); {
	case depth > 3 || k == 0:
		return randomString(r)
	case k == 1:
		return []float64{0, -0.0, 1, -1.5, 1e-7, 1e21, 123456789, 0.1, 1e-6, 5e-324, math.MaxFloat64}[r.IntN(11)]
	case k == 2:
		return r.IntN(2) == 0
	case k == 3:
		return nil
	case k == 4:
		var list []any
		for range r.IntN(4) {
			list = append(list, randomValue(r, depth+1))
		}
		return list
	default:
		m := map[string]any{}
		for range r.IntN(10) {
			m[randomString(r)] = randomValue(r, depth+1)
		}
		return m
	}
}

func TestAppendValueMatchesEncodingJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	values := []any{map[string]any(nil), []any(nil), []any{}, map[string]any{}, 7, map[string]any{"n": 12}}
	for _, s := range awkwardStrings {
		values = append(values, s, map[string]any{s: s})
	}
	for range 3000 {
		values = append(values, randomValue(r, 0))
	}
	for _, v := range values {
		got, err := appendValue(nil, v)
		if err != nil {
			t.Fatalf("%#v: %v", v, err)
		}
		if want := encodingJSON(t, v); !bytes.Equal(got, want) {
			t.Fatalf("%#v:\n got %s\nwant %s", v, got, want)
		}
	}
	if _, err := appendValue(nil, math.NaN()); err == nil {
		t.Error("NaN written")
	}
}

func TestPathParamsWrittenAsTheirMap(t *testing.T) {
	ps := []pathParam{{"shop", "7"}, {"id", "a\"b\u2028"}, {"path", "a/b.txt"}}
	got := capturePathParams(ps, 1024)
	if _, ok := got.(pathParams); !ok {
		t.Fatalf("%T: plain parameters should be written without a map", got)
	}
	js, _ := appendValue(nil, got)
	want := encodingJSON(t, map[string]any{"shop": "7", "id": "a\"b\u2028", "path": "a/b.txt"})
	if !bytes.Equal(js, want) {
		t.Fatalf("got %s want %s", js, want)
	}
	size, _ := jsonSize(got)
	if mapSize, _ := jsonSize(map[string]any{"shop": "7", "id": "a\"b\u2028", "path": "a/b.txt"}); size != mapSize {
		t.Errorf("size %d, the map's %d", size, mapSize)
	}
	// A secret, a card number or one past the size limit take the map's way, as before.
	for _, c := range []struct {
		ps    []pathParam
		limit int
		want  string
	}{
		{[]pathParam{{"token", "t0k"}, {"id", "1"}}, 100, `{"id":"1","token":"********"}`},
		{[]pathParam{{"card", "4111111111111111"}}, 100, `{"card":"************1111"}`},
		{[]pathParam{{"id", strings.Repeat("x", 40)}}, 20, `{"_watchlog_omitted":"too_large","bytes":49,"limit":20}`},
	} {
		js, _ := appendValue(nil, capturePathParams(c.ps, c.limit))
		if string(js) != c.want {
			t.Errorf("got %s want %s", js, c.want)
		}
	}
}

func TestAppendEventMatchesEncodingJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for i := range 2000 {
		pick := func() string {
			if r.IntN(3) == 0 {
				return ""
			}
			return randomString(r)
		}
		maybe := func() any {
			if r.IntN(2) == 0 {
				return nil
			}
			return randomValue(r, 1)
		}
		e := wireEvent{Path: pick(), Method: "GET", StatusCode: r.IntN(2) * 200, ResponseTime: int64(r.IntN(3)),
			HasResponseTime: r.IntN(2) == 0, Identifier: pick(), ServiceName: pick(), Environment: pick(),
			UserEmail: pick(), UserName: pick(), UserType: pick(), TenantID: pick(), SessionID: pick(), IP: pick(),
			UserAgent: pick(), RequestID: pick(), QueryParams: maybe(), PathParams: maybe(), RequestBody: maybe(),
			ResponseBody: maybe(), ErrorMessage: pick(), Source: "backend", IdempotencyKey: newUUID()}
		if i%3 == 0 {
			roles := []string{}
			if i%2 == 0 {
				roles = append(roles, pick(), pick())
			}
			e.UserRoles = &roles
		}
		ref := referenceEvent{e.Path, e.Method, e.StatusCode, nil, e.Identifier, e.ServiceName, e.Environment,
			e.UserEmail, e.UserName, e.UserRoles, e.UserType, e.TenantID, e.SessionID, e.IP, e.UserAgent, e.RequestID,
			e.QueryParams, e.PathParams, e.RequestBody, e.ResponseBody, e.ErrorMessage, e.Source, e.IdempotencyKey}
		if e.HasResponseTime {
			ref.ResponseTime = &e.ResponseTime
		}
		got, err := appendEvent(nil, &e)
		if err != nil {
			t.Fatal(err)
		}
		if want := encodingJSON(t, ref); !bytes.Equal(got, want) {
			t.Fatalf("\n got %s\nwant %s", got, want)
		}
	}
}

func TestAnEventWithoutAKeyIsWrittenWithANewOne(t *testing.T) {
	v4 := regexp.MustCompile(`"idempotency_key":"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}"}$`)
	seen := map[string]bool{}
	for range 1000 {
		js, err := appendEvent(nil, &wireEvent{Path: "/", Method: "GET", Source: "backend"})
		if err != nil || !v4.Match(js) {
			t.Fatalf("%s: %v", js, err)
		}
		seen[string(js)] = true
	}
	if len(seen) != 1000 {
		t.Errorf("%d distinct keys in 1000 events", len(seen))
	}
}

package watchlog

import (
	"errors"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"
)

// The event is written as JSON on every request, so it is written by hand rather than through
// encoding/json's reflection (a third of a request's cost in the SDK before): the output is
// byte for byte compactJSON's (encoding/json with SetEscapeHTML(false)), which
// TestAppendEventMatchesEncodingJSON holds it to. Types other than those encoding/json decodes
// into `any` (and the int of the SDK's own markers) go through compactJSON.

var errNotFinite = errors.New("watchlog: a number in the event is NaN or infinite")

const hexDigits = "0123456789abcdef"

// appendString writes s as a JSON string, escaped as encoding/json escapes it without HTML
// escaping: '"', '\\' and control characters, U+2028 and U+2029, and U+FFFD for each invalid
// byte.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(append(b, s[start:i]...), `\ufffd`...)
			i++
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(append(b, s[start:i]...), '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	return append(append(b, s[start:]...), '"')
}

// appendFloat writes f as encoding/json does: the shortest form, exponent only for very small
// and very large magnitudes.
func appendFloat(b []byte, f float64) ([]byte, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return b, errNotFinite
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// e-09 to e-9, as encoding/json writes it.
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b, nil
}

// appendValue writes a JSON value: what encoding/json decodes into `any`, keys sorted as it
// sorts them.
func appendValue(b []byte, v any) ([]byte, error) {
	var err error
	switch t := v.(type) {
	case nil:
		return append(b, "null"...), nil
	case string:
		return appendString(b, t), nil
	case bool:
		return strconv.AppendBool(b, t), nil
	case float64:
		return appendFloat(b, t)
	case int:
		return strconv.AppendInt(b, int64(t), 10), nil
	case []any:
		if t == nil {
			return append(b, "null"...), nil
		}
		b = append(b, '[')
		for i, e := range t {
			if i > 0 {
				b = append(b, ',')
			}
			if b, err = appendValue(b, e); err != nil {
				return b, err
			}
		}
		return append(b, ']'), nil
	case map[string]any:
		return appendObject(b, t)
	case pathParams:
		b = append(b, '{')
		for i, p := range t {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(append(appendString(b, p.name), ':'), p.value)
		}
		return append(b, '}'), nil
	}
	js, err := compactJSON(v)
	return append(b, js...), err
}

func appendObject(b []byte, m map[string]any) ([]byte, error) {
	if m == nil {
		return append(b, "null"...), nil
	}
	var small [8]string
	keys := small[:0]
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b = append(b, '{')
	var err error
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(appendString(b, k), ':')
		if b, err = appendValue(b, m[k]); err != nil {
			return b, err
		}
	}
	return append(b, '}'), nil
}

// field writes `,"name":` (the comma before every field but the first, which is always path).
func field(b []byte, name string) []byte {
	return append(append(append(b, ',', '"'), name...), '"', ':')
}

func stringField(b []byte, name, value string) []byte {
	if value == "" {
		return b
	}
	return appendString(field(b, name), value)
}

func valueField(b []byte, name string, value any) ([]byte, error) {
	if value == nil {
		return b, nil
	}
	return appendValue(field(b, name), value)
}

// appendEvent writes e as compactJSON would: its fields in order, the omitempty ones left out
// when empty; an empty IdempotencyKey is a new one.
func appendEvent(b []byte, e *wireEvent) ([]byte, error) {
	b = appendString(append(b, `{"path":`...), e.Path)
	b = appendString(field(b, "method"), e.Method)
	if e.StatusCode != 0 {
		b = strconv.AppendInt(field(b, "status_code"), int64(e.StatusCode), 10)
	}
	if e.HasResponseTime {
		b = strconv.AppendInt(field(b, "response_time"), e.ResponseTime, 10)
	}
	b = appendString(field(b, "identifier"), e.Identifier)
	b = appendString(field(b, "service_name"), e.ServiceName)
	b = appendString(field(b, "environment"), e.Environment)
	b = stringField(b, "user_email", e.UserEmail)
	b = stringField(b, "user_name", e.UserName)
	if e.UserRoles != nil {
		b = append(field(b, "user_roles"), '[')
		for i, r := range *e.UserRoles {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, r)
		}
		b = append(b, ']')
	}
	b = stringField(b, "user_type", e.UserType)
	b = stringField(b, "tenant_id", e.TenantID)
	b = stringField(b, "session_id", e.SessionID)
	b = stringField(b, "ip", e.IP)
	b = stringField(b, "user_agent", e.UserAgent)
	b = stringField(b, "request_id", e.RequestID)
	var err error
	for _, f := range [...]struct {
		name  string
		value any
	}{
		{"query_params", e.QueryParams},
		{"path_params", e.PathParams},
		{"request_body", e.RequestBody},
		{"response_body", e.ResponseBody},
	} {
		if b, err = valueField(b, f.name, f.value); err != nil {
			return b, err
		}
	}
	b = stringField(b, "error_message", e.ErrorMessage)
	b = appendString(field(b, "source"), e.Source)
	if e.IdempotencyKey == "" {
		// Made as it is written: one string less a request.
		b = append(appendUUID(append(field(b, "idempotency_key"), '"')), '"')
	} else {
		b = appendString(field(b, "idempotency_key"), e.IdempotencyKey)
	}
	return append(b, '}'), nil
}

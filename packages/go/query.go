package watchlog

import (
	"strings"
	"unicode/utf8"
)

// parseQuery reads a query string as the WHATWG URLSearchParams does, which is how the other
// SDKs read it: '&'-separated, the first '=' splits name from value, '+' is a space, '%' and two
// hex digits are a byte (any other '%' stays), and the bytes are decoded as UTF-8 with U+FFFD for
// each invalid sequence. url.ParseQuery differs: it also splits on ';' (since Go 1.17 it
// rejects it) and fails on a bad escape. A name given once maps to its string, a repeated one to
// the list of its strings in order. nil when there is no parameter.
func parseQuery(query string) map[string]any {
	var out map[string]any
	for rest := query; rest != ""; {
		part := rest
		if i := strings.IndexByte(rest, '&'); i >= 0 {
			part, rest = rest[:i], rest[i+1:]
		} else {
			rest = ""
		}
		if part == "" {
			continue
		}
		name, value := part, ""
		if i := strings.IndexByte(part, '='); i >= 0 {
			name, value = part[:i], part[i+1:]
		}
		name, value = formDecode(name), formDecode(value)
		if out == nil {
			out = map[string]any{}
		}
		switch prev := out[name].(type) {
		case nil:
			out[name] = value
		case string:
			out[name] = []any{prev, value}
		case []any:
			out[name] = append(prev, value)
		}
	}
	return out
}

func unhex(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

func formDecode(s string) string {
	if !strings.ContainsAny(s, "+%") && utf8.ValidString(s) {
		return s
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '+' {
			b = append(b, ' ')
			continue
		}
		if c == '%' && i+2 < len(s) {
			hi, ok1 := unhex(s[i+1])
			lo, ok2 := unhex(s[i+2])
			if ok1 && ok2 {
				b = append(b, hi<<4|lo)
				i += 2
				continue
			}
		}
		b = append(b, c)
	}
	return decodeUTF8(b)
}

// decodeUTF8 is the WHATWG UTF-8 decoder: each maximal invalid subsequence becomes one U+FFFD
// (utf8.DecodeRune would give one per byte of a truncated sequence).
func decodeUTF8(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	var sb strings.Builder
	for i := 0; i < len(b); {
		c := b[i]
		if c < 0x80 {
			sb.WriteByte(c)
			i++
			continue
		}
		need, lower, upper := 0, byte(0x80), byte(0xbf)
		switch {
		case c >= 0xc2 && c <= 0xdf:
			need = 1
		case c >= 0xe0 && c <= 0xef:
			need = 2
			if c == 0xe0 {
				lower = 0xa0
			} else if c == 0xed {
				upper = 0x9f
			}
		case c >= 0xf0 && c <= 0xf4:
			need = 3
			if c == 0xf0 {
				lower = 0x90
			} else if c == 0xf4 {
				upper = 0x8f
			}
		default:
			sb.WriteRune(utf8.RuneError)
			i++
			continue
		}
		j := i + 1
		ok := true
		for k := 0; k < need; k++ {
			if j >= len(b) || b[j] < lower || b[j] > upper {
				ok = false
				break
			}
			lower, upper = 0x80, 0xbf
			j++
		}
		if ok {
			sb.Write(b[i:j])
		} else {
			// The bytes consumed so far are the maximal subpart; the offending byte is read again.
			sb.WriteRune(utf8.RuneError)
		}
		i = j
	}
	return sb.String()
}

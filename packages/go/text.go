package watchlog

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"sync"
	"unicode/utf8"
)

// watchlog counts lengths as JavaScript does, in UTF-16 code units: a character outside the
// Basic Multilingual Plane (an emoji) counts two.

func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n++
		if r >= 0x10000 {
			n++
		}
	}
	return n
}

// truncate cuts s to at most max UTF-16 units without splitting a surrogate pair (a character
// that would straddle the cut is left out whole), so the result is always valid UTF-8. Invalid
// bytes in s become U+FFFD first, as they would in the JSON sent.
func truncate(s string, max int) string {
	s = validUTF8(s)
	if len(s) <= max {
		return s
	}
	n := 0
	for i, r := range s {
		w := 1
		if r >= 0x10000 {
			w = 2
		}
		if n+w > max {
			return s[:i]
		}
		n += w
	}
	return s
}

// validUTF8 replaces each invalid byte with U+FFFD (what encoding/json would send anyway).
func validUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		b.WriteRune(r)
		i += size
	}
	return b.String()
}

// jsSpace is what JavaScript's String.prototype.trim removes: WhiteSpace and LineTerminator.
func jsSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', 0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff:
		return true
	}
	return r >= 0x2000 && r <= 0x200a
}

func jsTrim(s string) string { return strings.TrimFunc(s, jsSpace) }

// jsonSize is the byte length of JSON.stringify's output for a value decoded by encoding/json:
// compactJSON's, less what Go writes differently. Go escapes U+2028 and U+2029 (six bytes for
// three) and writes negative zero as -0 (JavaScript: 0).
func jsonSize(v any) (int, error) {
	scratch := scratchPool.Get().(*[]byte)
	defer scratchPool.Put(scratch)
	js, err := appendValue((*scratch)[:0], v)
	*scratch = js
	if err != nil {
		return 0, err
	}
	return len(js) - jsonSizeSurplus(v), nil
}

// scratchPool holds buffers for writing JSON only to measure it.
var scratchPool = sync.Pool{New: func() any { b := make([]byte, 0, 512); return &b }}

func stringSurplus(s string) int {
	return 3 * (strings.Count(s, "\u2028") + strings.Count(s, "\u2029"))
}

func jsonSizeSurplus(v any) int {
	switch t := v.(type) {
	case string:
		return stringSurplus(t)
	case float64:
		if t == 0 && math.Signbit(t) {
			return 1
		}
	case []any:
		n := 0
		for _, e := range t {
			n += jsonSizeSurplus(e)
		}
		return n
	case map[string]any:
		n := 0
		for k, e := range t {
			n += stringSurplus(k) + jsonSizeSurplus(e)
		}
		return n
	case pathParams:
		n := 0
		for _, p := range t {
			n += stringSurplus(p.name) + stringSurplus(p.value)
		}
		return n
	}
	return 0
}

// compactJSON is JSON.stringify's output for a value decoded by encoding/json: no spaces,
// non-ASCII as UTF-8, and '<', '>' and '&' as they are (SetEscapeHTML(false)). Its length is
// the byte count max_body_bytes is held against.
func compactJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

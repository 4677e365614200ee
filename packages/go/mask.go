package watchlog

import (
	"maps"
	"slices"
	"strings"
)

// Mask replaces the value under a secret key.
const Mask = "********"

// The names of SPEC 2.3 and the common ones, normalised (lower case, without '-' and '_'), as
// @watchlog/masking lists them: the server applies the same rules, so what the SDK masks never
// differs from what watchlog stores.
var secretKeys = map[string]bool{}

func init() {
	for _, k := range []string{
		"password", "secret", "pwd", "token", "api_key", "access_token", "refresh_token", "authorization",
		"apikey", "api-key", "x-api-key", "client_secret", "private_key", "passwd", "cookie", "set-cookie",
		"cvv", "cvc", "pin", "ssn",
	} {
		secretKeys[normaliseKey(k)] = true
	}
}

// normaliseKey lower-cases the key as JavaScript's toLowerCase does and drops '-' and '_'.
// JavaScript maps case fully, Go's strings.ToLower simply: they differ only for U+0130 (dotted
// capital I), which is "i" plus a combining dot in JavaScript, so "PİN" is no "pin" there.
func normaliseKey(key string) string {
	lower := strings.ToLower(strings.ReplaceAll(key, "\u0130", "i\u0307"))
	if !strings.ContainsAny(lower, "-_") {
		return lower
	}
	return strings.NewReplacer("-", "", "_", "").Replace(lower)
}

// IsSecretKey reports whether values under key are replaced by Mask.
func IsSecretKey(key string) bool {
	for i := 0; i < len(key); i++ {
		if c := key[i]; c >= 0x80 || c >= 'A' && c <= 'Z' || c == '-' || c == '_' {
			return secretKeys[normaliseKey(key)]
		}
	}
	// Already normal: most keys are, and they are looked up on every request.
	return secretKeys[key]
}

func isDigit(b byte) bool { return b >= '0' && b <= '9' }

func isSep(b byte) bool { return b == ' ' || b == '-' }

// MaskCardNumbers keeps the last four digits of each run of 13 to 19 ASCII digits (single spaces
// or dashes allowed between digits, no digit right before or after the run). It reproduces the
// server's regular expression /(?<![0-9])[0-9](?:[ -]?[0-9]){12,18}(?![0-9])/g by hand, since
// Go's regexp has no lookaround: from a digit with no digit before it, the run's digits follow
// one way only, and the match is the longest prefix of 13 to 19 digits not followed by a digit.
// Digits are single bytes in UTF-8 and no byte of a multi-byte character is one, so scanning
// bytes is scanning characters.
func MaskCardNumbers(s string) string {
	var out []byte
	copied := 0
	for i := 0; i < len(s); {
		if !isDigit(s[i]) || (i > 0 && isDigit(s[i-1])) {
			i++
			continue
		}
		// ends[k] is the index just past the k-th digit of the run (k from 0).
		var ends [19]int
		ends[0] = i + 1
		n := 1
		for n < 19 {
			j := ends[n-1]
			if j < len(s) && isDigit(s[j]) {
				ends[n] = j + 1
			} else if j+1 < len(s) && isSep(s[j]) && isDigit(s[j+1]) {
				ends[n] = j + 2
			} else {
				break
			}
			n++
		}
		match := -1
		for k := n - 1; k >= 12; k-- {
			if e := ends[k]; e >= len(s) || !isDigit(s[e]) {
				match = k
				break
			}
		}
		if match < 0 {
			i++
			continue
		}
		end := ends[match]
		if out == nil {
			out = make([]byte, 0, len(s))
		}
		out = append(out, s[copied:i]...)
		left := match + 1
		for p := i; p < end; p++ {
			if isDigit(s[p]) {
				if left > 4 {
					out = append(out, '*')
				} else {
					out = append(out, s[p])
				}
				left--
			} else {
				out = append(out, s[p])
			}
		}
		copied = end
		i = end
	}
	if out == nil {
		return s
	}
	return string(append(out, s[copied:]...))
}

// MaskValue applies the built-in rules to a JSON value as encoding/json decodes it into any
// (maps, slices, strings, float64, bool, nil); it returns a copy and never changes its input.
func MaskValue(v any) any {
	switch t := v.(type) {
	case string:
		return MaskCardNumbers(t)
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = MaskValue(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			if IsSecretKey(k) {
				out[k] = Mask
			} else {
				out[k] = MaskValue(e)
			}
		}
		return out
	default:
		return v
	}
}

// maskShared is MaskValue for a value the SDK only writes out: it returns v itself when nothing
// in it is masked, and copies only the containers that change, so the common request (an id in
// the path, no secret) costs no copy.
func maskShared(v any) (any, bool) {
	switch t := v.(type) {
	case string:
		m := MaskCardNumbers(t)
		return m, m != t
	case []any:
		var out []any
		for i, e := range t {
			m, changed := maskShared(e)
			if changed && out == nil {
				out = slices.Clone(t)
			}
			if out != nil {
				out[i] = m
			}
		}
		if out == nil {
			return t, false
		}
		return out, true
	case map[string]any:
		var out map[string]any
		for k, e := range t {
			m, changed := any(Mask), true
			if !IsSecretKey(k) {
				m, changed = maskShared(e)
			}
			if changed && out == nil {
				out = maps.Clone(t)
			}
			if out != nil {
				out[k] = m
			}
		}
		if out == nil {
			return t, false
		}
		return out, true
	default:
		return v, false
	}
}

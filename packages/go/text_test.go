package watchlog

import (
	"math"
	"testing"
)

// JSON sizes are JSON.stringify's (the values below were measured with Node), whatever Go's
// encoder writes differently.
func TestJSONSizeIsJavaScripts(t *testing.T) {
	for _, c := range []struct {
		v    any
		want int
	}{
		{"\u2028\u2029", 8},
		{"\b\f\n\r\t\x01\x7f", 19},
		{math.Copysign(0, -1), 1},
		{map[string]any{"\u2028": []any{math.Copysign(0, -1), "<>&é"}}, 19},
		{1e21, 5},
		{1e-7, 4},
		{123456789012345680000.0, 21},
	} {
		if got, err := jsonSize(c.v); err != nil || got != c.want {
			t.Errorf("%q: %d (%v), want %d", c.v, got, err, c.want)
		}
	}
}

func TestTruncateKeepsUTF8(t *testing.T) {
	for _, c := range []struct {
		in   string
		max  int
		want string
	}{
		{"ab😀c", 3, "ab"},
		{"ab😀c", 4, "ab😀"},
		{"a\xffb", 2, "a\ufffd"},
		{"ééé", 2, "éé"},
	} {
		if got := truncate(c.in, c.max); got != c.want {
			t.Errorf("truncate(%q, %d) = %q, want %q", c.in, c.max, got, c.want)
		}
	}
}

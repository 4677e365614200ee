package watchlog

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// The hand scan of a batch's answer counts what encoding/json would decode, and gives way to it
// on anything it cannot follow.
func TestCountAnswerAgreesWithEncodingJSON(t *testing.T) {
	var many strings.Builder
	many.WriteString(`{"accepted":[`)
	for i := range 500 {
		if i > 0 {
			many.WriteByte(',')
		}
		replayed := ""
		if i%7 == 0 {
			replayed = `,"replayed":true`
		}
		fmt.Fprintf(&many, `{"index":%d,"id":"0b9e6a52-5f7e-4c3a-9d55-%012d"%s}`, i, i, replayed)
	}
	many.WriteString(`],"rejected":[]}`)
	answers := []struct {
		body               string
		rejected, replayed int
		scanned            bool
	}{
		{many.String(), 0, 72, true},
		{`{"accepted":[],"rejected":[]}`, 0, 0, true},
		{` { "accepted" : [ { "index" : 0 , "replayed" : true } ] , "rejected" : [ ] } `, 0, 1, true},
		{`{"rejected":[{"index":1,"details":[{"path":"x\"]}","message":"a } ] , \\ \u00e9"}]}],` +
			`"accepted":[{"index":0,"id":"a","replayed":false},{"index":2,"replayed":null}]}`, 1, 0, true},
		{`{"accepted":[{"index":0,"extra":{"replayed":true}}],"rejected":[1,2.5e3,-1,"x"],"more":[true]}`, 4, 0, true},
		{`{"accepted":[{"replayed":true}]}`, 0, 1, true},
		// Not followed: encoding/json decides (and, malformed, counts nothing).
		{`{"accepted":[{"replayed":true}],"rejected":[}`, 0, 0, false},
		{`{"accepted":[{"replayed":tru}]}`, 0, 0, false},
		{`[]`, 0, 0, false},
		{``, 0, 0, false},
		{`{"accepted":[]} trailing`, 0, 0, false},
	}
	for _, a := range answers {
		_, scanned := scanAnswer([]byte(a.body))
		got := countAnswer([]byte(a.body))
		if scanned != a.scanned || got.rejected != a.rejected || got.replayed != a.replayed {
			t.Errorf("%.80s: scanned %v, %+v; want %v, %d rejected, %d replayed", a.body, scanned, got, a.scanned,
				a.rejected, a.replayed)
		}
		var ans struct {
			Accepted []struct {
				Replayed bool `json:"replayed"`
			} `json:"accepted"`
			Rejected []json.RawMessage `json:"rejected"`
		}
		if json.Unmarshal([]byte(a.body), &ans) == nil {
			replays := 0
			for _, acc := range ans.Accepted {
				if acc.Replayed {
					replays++
				}
			}
			if !scanned || len(ans.Rejected) != got.rejected || replays != got.replayed {
				t.Errorf("%.80s: encoding/json says %d rejected, %d replayed", a.body, len(ans.Rejected), replays)
			}
		}
	}
}

package watchlog

import "encoding/json"

// A batch's answer lists every event ({"accepted":[{"index":0,"id":"…"},…],"rejected":[…]}),
// about 60 bytes an event; the SDK needs only how many were refused and how many replayed.
// encoding/json decoding it cost as much as writing the event in the first place, so it is
// scanned by hand; an answer the scanner cannot follow is decoded by encoding/json, as before.

// batchCounts is what an answer says of a batch.
type batchCounts struct{ rejected, replayed int }

func countAnswer(body []byte) batchCounts {
	if counts, ok := scanAnswer(body); ok {
		return counts
	}
	var ans struct {
		Accepted []struct {
			Replayed bool `json:"replayed"`
		} `json:"accepted"`
		Rejected []json.RawMessage `json:"rejected"`
	}
	_ = json.Unmarshal(body, &ans)
	counts := batchCounts{rejected: len(ans.Rejected)}
	for _, a := range ans.Accepted {
		if a.Replayed {
			counts.replayed++
		}
	}
	return counts
}

// answerScanner walks a JSON text; every method returns false on what it does not expect.
type answerScanner struct {
	b []byte
	i int
}

func (s *answerScanner) space() {
	for s.i < len(s.b) && (s.b[s.i] == ' ' || s.b[s.i] == '\n' || s.b[s.i] == '\r' || s.b[s.i] == '\t') {
		s.i++
	}
}

// next is the next byte after white space, not consumed; 0 at the end.
func (s *answerScanner) next() byte {
	s.space()
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

func (s *answerScanner) take(c byte) bool {
	if s.next() != c {
		return false
	}
	s.i++
	return true
}

// str reads a string; its raw bytes (escapes as they are) are what a key is compared with.
func (s *answerScanner) str() ([]byte, bool) {
	if !s.take('"') {
		return nil, false
	}
	start := s.i
	for ; s.i < len(s.b); s.i++ {
		switch s.b[s.i] {
		case '\\':
			s.i++
		case '"':
			s.i++
			return s.b[start : s.i-1], true
		}
	}
	return nil, false
}

// skip passes over any value.
func (s *answerScanner) skip() bool {
	switch s.next() {
	case '"':
		_, ok := s.str()
		return ok
	case '{':
		return s.object(func([]byte) bool { return s.skip() })
	case '[':
		return s.array(s.skip)
	case 0:
		return false
	}
	start := s.i
	for s.i < len(s.b) && isLiteralByte(s.b[s.i]) {
		s.i++
	}
	switch word := string(s.b[start:s.i]); word {
	case "true", "false", "null":
		return true
	default:
		return word != "" && (word[0] == '-' || isDigit(word[0]))
	}
}

// isLiteralByte: the bytes of true, false, null and numbers.
func isLiteralByte(c byte) bool {
	return c >= 'a' && c <= 'z' || isDigit(c) || c == '-' || c == '+' || c == '.' || c == 'E'
}

// object reads an object, value calling the reader of each member's value with its key.
func (s *answerScanner) object(value func(key []byte) bool) bool {
	if !s.take('{') {
		return false
	}
	if s.take('}') {
		return true
	}
	for {
		key, ok := s.str()
		if !ok || !s.take(':') || !value(key) {
			return false
		}
		if s.take('}') {
			return true
		}
		if !s.take(',') {
			return false
		}
	}
}

// array reads an array, item reading each element.
func (s *answerScanner) array(item func() bool) bool {
	if !s.take('[') {
		return false
	}
	if s.take(']') {
		return true
	}
	for {
		if !item() {
			return false
		}
		if s.take(']') {
			return true
		}
		if !s.take(',') {
			return false
		}
	}
}

func scanAnswer(body []byte) (batchCounts, bool) {
	var counts batchCounts
	s := &answerScanner{b: body}
	acceptedOne := func() bool {
		return s.object(func(key []byte) bool {
			s.space()
			start := s.i
			if !s.skip() {
				return false
			}
			if string(key) == "replayed" && string(s.b[start:s.i]) == "true" {
				counts.replayed++
			}
			return true
		})
	}
	rejectedOne := func() bool {
		counts.rejected++
		return s.skip()
	}
	ok := s.object(func(key []byte) bool {
		switch string(key) {
		case "accepted":
			return s.array(acceptedOne)
		case "rejected":
			return s.array(rejectedOne)
		}
		return s.skip()
	})
	s.space()
	return counts, ok && s.i == len(body)
}

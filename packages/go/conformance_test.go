package watchlog

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

// The shared vectors of packages/conformance: the same cases every watchlog implementation runs.
// WATCHLOG_CONFORMANCE_DIR points elsewhere (a checkout where they are being written).
func loadVectors(t *testing.T, name string, into any) {
	t.Helper()
	dir := os.Getenv("WATCHLOG_CONFORMANCE_DIR")
	if dir == "" {
		dir = filepath.Join("..", "conformance")
	}
	data, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatalf("conformance vectors: %v (packages/conformance holds them; WATCHLOG_CONFORMANCE_DIR points "+
			"elsewhere)", err)
	}
	if err := json.Unmarshal(data, into); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

// roundTrip is v as JSON decodes it, so values compare by what is sent.
func roundTrip(t *testing.T, v any) any {
	t.Helper()
	js, err := compactJSON(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(js, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestConformanceMasking(t *testing.T) {
	var file struct {
		Mask  string
		Cases []struct {
			Name   string
			Input  any
			Output any
		}
	}
	loadVectors(t, "masking.json", &file)
	if file.Mask != Mask {
		t.Fatalf("mask %q, vectors say %q", Mask, file.Mask)
	}
	if len(file.Cases) == 0 {
		t.Fatal("no cases")
	}
	for _, c := range file.Cases {
		t.Run(c.Name, func(t *testing.T) {
			got := roundTrip(t, MaskValue(c.Input))
			if !reflect.DeepEqual(got, c.Output) {
				t.Fatalf("\n got %#v\nwant %#v", got, c.Output)
			}
			if again := roundTrip(t, MaskValue(got)); !reflect.DeepEqual(again, got) {
				t.Fatalf("masking twice differs: %#v", again)
			}
		})
	}
}

func TestConformanceRetry(t *testing.T) {
	var file struct {
		Cases []struct {
			Name    string
			Options struct {
				RetryInitialDelayMs int64 `json:"retry_initial_delay_ms"`
				RetryMaxDelayMs     int64 `json:"retry_max_delay_ms"`
			}
			Random      float64
			Now         time.Time
			BatchEvents int `json:"batch_events"`
			Answers     []struct {
				Network string
				Status  int
				Headers map[string]string
				Body    json.RawMessage
			}
			Steps []struct {
				RetryInMs *int64 `json:"retry_in_ms"`
				Split     bool
				Settle    string
			}
		}
	}
	loadVectors(t, "retry.json", &file)
	if len(file.Cases) == 0 {
		t.Fatal("no cases")
	}
	names := map[settlement]string{settleSent: "sent", settleRejected: "rejected", settleFailed: "failed"}
	for _, c := range file.Cases {
		t.Run(c.Name, func(t *testing.T) {
			if len(c.Answers) != len(c.Steps) {
				t.Fatalf("%d answers, %d steps", len(c.Answers), len(c.Steps))
			}
			initial := time.Duration(c.Options.RetryInitialDelayMs) * time.Millisecond
			max := time.Duration(c.Options.RetryMaxDelayMs) * time.Millisecond
			for n, a := range c.Answers {
				got := decide(n, c.BatchEvents, answer{Network: a.Network, Status: a.Status,
					RetryAfter: a.Headers["retry-after"], Body: a.Body}, c.Random, c.Now, initial, max)
				want := c.Steps[n]
				switch {
				case want.RetryInMs != nil:
					if got.Settle != unsettled || got.Split || got.RetryIn != time.Duration(*want.RetryInMs)*time.Millisecond {
						t.Fatalf("answer %d: got %+v, want a retry in %d ms", n, got, *want.RetryInMs)
					}
				case want.Split:
					if !got.Split {
						t.Fatalf("answer %d: got %+v, want a split", n, got)
					}
				default:
					if names[got.Settle] != want.Settle || got.Split {
						t.Fatalf("answer %d: got %+v, want settled %q", n, got, want.Settle)
					}
				}
			}
		})
	}
}

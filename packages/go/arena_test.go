package watchlog

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"
)

// Events stored and released in any order: no live event's bytes ever change, chunks are used
// again once empty, and an event too large for a chunk gets its own bytes.
func TestArenaKeepsLiveEventsWhileChunksAreReused(t *testing.T) {
	var a eventArena
	type stored struct {
		want  []byte
		got   []byte
		chunk *eventChunk
	}
	var live []stored
	r := rand.New(rand.NewPCG(5, 6))
	for i := range 20_000 {
		if len(live) > 0 && r.IntN(3) == 0 {
			k := r.IntN(len(live))
			a.release(live[k].chunk)
			live = append(live[:k], live[k+1:]...)
			continue
		}
		size := 50 + r.IntN(900)
		if i%997 == 0 {
			size = chunkBytes/4 + 1
		}
		want := bytes.Repeat([]byte{byte('a' + i%26)}, size)
		copy(want, fmt.Sprint(i))
		got, ch := a.store(want)
		if (ch == nil) != (size > chunkBytes/4) {
			t.Fatalf("event of %d bytes: chunk %v", size, ch)
		}
		live = append(live, stored{want, got, ch})
		for _, s := range live[max(0, len(live)-50):] {
			if !bytes.Equal(s.got, s.want) {
				t.Fatalf("event %.10s changed while queued", s.want)
			}
		}
	}
	for _, s := range live {
		if !bytes.Equal(s.got, s.want) {
			t.Fatalf("event %.10s changed while queued", s.want)
		}
	}
	if len(a.spare) > spareChunks {
		t.Errorf("%d spare chunks kept", len(a.spare))
	}
	for _, s := range live {
		a.release(s.chunk)
	}
	// As the queue uses it, first in first out, 500 events queued at a time: after the first
	// chunks, none is made anew.
	made := map[*eventChunk]bool{}
	var queue []*eventChunk
	for i := range 50_000 {
		_, ch := a.store(make([]byte, 400))
		queue = append(queue, ch)
		if len(queue) > 500 {
			a.release(queue[0])
			queue = queue[1:]
		}
		if i > 5_000 {
			made[ch] = true
		}
	}
	if len(made) > 6 {
		t.Errorf("%d chunks in use for 500 events of 400 bytes", len(made))
	}
}

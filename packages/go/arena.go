package watchlog

import "bytes"

// Queued events' bytes are kept end to end in chunks that are used again once every event in
// them has gone into a batch's body, rather than each in an allocation of its own: on a busy
// service the SDK's garbage was its largest cost to the host after the event's own writing.

// chunkBytes is a chunk's size; an event over a quarter of it gets an allocation of its own.
const chunkBytes = 64 * 1024

// spareChunks is how many empty chunks are kept for later.
const spareChunks = 4

type eventChunk struct {
	buf []byte
	// live counts the events in it not yet copied into a batch's body or dropped.
	live int
}

// eventArena is guarded by Client.mu.
type eventArena struct {
	fill  *eventChunk // where the next events go
	spare []*eventChunk
}

// store copies js in; it answers the copy and its chunk (nil: an allocation of its own).
func (a *eventArena) store(js []byte) ([]byte, *eventChunk) {
	if len(js) > chunkBytes/4 {
		return bytes.Clone(js), nil
	}
	if a.fill == nil || len(a.fill.buf)+len(js) > cap(a.fill.buf) {
		old := a.fill
		a.fill = a.take()
		if old != nil && old.live == 0 {
			a.recycle(old)
		}
	}
	start := len(a.fill.buf)
	a.fill.buf = append(a.fill.buf, js...)
	a.fill.live++
	return a.fill.buf[start:len(a.fill.buf):len(a.fill.buf)], a.fill
}

// release: an event's bytes in ch are no longer read.
func (a *eventArena) release(ch *eventChunk) {
	if ch == nil {
		return
	}
	ch.live--
	switch {
	case ch.live > 0:
	case ch == a.fill:
		ch.buf = ch.buf[:0]
	default:
		a.recycle(ch)
	}
}

func (a *eventArena) take() *eventChunk {
	if n := len(a.spare); n > 0 {
		ch := a.spare[n-1]
		a.spare = a.spare[:n-1]
		return ch
	}
	return &eventChunk{buf: make([]byte, 0, chunkBytes)}
}

func (a *eventArena) recycle(ch *eventChunk) {
	ch.buf = ch.buf[:0]
	if len(a.spare) < spareChunks {
		a.spare = append(a.spare, ch)
	}
}

"""The queue and its delivery threads: batches by count, bytes and time; retries with backoff
and full jitter (honouring Retry-After); splits on 413 and on a 400 about the batch; a bounded
queue that drops the oldest. Never raises into, nor blocks, the application."""

from __future__ import annotations

import json
import random
import threading
import time
from collections import deque
from typing import Any, Deque, Dict, List, Optional, Set, Tuple

from .options import Options
from .report import Reporter
from .retry import Answer, NoAnswer, Retry, Settle, Split, decide
from .transport import Transport

__all__ = ["Delivery", "encode_event"]

COUNTERS = ("queued", "sent", "replayed", "rejected", "dropped", "failures", "skipped_methods", "retries")


# Made once: json.dumps() makes an encoder per call.
_ENCODE = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode
_ENCODE_ASCII = json.JSONEncoder(separators=(",", ":"), allow_nan=False).encode


def encode_event(event: Dict[str, Any]) -> bytes:
    """An event's JSON, compact, non-ASCII as UTF-8 (a lone surrogate escaped instead)."""
    text = _ENCODE(event)
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return _ENCODE_ASCII(event).encode("ascii")


#: A queued event: its sequence number, its JSON, and when it was queued (time.monotonic()). A
#: tuple: one is made per request, and a tuple costs a fraction of an object.
_Queued = Tuple[int, bytes, float]


class _Batch:
    def __init__(self, items: List[_Queued]) -> None:
        self.min_seq = items[0][0]
        self.size = len(items)
        self.settled = 0


def _first_detail(details: Any) -> str:
    first = details[0] if isinstance(details, list) and details else None
    if isinstance(first, dict):
        return f"{first.get('path', '')}: {first.get('message', '')}"
    return "no details"


def _error_of(text: str) -> Dict[str, Any]:
    try:
        body = json.loads(text) if text else None
    except ValueError:
        return {}
    error = body.get("error") if isinstance(body, dict) else None
    return error if isinstance(error, dict) else {}


class Delivery:
    def __init__(self, options: Options, reporter: Reporter, transport: Optional[Transport] = None) -> None:
        self._o = options
        self._reporter = reporter
        self._transport = transport or Transport(
            options.batch_url, options.api_key, options.request_timeout_ms / 1000, "watchlog-python"
        )
        self._lock = threading.RLock()
        self._cond = threading.Condition(self._lock)
        self._counters: Dict[str, int] = {name: 0 for name in COUNTERS}
        self._queue: Deque[_Queued] = deque()
        self._queue_bytes = 0
        self._in_flight: Set[_Batch] = set()
        self._in_flight_events = 0
        self._next_seq = 1
        self._flush_seq = 0
        self._wake_gen = 0
        self._closing = False
        self._closed = False
        self._abandoned = False
        self._threads: List[threading.Thread] = []
        self._random = random.Random()

    # ---- the application's side -------------------------------------------------------------

    def stats(self) -> Dict[str, int]:
        with self._cond:
            return {**self._counters, "pending": len(self._queue) + self._in_flight_events}

    def skipped_method(self) -> None:
        with self._cond:
            self._counters["skipped_methods"] += 1

    def enqueue(self, event: Dict[str, Any]) -> None:
        self.enqueue_data(encode_event(event))

    def enqueue_data(self, data: bytes) -> None:
        """Queues an event's JSON. The delivery threads are woken only when what they wait for
        changed: the queue was empty (they wait with no deadline), or it now fills a batch;
        otherwise they are already waiting until its head is due. Waking them per event would
        hand the GIL to a thread that has nothing to do, once per request."""
        queue = self._queue
        o = self._o
        # The condition's lock itself: Condition's own __enter__ and __exit__ are Python calls.
        with self._lock:
            self._counters["queued"] += 1
            if self._closed:
                self._counters["dropped"] += 1
                self._reporter.after_close()
                return
            if len(queue) >= o.max_queue_events:
                oldest = queue.popleft()
                self._queue_bytes -= len(oldest[1])
                self._counters["dropped"] += 1
                self._reporter.dropping(self._counters["dropped"], o.max_queue_events)
            was_empty = not queue
            queue.append((self._next_seq, data, time.monotonic()))
            self._queue_bytes += len(data)
            self._next_seq += 1
            if not self._threads:
                self._start_threads()
            if was_empty or len(queue) == o.batch_max_events or \
                    self._queue_bytes + len(queue) + 1 >= o.batch_max_bytes:
                # notify_all: a thread waiting out a retry's backoff waits on the same condition
                # and would take a single notify() for itself.
                self._cond.notify_all()

    def _start_threads(self) -> None:
        if self._threads:
            return
        for n in range(self._o.concurrency):
            thread = threading.Thread(target=self._work, name=f"watchlog-delivery-{n}", daemon=True)
            self._threads.append(thread)
            thread.start()

    def flush(self, timeout_s: float) -> bool:
        """Sends what is queued now; True once it is settled, False at the deadline."""
        with self._cond:
            seq = self._next_seq - 1
            self._flush_seq = max(self._flush_seq, seq)
            self._cond.notify_all()
            return self._cond.wait_for(lambda: self._lowest_unsettled() > seq, timeout_s)

    def close(self, timeout_s: float) -> Dict[str, int]:
        """Sends everything left (a batch waiting for a backoff is retried at once); at the
        deadline what is still unsent is dropped. Idempotent."""
        with self._cond:
            self._closing = True
            self._wake_gen += 1
            self._cond.notify_all()
            drained = self._cond.wait_for(self._idle, timeout_s)
            self._closed = True
            if not drained:
                self._abandoned = True
                self._counters["dropped"] += len(self._queue)
                self._queue.clear()
                self._queue_bytes = 0
                self._cond.notify_all()
        if not drained:
            self._transport.abort_all()
            with self._cond:
                self._cond.wait_for(self._idle, 1.0)
        return self.stats()

    def after_fork(self) -> None:
        """In a forked child (gunicorn --preload): the parent's threads and locks are not its
        own, and the parent sends what it had queued; the child starts empty."""
        self._lock = threading.RLock()
        self._cond = threading.Condition(self._lock)
        self._threads = []
        self._queue.clear()
        self._queue_bytes = 0
        self._in_flight = set()
        self._in_flight_events = 0
        self._counters = {name: 0 for name in COUNTERS}
        self._transport = self._transport.fresh()

    # ---- the delivery threads ---------------------------------------------------------------

    def _idle(self) -> bool:
        return not self._queue and not self._in_flight

    def _lowest_unsettled(self) -> int:
        lowest = self._queue[0][0] if self._queue else self._next_seq
        for batch in self._in_flight:
            lowest = min(lowest, batch.min_seq)
        return lowest

    def _due_in(self) -> Optional[float]:
        """Seconds until the head of the queue is due (0: now); None when the queue is empty."""
        if not self._queue:
            return None
        head = self._queue[0]
        o = self._o
        if (
            self._closing
            or head[0] <= self._flush_seq
            or len(self._queue) >= o.batch_max_events
            or self._queue_bytes + len(self._queue) + 1 >= o.batch_max_bytes
        ):
            return 0.0
        return max(0.0, head[2] + o.flush_interval_ms / 1000 - time.monotonic())

    def _take(self) -> List[_Queued]:
        out: List[_Queued] = []
        size = 2
        while self._queue and len(out) < self._o.batch_max_events:
            nxt = self._queue[0]
            if out and size + len(nxt[1]) + 1 > self._o.batch_max_bytes:
                break
            out.append(self._queue.popleft())
            self._queue_bytes -= len(nxt[1])
            size += len(nxt[1]) + 1
        return out

    def _work(self) -> None:
        while True:
            with self._cond:
                while True:
                    if self._abandoned or (self._closed and not self._queue):
                        return
                    due = self._due_in()
                    if due == 0.0:
                        break
                    self._cond.wait(due)
                items = self._take()
                batch = _Batch(items)
                self._in_flight.add(batch)
                self._in_flight_events += len(items)
            try:
                self._deliver(batch, items)
            except Exception as error:
                # _deliver is written not to raise; if it ever does, its events are given up.
                with self._cond:
                    self._settle(batch, "failures", batch.size - batch.settled)
                self._reporter.failed("failed", batch.size, f"internal error while delivering ({error!r})")
            finally:
                with self._cond:
                    self._in_flight.discard(batch)
                    self._cond.notify_all()

    def _settle(self, batch: _Batch, counter: str, n: int) -> None:
        self._counters[counter] += n
        self._in_flight_events -= n
        batch.settled += n

    def _deliver(self, batch: _Batch, items: List[_Queued]) -> None:
        body = b"[" + b",".join(item[1] for item in items) + b"]"
        o = self._o
        attempt = 0
        while True:
            with self._cond:
                if self._abandoned:
                    self._settle(batch, "dropped", len(items))
                    return
            answer = self._transport.post(body)
            step = decide(answer, attempt, len(items), o.retry_initial_delay_ms, o.retry_max_delay_ms,
                          self._random.random(), time.time())
            if isinstance(step, Split):
                half = (len(items) + 1) // 2
                self._deliver(batch, items[:half])
                self._deliver(batch, items[half:])
                return
            if isinstance(step, Settle):
                self._settled(batch, items, answer, step.outcome)
                return
            assert isinstance(step, Retry)
            with self._cond:
                reason = answer.reason if isinstance(answer, NoAnswer) else str(answer.status)
                self._reporter.unreachable(reason, len(self._queue) + self._in_flight_events, o.max_queue_events)
                if self._abandoned:
                    self._settle(batch, "dropped", len(items))
                    return
                self._counters["retries"] += 1
                self._sleep(step.delay_ms / 1000)
            attempt += 1

    def _sleep(self, seconds: float) -> None:
        """Waits for a retry (the lock held); close() wakes it for an immediate one."""
        gen = self._wake_gen
        deadline = time.monotonic() + seconds
        while not self._abandoned and gen == self._wake_gen:
            left = deadline - time.monotonic()
            if left <= 0:
                return
            self._cond.wait(left)

    def _settled(self, batch: _Batch, items: List[_Queued], answer: Any, outcome: str) -> None:
        n = len(items)
        assert isinstance(answer, Answer)
        error = _error_of(answer.text)
        detail = error.get("message") if isinstance(error.get("message"), str) else ""
        with self._cond:
            if outcome == "sent":
                self._accepted(batch, n, answer.text)
                self._reporter.delivered(self._counters["dropped"])
            elif outcome == "rejected":
                self._settle(batch, "rejected", n)
                first = _first_detail(error.get("details")) if error.get("details") else (detail or "no details")
                self._reporter.rejected(n, first, answer.status)
            else:
                self._settle(batch, "failures", n)
                if answer.status in (401, 403):
                    self._reporter.auth(answer.status, n, str(detail))
                elif answer.status == 413:
                    self._reporter.failed("too_large", 1, f"{self._o.batch_url} refused an event as too large (413); "
                                          "it is dropped", 413)
                else:
                    self._reporter.failed(
                        "failed", n, f"{self._o.batch_url} answered {answer.status}{f' ({detail})' if detail else ''}: "
                        "events are not being recorded; is endpoint watchlog's base URL?", answer.status)

    def _accepted(self, batch: _Batch, n: int, text: str) -> None:
        try:
            body = json.loads(text) if text else {}
        except ValueError:
            body = {}
        accepted = body.get("accepted") if isinstance(body, dict) else None
        rejected = body.get("rejected") if isinstance(body, dict) else None
        refused = min(len(rejected), n) if isinstance(rejected, list) else 0
        replays = 0
        if isinstance(accepted, list):
            replays = min(sum(1 for a in accepted if isinstance(a, dict) and a.get("replayed") is True), n - refused)
        self._settle(batch, "replayed", replays)
        # The server answered 2xx: whatever it did not list as refused it stored.
        self._settle(batch, "sent", n - refused - replays)
        if refused:
            self._settle(batch, "rejected", refused)
            assert isinstance(rejected, list)
            first = rejected[0].get("details") if isinstance(rejected[0], dict) else None
            self._reporter.rejected(refused, _first_detail(first), 202)

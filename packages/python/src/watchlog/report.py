"""How the SDK tells the application that events are not getting through: a few lines, never
one per event, and never an exception."""

from __future__ import annotations

import time
from typing import Any, Callable, Optional, Set

__all__ = ["Reporter", "WatchlogDeliveryError"]

_REJECTION_REPORT_EVERY_S = 60.0


class WatchlogDeliveryError(Exception):
    """Handed to ``on_error``: ``problem`` is one of unauthorized, forbidden, rejected,
    too_large, failed, unreachable, dropping, identify_failed."""

    def __init__(self, problem: str, message: str, events: int = 0, status: Optional[int] = None) -> None:
        super().__init__(message)
        self.problem = problem
        self.events = events
        self.status = status


class Reporter:
    def __init__(self, logger: Any, on_error: Optional[Callable[[WatchlogDeliveryError], None]], target: str) -> None:
        self._logger = logger
        self._on_error = on_error
        self._target = target
        self._reported_auth = False
        self._reported_identify = False
        self._reported_after_close = False
        self._reported_failure: Set[int] = set()
        self._outage_since: Optional[float] = None
        self._dropping_since: Optional[float] = None
        self._dropped_before = 0
        self._last_rejection_report = -1e18
        self._rejections_unreported = 0

    def _emit(self, level: str, error: Optional[WatchlogDeliveryError], message: str) -> None:
        try:
            if self._logger is not None:
                method = getattr(self._logger, level, None) or self._logger.warning
                method(f"watchlog: {message}")
        except Exception:
            pass  # A broken logger must not break delivery.
        if error is not None and self._on_error is not None:
            try:
                self._on_error(error)
            except Exception:
                pass  # Nor a broken callback.

    def auth(self, status: int, events: int, detail: str) -> None:
        """401/403: said once (loudly) until a batch gets through again."""
        if self._reported_auth:
            return
        self._reported_auth = True
        extra = f": {detail}" if detail else ""
        if status == 401:
            message = (f"{self._target} refused the API key (401{extra}): events are not being recorded; "
                       "check api_key (it may be revoked)")
        else:
            message = f"{self._target} refused this client (403{extra}): events are not being recorded"
        problem = "unauthorized" if status == 401 else "forbidden"
        self._emit("error", WatchlogDeliveryError(problem, message, events, status), message)

    def rejected(self, count: int, first_detail: str, status: int) -> None:
        """Events refused as invalid: said at once, then at most once a minute."""
        self._rejections_unreported += count
        now = time.monotonic()
        if now - self._last_rejection_report < _REJECTION_REPORT_EVERY_S:
            return
        self._last_rejection_report = now
        n, self._rejections_unreported = self._rejections_unreported, 0
        message = (f"{self._target} rejected {n} event{'' if n == 1 else 's'} as invalid ({first_detail}); "
                   "they are not retried")
        self._emit("warning", WatchlogDeliveryError("rejected", message, n, status), message)

    def failed(self, problem: str, events: int, message: str, status: Optional[int] = None) -> None:
        """An answer retrying cannot fix: said once per status."""
        key = status or 0
        if key in self._reported_failure:
            return
        self._reported_failure.add(key)
        self._emit("error", WatchlogDeliveryError(problem, message, events, status), message)

    def unreachable(self, reason: str, queued: int, capacity: int) -> None:
        """The first failed attempt of an outage is said; the rest are not."""
        if self._outage_since is not None:
            return
        self._outage_since = time.monotonic()
        message = (f"cannot deliver events to {self._target} ({reason}); retrying with backoff, keeping up to "
                   f"{capacity} events in memory ({queued} queued)")
        self._emit("warning", WatchlogDeliveryError("unreachable", message, queued), message)

    def dropping(self, dropped_total: int, capacity: int) -> None:
        """The queue overflowed: one warning per episode, however many events go."""
        if self._dropping_since is not None:
            return
        self._dropping_since = time.monotonic()
        self._dropped_before = dropped_total - 1
        during = "" if self._outage_since is None else f" while {self._target} is unreachable"
        message = f"queue full ({capacity} events): dropping the oldest events{during}"
        self._emit("warning", WatchlogDeliveryError("dropping", message, 1), message)

    def delivered(self, dropped_total: int) -> None:
        """A batch got through: one line when it ends an outage or a dropping episode."""
        self._reported_auth = False
        self._reported_failure.clear()
        if self._outage_since is None and self._dropping_since is None:
            return
        since = min(t for t in (self._outage_since, self._dropping_since) if t is not None)
        dropped = dropped_total - self._dropped_before if self._dropping_since is not None else 0
        self._outage_since = self._dropping_since = None
        self._emit("info", None, f"delivering to {self._target} again after {time.monotonic() - since:.1f} s; "
                   f"{dropped} event{'' if dropped == 1 else 's'} dropped meanwhile")

    def identify_failed(self, error: BaseException) -> None:
        if self._reported_identify:
            return
        self._reported_identify = True
        message = f"identify() failed ({error!r}); such requests are recorded as anonymous (said once)"
        self._emit("warning", WatchlogDeliveryError("identify_failed", message), message)

    def after_close(self) -> None:
        if self._reported_after_close:
            return
        self._reported_after_close = True
        self._emit("warning", None, "an event was recorded after close(); it is dropped (close watchlog after your "
                   "server has drained)")

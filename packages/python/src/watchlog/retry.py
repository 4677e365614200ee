"""What one delivery attempt's answer leads to: sent, rejected, failed, split, or a retry after
a delay. Pure, so the shared conformance cases (``retry.json``) drive it directly."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from typing import Any, Literal, Mapping, Optional, Union

__all__ = ["Answer", "NoAnswer", "Retry", "Settle", "Split", "Step", "backoff_ms", "decide", "retry_after_ms"]

#: The longest Retry-After honoured: a server asking for more is treated as asking for this.
MAX_RETRY_AFTER_MS = 300_000

_DIGITS = re.compile(r"^[0-9]+$")
_ITEM_PATH = re.compile(r"^[0-9]")


@dataclass(frozen=True)
class Answer:
    """The server answered: its status, headers (lower-case names) and body text."""

    status: int
    headers: Mapping[str, str] = field(default_factory=dict)
    text: str = ""


@dataclass(frozen=True)
class NoAnswer:
    """No answer: refused, reset, timed out."""

    reason: str


@dataclass(frozen=True)
class Settle:
    outcome: Literal["sent", "rejected", "failed"]


@dataclass(frozen=True)
class Split:
    pass


@dataclass(frozen=True)
class Retry:
    delay_ms: int
    #: Whether the delay was the server's (Retry-After) rather than the backoff's.
    server_asked: bool = False


Step = Union[Settle, Split, Retry]


def backoff_ms(attempt: int, initial_ms: int, max_ms: int, random: float) -> int:
    """Full jitter: uniformly random in [0, min(max, initial * 2^attempt))."""
    return int(random * min(max_ms, initial_ms * 2 ** min(attempt, 30)))


def retry_after_ms(value: Optional[str], now: float) -> Optional[int]:
    """Retry-After as delta-seconds or an HTTP date (``now`` in epoch seconds), capped at five
    minutes; None when absent or unreadable."""
    if value is None:
        return None
    text = value.strip()
    if not text:
        return None
    if _DIGITS.match(text):
        return min(int(text) * 1000, MAX_RETRY_AFTER_MS)
    try:
        at = parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None
    if at is None:
        return None
    delta = round((at.timestamp() - now) * 1000)
    return min(max(0, delta), MAX_RETRY_AFTER_MS)


def _error_of(text: str) -> Optional[Mapping[str, Any]]:
    try:
        body = json.loads(text) if text else None
    except ValueError:
        return None
    error = body.get("error") if isinstance(body, dict) else None
    return error if isinstance(error, dict) else None


def _names_an_item(error: Optional[Mapping[str, Any]]) -> bool:
    details = error.get("details") if error else None
    if not isinstance(details, list):
        return False
    return any(isinstance(d, dict) and isinstance(d.get("path"), str) and _ITEM_PATH.match(d["path"]) for d in details)


def decide(
    answer: Union[Answer, NoAnswer],
    attempt: int,
    batch_events: int,
    initial_ms: int,
    max_ms: int,
    random: float,
    now: float,
) -> Step:
    """The step after attempt number ``attempt`` (0 for the first) of a batch of
    ``batch_events`` events was answered ``answer``."""
    if isinstance(answer, NoAnswer):
        return Retry(backoff_ms(attempt, initial_ms, max_ms, random))
    status = answer.status
    if 200 <= status < 300:
        return Settle("sent")
    if status == 400:
        # A 400 that names no item is about the batch as a whole (too many events, a body it
        # could not read): halves fit, or isolate the one event at fault.
        if not _names_an_item(_error_of(answer.text)) and batch_events > 1:
            return Split()
        return Settle("rejected")
    if status in (401, 403):
        return Settle("failed")
    if status == 413:
        return Split() if batch_events > 1 else Settle("failed")
    if status in (408, 429) or 500 <= status <= 599:
        after = retry_after_ms(answer.headers.get("retry-after"), now)
        if after is not None and after > 0:
            return Retry(after, server_asked=True)
        return Retry(backoff_ms(attempt, initial_ms, max_ms, random))
    return Settle("failed")

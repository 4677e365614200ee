"""What the Python hosts of the SDK benchmark (bench/sdk-python.ts) share: the client, made when
``SDK=on`` and sending to ``RECEIVER``, the count of requests the measured route answered (each
one event with the SDK on), and the bench's own routes, answered outside the middleware so that
reading them records nothing: ``/__cpu`` (the process's CPU time, µs) and ``/__flush``."""

from __future__ import annotations

import json
import os
import resource
import threading
import time
from typing import Any, Dict, Optional

from watchlog import Watchlog

watchlog: Optional[Watchlog] = (
    Watchlog(
        endpoint=os.environ["RECEIVER"],
        api_key="bench-key",
        service_name="bench",
        environment="production",
        logger=None,  # the bench's stderr is for its own lines
    )
    if os.environ.get("SDK") == "on"
    else None
)

_lock = threading.Lock()
_handled = 0


def count() -> None:
    global _handled
    # gunicorn's threads answer at once: `+=` alone could lose a count.
    with _lock:
        _handled += 1


def answer(path: str) -> Optional[bytes]:
    """The JSON answer of a bench route, or None when ``path`` is the app's."""
    body: Dict[str, Any]
    if path == "/__cpu":
        usage = resource.getrusage(resource.RUSAGE_SELF)
        body = {"user": round(usage.ru_utime * 1e6), "system": round(usage.ru_stime * 1e6), "handled": _handled}
    elif path == "/__flush":
        if watchlog is not None:
            # A gunicorn thread records its request's event after the answer has left, so the
            # load generator can be done before the last events are queued: a flush then would
            # not wait for them. Wait (5 s at most) until every request answered is queued.
            deadline = time.monotonic() + 5
            while watchlog.stats()["queued"] < _handled and time.monotonic() < deadline:
                time.sleep(0.005)
        flushed = watchlog.flush(timeout=30.0) if watchlog is not None else True
        body = {"flushed": flushed, "handled": _handled, "stats": watchlog.stats() if watchlog else None}
    else:
        return None
    return json.dumps(body).encode()

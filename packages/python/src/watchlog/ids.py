"""Request ids and idempotency keys: random (version 4) UUIDs, a system call per 256 of them.

``uuid.uuid4()`` reads 16 bytes with ``os.urandom`` every time: a system call per id, two per
request, and the ``UUID`` object's construction besides. Here each thread reads 4 KiB of
``os.urandom`` at a time and takes 16 bytes per id from them; a forked child (gunicorn's workers)
starts with none, so two processes never share bytes.

The bytes must come from the operating system's generator, not a seeded one such as ``random``'s
Mersenne Twister: an idempotency key is how watchlog stores a retried event once, and the request
id is sent back to every client in ``X-Request-ID``. From a few hundred of those a Mersenne
Twister's state, and so the keys of the events to come, can be worked out; anyone holding an
ingest key of the project (a browser key is public) could then send events under those keys
first, and the service's real events would be answered ``replayed`` and never stored."""

from __future__ import annotations

import os
import threading

__all__ = ["uuid4"]

#: Bytes read from the system at a time: 256 ids.
_CHUNK = 4096


class _Pool(threading.local):
    """One thread's unread random bytes."""

    def __init__(self) -> None:
        self.bytes = b""
        self.at = 0


_pool = _Pool()


def _forget_in_child() -> None:
    global _pool
    _pool = _Pool()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_in_child)

#: Version 4 in bits 76-79, the RFC 4122 variant (10) in bits 62-63, as ``uuid.UUID`` sets them.
_CLEAR = ~((0xF000 << 64) | (0xC000 << 48)) & ((1 << 128) - 1)
_SET = (0x4000 << 64) | (0x8000 << 48)


def uuid4() -> str:
    """``str(uuid.uuid4())``'s format: 36 lower-case characters, version 4, RFC 4122 variant."""
    pool = _pool
    at = pool.at
    if at + 16 > len(pool.bytes):
        pool.bytes, at = os.urandom(_CHUNK), 0
    pool.at = at + 16
    h = "%032x" % (int.from_bytes(pool.bytes[at : at + 16], "big") & _CLEAR | _SET)
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"

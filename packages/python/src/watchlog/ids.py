"""Request ids and idempotency keys: random (version 4) UUIDs, made without a system call each.

``uuid.uuid4()`` reads 16 bytes with ``os.urandom`` every time: a system call per id, two per
request, and the ``UUID`` object's construction besides. Here the 122 random bits come from a
Mersenne Twister of the SDK's own, seeded from ``os.urandom`` (2,500 bytes) when the module is
loaded and seeded again in every forked child (gunicorn's workers), so two processes never share
a sequence. That is enough for what these ids are for: they must be unique (an idempotency key is
the server's way to store a retried event once), not unguessable (neither is a secret: the request
id is sent back to the client in ``X-Request-ID``). The generator is the SDK's own, so an
application that seeds ``random`` for its tests does not make the SDK repeat its keys.
``getrandbits`` is one C call, so threads never draw the same bits."""

from __future__ import annotations

import os
import random

__all__ = ["uuid4"]

_random = random.Random()
_bits = _random.getrandbits
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_random.seed)

#: Version 4 in bits 76-79, the RFC 4122 variant (10) in bits 62-63, as ``uuid.UUID`` sets them.
_CLEAR = ~((0xF000 << 64) | (0xC000 << 48)) & ((1 << 128) - 1)
_SET = (0x4000 << 64) | (0x8000 << 48)


def uuid4() -> str:
    """``str(uuid.uuid4())``'s format: 36 lower-case characters, version 4, RFC 4122 variant."""
    h = "%032x" % (_bits(128) & _CLEAR | _SET)
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"

"""The request path's shortcuts give what the general code gives: the id generator's UUIDs, the
parameters captured without a JSON round trip, and the delivery thread woken once per batch."""

from __future__ import annotations

import json
import os
import re
import threading
import uuid
from typing import Any, Dict, List

import pytest

from watchlog.capture import capture_object, capture_params, params_json
from watchlog.delivery import encode_event
from watchlog.ids import uuid4

_UUID4 = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")


def test_ids_are_version_4_uuids() -> None:
    for _ in range(10_000):
        text = uuid4()
        assert _UUID4.match(text), text
        parsed = uuid.UUID(text)
        assert parsed.version == 4 and parsed.variant == uuid.RFC_4122 and str(parsed) == text


def test_ids_are_unique_across_threads() -> None:
    seen: List[List[str]] = []

    def draw() -> None:
        seen.append([uuid4() for _ in range(50_000)])

    threads = [threading.Thread(target=draw) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    every = [text for part in seen for text in part]
    assert len(set(every)) == len(every) == 200_000


def test_ids_use_every_random_bit() -> None:
    # Each of the 122 random bits is set in some id and clear in another.
    ones, zeros = 0, 0
    for _ in range(2000):
        value = uuid.UUID(uuid4()).int
        ones |= value
        zeros |= ~value
    fixed = (0xF000 << 64) | (0xC000 << 48)
    everything = (1 << 128) - 1
    assert ones | fixed == everything and zeros & everything | fixed == everything


def test_seeding_random_does_not_repeat_ids() -> None:
    import random

    random.seed(42)
    first = uuid4()
    random.seed(42)
    assert uuid4() != first


def test_ids_come_from_the_operating_system_not_a_seeded_generator(monkeypatch: pytest.MonkeyPatch) -> None:
    # A seeded generator's ids can be predicted from earlier ones; os.urandom's cannot.
    import watchlog.ids as ids

    reads: List[int] = []
    real = os.urandom

    def counted(n: int) -> bytes:
        reads.append(n)
        return real(n)

    monkeypatch.setattr(ids.os, "urandom", counted)
    monkeypatch.setattr(ids, "_pool", ids._Pool())
    made = [uuid4() for _ in range(1000)]
    assert len(set(made)) == 1000
    assert sum(reads) >= 1000 * 16 and len(reads) <= 1000 // 256 + 1


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork here")
def test_a_forked_child_draws_other_ids_than_its_parent() -> None:
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        os.write(write, "\n".join(uuid4() for _ in range(100)).encode())
        os._exit(0)
    os.close(write)
    parent = {uuid4() for _ in range(100)}
    with os.fdopen(read) as child_out:
        child = set(child_out.read().split("\n"))
    os.waitpid(pid, 0)
    assert len(child) == 100 and not parent & child


PARAMS: List[Dict[str, Any]] = [
    {"id": "42"},
    {"order": "42", "password": "hunter2", "Api-Key": "k", "x_api_key": "k"},
    {"card": "4111 1111 1111 1111", "short": "4111111111", "long": "4111-1111-1111-1111-1111"},
    {"é": "ü", "emoji": "\U0001f600", "lone": "\ud800", "ctl": "\x00\x1f\"\\"},
    {"big": "x" * 3000},
    {"bigger": "\x01" * 3000},
    {"n": 1, "b": True, "none": None},
    {"list": ["a", "4111111111111111"], "d": {"token": "t"}},
    {"": ""},
]


@pytest.mark.parametrize("params", PARAMS)
@pytest.mark.parametrize("limit", [256, 16384])
def test_parameters_are_captured_as_the_general_path_does(params: Dict[str, Any], limit: int) -> None:
    general = capture_object({str(k): v if isinstance(v, (str, bool, dict, list)) or v is None else str(v)
                              for k, v in params.items()}, limit)
    assert capture_params(params, limit) == general
    written = params_json(params, limit)
    assert written is not None and general is not None
    assert written.encode("utf-8", "surrogatepass") == encode_event(general) or \
        encode_event(general).isascii() and json.loads(written) == general


def test_no_parameters_are_none() -> None:
    assert params_json({}, 256) is None and params_json(None, 256) is None and capture_params({}, 256) is None


def test_a_parameter_over_the_limit_is_marked_too_large() -> None:
    captured = capture_params({"big": "\x01" * 300}, 256)
    assert captured == {"_watchlog_omitted": "too_large", "bytes": 1810, "limit": 256}

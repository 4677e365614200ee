"""The shared vectors (packages/conformance) drive the SDK's pure functions: masking, the event
of an exchange, and the retry step each answer leads to."""

from __future__ import annotations

import datetime
import json
import re
from typing import Any, Dict

import pytest

from conformance import cases, vectors
from watchlog.event import MISSING, EventOptions, RequestInfo, ResponseInfo, build_event, request_id_for
from watchlog.masking import MASK, mask_value
from watchlog.retry import Answer, NoAnswer, Retry, Settle, Split, decide

MASKING = cases("masking")
EVENTS = cases("events")
RETRY = cases("retry")


def test_the_mask_is_the_shared_one() -> None:
    assert vectors("masking")["mask"] == MASK


@pytest.mark.parametrize("case", MASKING, ids=[c["name"] for c in MASKING])
def test_masking(case: Dict[str, Any]) -> None:
    before = json.dumps(case["input"])
    assert mask_value(case["input"]) == case["output"]
    assert json.dumps(case["input"]) == before, "the input is left as it was"
    assert mask_value(case["output"]) == case["output"], "masking twice is masking once"


_PRINTABLE = re.compile(r"^[\x21-\x7e]{1,255}$")


@pytest.mark.parametrize("case", EVENTS, ids=[c["name"] for c in EVENTS])
def test_event(case: Dict[str, Any]) -> None:
    options = EventOptions(**{**vectors("events")["defaults"]["options"], **case.get("options", {})})
    req, res = case["request"], case["response"]
    request = RequestInfo(
        method=req["method"],
        url=req["url"],
        route=req.get("route"),
        path_params=req.get("path_params"),
        headers=req.get("headers", {}),
        body=req.get("body", MISSING),
        ip=req.get("ip"),
    )
    response = ResponseInfo(
        status=res["status"], completed=res["completed"], body=res.get("body", MISSING), error=res.get("error")
    )
    request_id, generated = request_id_for(request.headers)
    event = build_event(options, request, response, case.get("identity"), request_id, 3.4)
    expected = case["event"]
    if expected is None:
        assert event is None
        return
    assert event is not None
    assert isinstance(event.pop("idempotency_key"), str)
    elapsed = event.pop("response_time")
    assert isinstance(elapsed, int) and elapsed >= 0
    expected = {k: v for k, v in expected.items() if k not in ("idempotency_key", "response_time")}
    if expected.get("request_id") == "<generated>":
        assert generated and _PRINTABLE.match(event["request_id"])
        expected["request_id"] = event["request_id"]
    assert event == expected
    assert list(event) == [k for k in event if k in expected]
    sets_header = generated and options.set_request_id_header
    assert sets_header == case["sets_request_id_header"]


def _answer(given: Dict[str, Any]) -> Any:
    if "network" in given:
        return NoAnswer(given["network"])
    body = given.get("body")
    text = body if isinstance(body, str) else ("" if body is None else json.dumps(body))
    return Answer(given["status"], given.get("headers", {}), text)


@pytest.mark.parametrize("case", RETRY, ids=[c["name"] for c in RETRY])
def test_retry(case: Dict[str, Any]) -> None:
    now = datetime.datetime.fromisoformat(case["now"].replace("Z", "+00:00")).timestamp()
    options = case["options"]
    steps = []
    for attempt, given in enumerate(case["answers"]):
        step = decide(_answer(given), attempt, case["batch_events"], options["retry_initial_delay_ms"],
                      options["retry_max_delay_ms"], case["random"], now)
        if isinstance(step, Retry):
            steps.append({"retry_in_ms": step.delay_ms})
        elif isinstance(step, Split):
            steps.append({"split": True})
        else:
            assert isinstance(step, Settle)
            steps.append({"settle": step.outcome})
    assert steps == case["steps"]

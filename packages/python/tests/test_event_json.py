"""The middlewares' events are written as JSON directly (watchlog.event_json): the bytes must be
those of ``encode_event(build_event(...))``, the reference the shared vectors check, for every
conformance case and for what those do not cover (a lone surrogate, identities, bodies, a client
that left, methods mapped or skipped)."""

from __future__ import annotations

import json
import re
from typing import Any, Dict, List, Optional

import pytest

from conformance import cases, vectors
from watchlog.delivery import encode_event
from watchlog.event import MISSING, EventOptions, RequestInfo, ResponseInfo, build_event
from watchlog.event_json import encode_exchange

_KEY = re.compile(rb'"idempotency_key":"[0-9a-f-]{36}"')


def _same(options: EventOptions, request: RequestInfo, response: ResponseInfo, identity: Any,
          request_id: str = "req-1", elapsed: float = 3.4) -> Optional[bytes]:
    built = build_event(options, request, response, identity, request_id, elapsed)
    written = encode_exchange(options, request, response, identity, request_id, elapsed)
    if built is None:
        assert written is None
        return None
    assert written is not None
    expected = encode_event(built)
    assert _KEY.sub(b"KEY", written) == _KEY.sub(b"KEY", expected)
    assert len(_KEY.findall(written)) == 1
    return written


EVENTS = cases("events")


@pytest.mark.parametrize("case", EVENTS, ids=[c["name"] for c in EVENTS])
def test_every_conformance_case(case: Dict[str, Any]) -> None:
    options = EventOptions(**{**vectors("events")["defaults"]["options"], **case.get("options", {})})
    req, res = case["request"], case["response"]
    request = RequestInfo(method=req["method"], url=req["url"], route=req.get("route"),
                          path_params=req.get("path_params"), headers=req.get("headers", {}),
                          body=req.get("body", MISSING), ip=req.get("ip"))
    response = ResponseInfo(status=res["status"], completed=res["completed"], body=res.get("body", MISSING),
                            error=res.get("error"))
    _same(options, request, response, case.get("identity"))


BASE = EventOptions(service_name="svc", environment="staging")
BODIES = EventOptions(service_name="sv\u00e9 \"x\"", environment="production", capture_request_body=True,
                      capture_response_body=True, max_body_bytes=256, unsupported_methods="nearest",
                      anonymous_identifier="anon\u2603")

REQUESTS: List[RequestInfo] = [
    RequestInfo("GET", "/orders/42", route="/orders/{id}", path_params={"id": "42"}, ip="127.0.0.1"),
    RequestInfo("get", "/a?b=1&b=2&card=4111111111111111&password=x#frag", headers={"user-agent": "curl/8"}),
    RequestInfo("POST", "/\ud800lone?q=\udfff", headers={"user-agent": "a\ud83d\ude00"}, body={"x": "\ud800"}),
    RequestInfo("PATCH", "/p/" + "x" * 300, path_params={"n": 3, "f": 1.5, "none": None}, body={"f": 1e-7, "n": 10**20},
                ip="x" * 65),
    RequestInfo("HEAD", "/", headers={"user-agent": "u" * 600}, body=[1, 2]),
    RequestInfo("OPTIONS", "/skip"),
    RequestInfo("DELETE", "/d?", route="", body={"deep": {"a": {"b": {}}}}, ip=""),
    RequestInfo("PUT", "/\u00e9t\u00e9?caf\u00e9=cr\u00e8me", body={"token": "t", "list": [{"cvv": 1}]}),
]
RESPONSES: List[ResponseInfo] = [
    ResponseInfo(200),
    ResponseInfo(None, completed=False),
    ResponseInfo(None, completed=True),
    ResponseInfo(201, completed=False, body={"id": "\u00e9"}),
    ResponseInfo(500, error="boom \"quoted\"\n" + "e" * 1200),
    ResponseInfo(True, body={"big": "x" * 400}),  # type: ignore[arg-type]
    ResponseInfo(700, body={"k": float("nan")}),
]
IDENTITIES: List[Any] = [None, "", "user-1", {"identifier": "u", "user_email": "a@b.c", "user_roles": ["r", 1],
                                              "tenant_id": "t", "session_id": "s" * 300}, {"user_name": 5}, 42]


@pytest.mark.parametrize("options", [BASE, BODIES], ids=["defaults", "bodies"])
@pytest.mark.parametrize("request_info", REQUESTS, ids=[f"request{i}" for i in range(len(REQUESTS))])
def test_requests_responses_and_identities(options: EventOptions, request_info: RequestInfo) -> None:
    for response in RESPONSES:
        for identity in IDENTITIES:
            _same(options, request_info, response, identity, elapsed=0.5)


def test_a_lone_surrogate_is_written_as_ascii_json() -> None:
    written = _same(BASE, RequestInfo("GET", "/\ud800"), ResponseInfo(200), None)
    assert written is not None and written.isascii() and json.loads(written)["path"] == "/\ud800"


def test_a_mapped_method_and_a_policy_function() -> None:
    mapped = EventOptions(service_name="s", environment="production", unsupported_methods=lambda m: "POST")
    written = _same(mapped, RequestInfo("PROPFIND", "/x"), ResponseInfo(207), None)
    assert written is not None and json.loads(written)["method"] == "POST"

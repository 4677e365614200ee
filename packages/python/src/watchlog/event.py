"""The event for one request, from a framework-neutral description of the request and its
response. Pure (apart from generated ids), so the shared conformance cases drive it directly."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Mapping, Optional, Tuple, Union
from urllib.parse import unquote

from ._json import truncate, utf16_len
from .capture import capture_object, capture_params
from .ids import uuid4

__all__ = [
    "CLIENT_CLOSED",
    "ENVIRONMENTS",
    "MISSING",
    "EventOptions",
    "MethodPolicy",
    "RequestInfo",
    "ResponseInfo",
    "build_event",
    "identity_fields",
    "incoming_request_id",
    "incoming_request_id_of",
    "nearest_method",
    "parse_query",
    "path_of",
    "record_method",
]

ENVIRONMENTS = ("production", "staging", "development")
AUDIT_METHODS = ("GET", "POST", "PUT", "DELETE")

LIMIT_PATH = 255
LIMIT_IDENTIFIER = 100
LIMIT_SERVICE_NAME = 255
LIMIT_USER_EMAIL = 320
LIMIT_IP = 64
LIMIT_REQUEST_ID = 255
LIMIT_SESSION_ID = 255
LIMIT_USER_AGENT = 512
LIMIT_ERROR_MESSAGE = 1000

#: nginx's status for a client that left before any response was sent: there was no status.
CLIENT_CLOSED = 499
CLIENT_CLOSED_MESSAGE = "client closed the connection before the response was complete"


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


#: "There was no body", as opposed to a body that was JSON ``null``.
MISSING: Any = _Missing()

MethodPolicy = Union[str, Callable[[str], Optional[str]]]


@dataclass(frozen=True)
class EventOptions:
    """The options the event depends on (the client's are a superset)."""

    service_name: str
    environment: str
    capture_request_body: bool = False
    capture_response_body: bool = False
    max_body_bytes: int = 16384
    unsupported_methods: MethodPolicy = "skip"
    anonymous_identifier: str = "anonymous"
    set_request_id_header: bool = True


@dataclass
class RequestInfo:
    """A request as a framework sees it."""

    method: str
    #: Path and query as on the request line.
    url: str
    #: The route template that matched, or None.
    route: Optional[str] = None
    path_params: Optional[Mapping[str, Any]] = None
    #: Lower-case names, one value each.
    headers: Mapping[str, str] = field(default_factory=dict)
    #: The parsed JSON body, or MISSING.
    body: Any = MISSING
    ip: Optional[str] = None


@dataclass
class ResponseInfo:
    """The response as it went: its status (None: none was sent), whether it was complete."""

    status: Optional[int]
    completed: bool = True
    body: Any = MISSING
    error: Optional[str] = None


def js_round(ms: float) -> int:
    """Whole milliseconds as the Node SDK rounds them (half up; Python's round() goes to even)."""
    return max(0, math.floor(ms + 0.5))


def nearest_method(method: str) -> Optional[str]:
    """PATCH is recorded as PUT (both update), HEAD as GET; the rest are skipped."""
    return {"PATCH": "PUT", "HEAD": "GET"}.get(method)


def record_method(method: str, policy: MethodPolicy) -> Optional[str]:
    """The method to record, or None to skip the request."""
    upper = (method or "").upper()
    if upper in AUDIT_METHODS:
        return upper
    if policy == "nearest":
        return nearest_method(upper)
    if not callable(policy):
        return None
    try:
        mapped = policy(upper)
    except Exception:
        return None
    return mapped if mapped in AUDIT_METHODS else None


_PRINTABLE = re.compile(r"^[\x21-\x7e]+$")
_TRACEPARENT = re.compile(r"^[0-9a-f]{2}-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}")


def incoming_request_id(headers: Mapping[str, str]) -> Optional[str]:
    """``X-Request-ID`` when it is a sane token, else a valid ``traceparent``'s trace id."""
    return incoming_request_id_of(headers.get("x-request-id"), headers.get("traceparent"))


def incoming_request_id_of(given: Optional[str], traceparent: Optional[str]) -> Optional[str]:
    """incoming_request_id() of those two headers' values (None: absent)."""
    if given:
        given = given.strip()
        if given and len(given) <= LIMIT_REQUEST_ID and _PRINTABLE.match(given):
            return given
    if traceparent:
        found = _TRACEPARENT.match(traceparent.strip().lower())
        if found and found.group(1) != "0" * 32:
            return found.group(1)
    return None


def request_id_for(headers: Mapping[str, str]) -> Tuple[str, bool]:
    """The request's id, and whether the SDK generated it."""
    given = incoming_request_id(headers)
    return (given, False) if given is not None else (uuid4(), True)


def path_of(url: str) -> str:
    end = len(url)
    for mark in ("?", "#"):
        at = url.find(mark)
        if at != -1:
            end = min(end, at)
    return url[:end] or "/"


def _decode(text: str) -> str:
    return unquote(text.replace("+", " "), encoding="utf-8", errors="replace")


def parse_query(url: str) -> Dict[str, Union[str, List[str]]]:
    """The query as ``URLSearchParams`` reads it: a key given once is a string, a repeated one
    the list of its values in order."""
    at = url.find("?")
    if at == -1:
        return {}
    query = url[at + 1 :]
    hash_at = query.find("#")
    if hash_at != -1:
        query = query[:hash_at]
    out: Dict[str, Union[str, List[str]]] = {}
    for part in query.split("&"):
        if not part:
            continue
        key, _, value = part.partition("=")
        name, text = _decode(key), _decode(value)
        seen = out.get(name)
        if seen is None:
            out[name] = text
        elif isinstance(seen, list):
            seen.append(text)
        else:
            out[name] = [seen, text]
    return out


def _text(value: Any) -> Optional[str]:
    return value if isinstance(value, str) and value else None


def identity_fields(result: Any, anonymous: str) -> Dict[str, Any]:
    """The identity fields of an event from what ``identify`` gave: a string (the identifier),
    a mapping of identity fields, or None. A field of the wrong type is left out."""
    if result is None:
        return {"identifier": anonymous}
    if isinstance(result, str):
        return {"identifier": truncate(result, LIMIT_IDENTIFIER) if result else anonymous}
    if not isinstance(result, Mapping):
        return {"identifier": anonymous}
    given = _text(result.get("identifier"))
    out: Dict[str, Any] = {"identifier": truncate(given, LIMIT_IDENTIFIER) if given else anonymous}
    email = _text(result.get("user_email"))
    # A cut e-mail address is a wrong one: left out instead.
    if email and utf16_len(email) <= LIMIT_USER_EMAIL:
        out["user_email"] = email
    for name in ("user_name", "user_type", "tenant_id"):
        text = _text(result.get(name))
        if text:
            out[name] = text
    roles = result.get("user_roles")
    if isinstance(roles, (list, tuple)):
        out["user_roles"] = [role for role in roles if isinstance(role, str)]
    session = _text(result.get("session_id"))
    if session:
        out["session_id"] = truncate(session, LIMIT_SESSION_ID)
    return out


def build_event(
    options: EventOptions,
    request: RequestInfo,
    response: ResponseInfo,
    identity: Any,
    request_id: str,
    response_time_ms: float,
) -> Optional[Dict[str, Any]]:
    """The event sent for this exchange (with a new idempotency key), or None when its method
    is skipped. ``identity`` is what the identify hook gave (None: nothing)."""
    method = record_method(request.method, options.unsupported_methods)
    if method is None:
        return None
    limit = options.max_body_bytes
    event: Dict[str, Any] = {
        "path": truncate(request.route or path_of(request.url), LIMIT_PATH),
        "method": method,
    }
    status = response.status
    if status is None and not response.completed:
        status = CLIENT_CLOSED
    if isinstance(status, int) and not isinstance(status, bool) and 100 <= status <= 599:
        event["status_code"] = status
    event["response_time"] = js_round(response_time_ms)
    event.update(identity_fields(identity, options.anonymous_identifier))
    event["service_name"] = options.service_name
    event["environment"] = options.environment
    if request.ip and utf16_len(request.ip) <= LIMIT_IP:
        event["ip"] = request.ip
    agent = request.headers.get("user-agent")
    if agent:
        event["user_agent"] = truncate(agent, LIMIT_USER_AGENT)
    event["request_id"] = request_id
    captured = capture_params(parse_query(request.url), limit) if "?" in request.url else None
    if captured is not None:
        event["query_params"] = captured
    captured = capture_params(dict(request.path_params), limit) if request.path_params else None
    if captured is not None:
        event["path_params"] = captured
    captured = capture_object(request.body, limit) if options.capture_request_body else None
    if captured is not None:
        event["request_body"] = captured
    captured = capture_object(response.body, limit) if options.capture_response_body else None
    if captured is not None:
        event["response_body"] = captured
    error = response.error
    if error is None and not response.completed:
        error = CLIENT_CLOSED_MESSAGE
    if error is not None:
        event["error_message"] = truncate(error, LIMIT_ERROR_MESSAGE)
    event["source"] = "backend"
    # Assigned once, as the event is queued: every retry sends it again, so none is stored twice.
    event["idempotency_key"] = uuid4()
    return event

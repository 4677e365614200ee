"""An exchange's event written straight to the JSON the delivery sends, as the middlewares record
it: the very bytes ``encode_event(build_event(...))`` gives (tests/test_event_json.py holds the
two to each other on every shared conformance case and more), in about half the time, without
the event's dict. Fields that cannot vary are written once per client; strings are escaped by
the ``json`` module's own C function, the one its encoder uses."""

from __future__ import annotations

import json
from json.encoder import encode_basestring
from typing import Any, Mapping, Optional

from ._json import truncate, utf16_len
from .capture import capture_object, params_json
from .event import (
    AUDIT_METHODS,
    CLIENT_CLOSED,
    CLIENT_CLOSED_MESSAGE,
    LIMIT_ERROR_MESSAGE,
    LIMIT_IP,
    LIMIT_PATH,
    LIMIT_USER_AGENT,
    EventOptions,
    RequestInfo,
    ResponseInfo,
    identity_fields,
    js_round,
    parse_query,
    path_of,
    record_method,
)
from .ids import uuid4

__all__ = ["EventWriter", "encode_exchange"]

# As delivery.encode_event writes a dict: compact, non-ASCII as it is, NaN refused.
_ENCODE = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode
_ENCODE_ASCII = json.JSONEncoder(separators=(",", ":"), allow_nan=False).encode
_string = encode_basestring


class EventWriter:
    """Writes the events of one client's options."""

    def __init__(self, options: EventOptions) -> None:
        self.options = options
        self._anonymous = f'"identifier":{_string(options.anonymous_identifier)}'
        self._service = f',"service_name":{_string(options.service_name)},"environment":{_string(options.environment)}'

    def write(
        self,
        method: str,
        url: str,
        route: Optional[str],
        path_params: Optional[Mapping[str, Any]],
        agent: Optional[str],
        ip: Optional[str],
        request_body: Any,
        status: Optional[int],
        completed: bool,
        response_body: Any,
        error: Optional[str],
        identity: Any,
        request_id: str,
        response_time_ms: float,
    ) -> Optional[bytes]:
        """The event's JSON, as ``build_event`` of the same request and response would be
        encoded; None when its method is skipped."""
        o = self.options
        upper = method if method in AUDIT_METHODS else record_method(method, o.unsupported_methods)
        if upper is None:
            return None
        path = route or path_of(url)
        parts = ['{"path":', _string(truncate(path, LIMIT_PATH)), ',"method":"', upper, '"']
        if status is None and not completed:
            status = CLIENT_CLOSED
        if isinstance(status, int) and not isinstance(status, bool) and 100 <= status <= 599:
            parts.append(',"status_code":%d' % status)
        # js_round, inline: int() is floor() from 0 up, and NaN is not >= 0 (js_round raises on it).
        parts.append(',"response_time":%d,' % (int(response_time_ms + 0.5) if response_time_ms >= 0 else
                                                 js_round(response_time_ms)))
        parts.append(self._anonymous if identity is None else
                     _ENCODE(identity_fields(identity, o.anonymous_identifier))[1:-1])
        parts.append(self._service)
        if ip and (len(ip) <= LIMIT_IP if ip.isascii() else utf16_len(ip) <= LIMIT_IP):
            parts += [',"ip":', _string(ip)]
        if agent:
            parts += [',"user_agent":', _string(truncate(agent, LIMIT_USER_AGENT))]
        parts += [',"request_id":', _string(request_id)]
        limit = o.max_body_bytes
        written = params_json(parse_query(url), limit) if "?" in url else None
        if written is not None:
            parts += [',"query_params":', written]
        written = params_json(path_params if type(path_params) is dict else dict(path_params), limit) \
            if path_params else None
        if written is not None:
            parts += [',"path_params":', written]
        captured = capture_object(request_body, limit) if o.capture_request_body else None
        if captured is not None:
            parts += [',"request_body":', _ENCODE(captured)]
        captured = capture_object(response_body, limit) if o.capture_response_body else None
        if captured is not None:
            parts += [',"response_body":', _ENCODE(captured)]
        if error is None and not completed:
            error = CLIENT_CLOSED_MESSAGE
        if error is not None:
            parts += [',"error_message":', _string(truncate(error, LIMIT_ERROR_MESSAGE))]
        parts += [',"source":"backend","idempotency_key":"', uuid4(), '"}']
        text = "".join(parts)
        try:
            return text.encode("utf-8")
        except UnicodeEncodeError:
            # A lone surrogate: encode_event writes the whole event as ASCII then.
            return _ENCODE_ASCII(json.loads(text)).encode("ascii")

    def write_info(self, request: RequestInfo, response: ResponseInfo, identity: Any, request_id: str,
                   response_time_ms: float) -> Optional[bytes]:
        return self.write(request.method, request.url, request.route, request.path_params,
                          request.headers.get("user-agent"), request.ip, request.body, response.status,
                          response.completed, response.body, response.error, identity, request_id, response_time_ms)


def encode_exchange(options: EventOptions, request: RequestInfo, response: ResponseInfo, identity: Any,
                    request_id: str, response_time_ms: float) -> Optional[bytes]:
    """``encode_event(build_event(...))`` of the same arguments, written directly."""
    return EventWriter(options).write_info(request, response, identity, request_id, response_time_ms)

"""The client: options checked at start, the middlewares' shared recording, flush and close."""

from __future__ import annotations

import asyncio
import atexit
import inspect
import math
import os
import time
import weakref
from typing import Any, Callable, Dict, Mapping, Optional

from ._json import truncate
from .delivery import Delivery
from .event import (
    AUDIT_METHODS,
    ENVIRONMENTS,
    LIMIT_ERROR_MESSAGE,
    LIMIT_IP,
    LIMIT_PATH,
    LIMIT_REQUEST_ID,
    LIMIT_SERVICE_NAME,
    LIMIT_USER_AGENT,
    RequestInfo,
    ResponseInfo,
    identity_fields,
    incoming_request_id_of,
    js_round,
    record_method,
)
from .event_json import EventWriter
from .capture import capture_object, capture_params
from .ids import uuid4
from .options import resolve_options
from .report import Reporter

__all__ = ["Exchange", "Watchlog"]

Identify = Callable[[Any], Any]


class Exchange:
    """A request being timed: its id, and whether the SDK generated it."""

    __slots__ = ("start", "request_id", "generated")

    def __init__(self, start: float, request_id: str, generated: bool) -> None:
        self.start = start
        self.request_id = request_id
        self.generated = generated


def _message(error: BaseException) -> str:
    try:
        return str(error) or type(error).__name__
    except Exception:
        return type(error).__name__


def _close_at_exit(ref: "weakref.ReferenceType[Watchlog]") -> None:
    client = ref()
    if client is not None:
        client.close()


class Watchlog:
    """``Watchlog(endpoint=..., api_key=..., service_name=..., environment=...)``: raises one
    WatchlogConfigError naming every faulty option; afterwards nothing it does raises into the
    application."""

    def __init__(self, **options: Any) -> None:
        self._options = resolve_options(options)
        o = self._options
        self._reporter = Reporter(o.logger, o.on_error, o.batch_url.rsplit("/v1/audit/batch", 1)[0])
        self._delivery = Delivery(o, self._reporter)
        self._writer = EventWriter(o.event)
        self._enabled = o.enabled
        self._policy = o.event.unsupported_methods
        # What the middlewares read on every request, as plain attributes (a property is a call).
        self._set_header = o.event.set_request_id_header
        self._capture_request = o.event.capture_request_body
        self._capture_response = o.event.capture_response_body
        self._closed_stats: Optional[Dict[str, int]] = None
        ref = weakref.ref(self)
        atexit.register(_close_at_exit, ref)
        if hasattr(os, "register_at_fork"):
            os.register_at_fork(after_in_child=lambda: _after_fork(ref))

    # ---- framework integrations -------------------------------------------------------------

    def asgi(self, app: Any, *, identify: Optional[Identify] = None) -> Any:
        """ASGI middleware (Starlette, FastAPI, any ASGI app): ``app = watchlog.asgi(app)``."""
        from .asgi import WatchlogMiddleware

        return WatchlogMiddleware(app, watchlog=self, identify=identify)

    def wsgi(self, app: Any, *, identify: Optional[Identify] = None) -> Any:
        """WSGI middleware (any WSGI app): ``app = watchlog.wsgi(app)``."""
        from .wsgi import WatchlogWSGI

        return WatchlogWSGI(app, watchlog=self, identify=identify)

    def flask(self, app: Any, *, identify: Optional[Identify] = None) -> Any:
        """Instruments a Flask app in place (route templates, view args, errors); returns it."""
        from .flask import instrument

        return instrument(self, app, identify)

    def django(self, *, identify: Optional[Identify] = None) -> Any:
        """A Django middleware class: assign it in a module and list it first in MIDDLEWARE."""
        from .django import middleware_class

        return middleware_class(self, identify)

    # ---- the application's side -------------------------------------------------------------

    @property
    def enabled(self) -> bool:
        return self._options.enabled

    @property
    def set_request_id_header(self) -> bool:
        return self._options.event.set_request_id_header

    @property
    def capture_request_body(self) -> bool:
        return self._options.event.capture_request_body

    @property
    def capture_response_body(self) -> bool:
        return self._options.event.capture_response_body

    @property
    def max_body_bytes(self) -> int:
        return self._options.event.max_body_bytes

    def flush(self, timeout: float = 5.0) -> bool:
        """Sends what is queued now; True once it is settled, False after ``timeout`` seconds."""
        try:
            return self._delivery.flush(max(0.0, timeout))
        except Exception:
            return False

    def close(self, timeout: float = 5.0) -> Dict[str, int]:
        """Sends everything left, dropping what is still unsent after ``timeout`` seconds;
        returns the final stats. Idempotent; never raises."""
        if self._closed_stats is not None:
            return self.stats()
        try:
            self._closed_stats = self._delivery.close(max(0.0, timeout))
        except Exception:
            self._closed_stats = self.stats()
        return self._closed_stats

    def stats(self) -> Dict[str, int]:
        """queued = sent + replayed + rejected + dropped + failures + pending, at all times."""
        return self._delivery.stats()

    def record(self, event: Mapping[str, Any]) -> None:
        """Queues an event of your own (a job, a message handler), shaped like the others;
        ``service_name``, ``environment`` and ``identifier`` default from the options."""
        try:
            self._record(event)
        except Exception as error:
            self._reporter.failed("failed", 1, f"could not record an event ({_message(error)})")

    def _record(self, given: Mapping[str, Any]) -> None:
        e = self._options.event
        method = record_method(str(given.get("method", "")), e.unsupported_methods)
        if method is None:
            self._delivery.skipped_method()
            return
        path = given.get("path")
        event: Dict[str, Any] = {"path": truncate(path if isinstance(path, str) and path else "/", LIMIT_PATH),
                                 "method": method}
        status = given.get("status_code")
        if isinstance(status, int) and not isinstance(status, bool) and 100 <= status <= 599:
            event["status_code"] = status
        elapsed = given.get("response_time")
        if isinstance(elapsed, (int, float)) and not isinstance(elapsed, bool) and math.isfinite(elapsed):
            event["response_time"] = js_round(elapsed)
        event.update(identity_fields(given, e.anonymous_identifier))
        service = given.get("service_name")
        event["service_name"] = truncate(service, LIMIT_SERVICE_NAME) if isinstance(service, str) and service \
            else e.service_name
        env = given.get("environment")
        event["environment"] = env if env in ENVIRONMENTS else e.environment
        texts = {"ip": None, "user_agent": LIMIT_USER_AGENT, "request_id": LIMIT_REQUEST_ID,
                 "error_message": LIMIT_ERROR_MESSAGE}
        for name, cut in texts.items():
            value = given.get(name)
            if isinstance(value, str) and value:
                if cut is None:
                    if len(value) <= LIMIT_IP:
                        event[name] = value
                else:
                    event[name] = truncate(value, cut)
        for name in ("query_params", "path_params"):
            captured = capture_params(given.get(name), e.max_body_bytes)
            if captured is not None:
                event[name] = captured
        for name in ("request_body", "response_body"):
            captured = capture_object(given.get(name), e.max_body_bytes)
            if captured is not None:
                event[name] = captured
        event["source"] = "browser" if given.get("source") == "browser" else "backend"
        event["idempotency_key"] = uuid4()
        self._delivery.enqueue(event)

    # ---- what the middlewares share ---------------------------------------------------------

    def _begin(self, method: str, headers: Mapping[str, str]) -> Optional[Exchange]:
        """Starts timing a request; None when it is not recorded (disabled, or its method
        skipped)."""
        return self._begin_of(method, headers.get("x-request-id"), headers.get("traceparent"))

    def _begin_of(self, method: str, given_id: Optional[str], traceparent: Optional[str]) -> Optional[Exchange]:
        """_begin() given the request's two headers that name its id (None: absent)."""
        if not self._enabled:
            return None
        start = time.perf_counter()
        if method not in AUDIT_METHODS and record_method(method, self._policy) is None:
            self._delivery.skipped_method()
            return None
        request_id = incoming_request_id_of(given_id, traceparent) if given_id or traceparent else None
        if request_id is None:
            return Exchange(start, uuid4(), True)
        return Exchange(start, request_id, False)

    def _identify_sync(self, identify: Optional[Identify], request: Any) -> Any:
        if identify is None:
            return None
        try:
            result = identify(request)
        except Exception as error:
            self._reporter.identify_failed(error)
            return None
        if inspect.isawaitable(result):
            if inspect.iscoroutine(result):
                result.close()
            self._reporter.identify_failed(TypeError("identify() returned an awaitable outside of ASGI"))
            return None
        return result

    async def _identify_async(self, identify: Optional[Identify], request: Any) -> Any:
        if identify is None:
            return None
        try:
            result = identify(request)
            if inspect.isawaitable(result):
                result = await asyncio.wait_for(result, self._options.identify_timeout_ms / 1000)
            return result
        except asyncio.CancelledError:
            raise
        except Exception as error:
            self._reporter.identify_failed(error)
            return None

    def _finish(self, exchange: Exchange, request: RequestInfo, response: ResponseInfo, identity: Any) -> None:
        """Writes the event and queues it; a bug here costs one event, never the application."""
        try:
            elapsed = (time.perf_counter() - exchange.start) * 1000
            data = self._writer.write_info(request, response, identity, exchange.request_id, elapsed)
            if data is not None:
                self._delivery.enqueue_data(data)
        except Exception as error:
            self._reporter.failed("failed", 1, f"could not record an event ({_message(error)})")

    def _finish_of(self, exchange: Exchange, method: str, url: str, route: Optional[str],
                   path_params: Optional[Mapping[str, Any]], agent: Optional[str], ip: Optional[str],
                   request_body: Any, status: Optional[int], completed: bool, response_body: Any,
                   error: Optional[str], identity: Any) -> None:
        """_finish() without the RequestInfo and ResponseInfo (the WSGI and ASGI middlewares)."""
        try:
            elapsed = (time.perf_counter() - exchange.start) * 1000
            data = self._writer.write(method, url, route, path_params, agent, ip, request_body, status, completed,
                                      response_body, error, identity, exchange.request_id, elapsed)
            if data is not None:
                self._delivery.enqueue_data(data)
        except Exception as error:
            self._reporter.failed("failed", 1, f"could not record an event ({_message(error)})")

    def _internal_error(self, error: BaseException) -> None:
        self._reporter.failed("failed", 1, f"internal error while recording a request ({_message(error)})")


def _after_fork(ref: "weakref.ReferenceType[Watchlog]") -> None:
    client = ref()
    if client is not None:
        client._delivery.after_fork()


def error_message(error: BaseException) -> str:
    return _message(error)

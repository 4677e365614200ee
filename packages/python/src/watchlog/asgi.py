"""ASGI middleware: Starlette, FastAPI and any ASGI 3 application.

``path`` is the matched route's template (Starlette and FastAPI put the route in
``scope["route"]``; a Mount's matched prefix is put before it), ``path_params`` the route's
parameters. The event is recorded when the response is over; nothing the middleware does can
change the status, headers or body the application sends, apart from ``X-Request-ID`` when the
SDK generated the id."""

from __future__ import annotations

import asyncio
import json
from typing import Any, Awaitable, Callable, Dict, List, MutableMapping, Optional

from .client import Exchange, Identify, Watchlog, error_message
from .capture import OMITTED_KEY
from .event import MISSING

__all__ = ["WatchlogMiddleware"]

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

#: A body is buffered for capture up to this many times ``max_body_bytes``: compact JSON is
#: rarely much smaller than what was sent, and a larger one is marked too large unparsed.
_BUFFER_FACTOR = 4


def _is_json(content_type: str) -> bool:
    kind = content_type.split(";", 1)[0].strip().lower()
    return kind == "application/json" or kind.endswith("+json")


def _headers(raw: Any) -> Dict[str, str]:
    out: Dict[str, str] = {}
    for name, value in raw or ():
        key = name.decode("latin-1").lower()
        if key not in out:
            out[key] = value.decode("latin-1")
    return out


class _Body:
    """A JSON body collected for capture, up to a cap."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.cap = limit * _BUFFER_FACTOR
        self.parts: List[bytes] = []
        self.size = 0

    def add(self, chunk: bytes) -> None:
        self.size += len(chunk)
        if self.size <= self.cap:
            self.parts.append(chunk)

    def value(self) -> Any:
        if self.size == 0:
            return MISSING
        if self.size > self.cap:
            # Not parsed: too large whatever its compact JSON; the size is the one it had on the wire.
            return {OMITTED_KEY: "too_large", "bytes": self.size, "limit": self.limit}
        try:
            return json.loads(b"".join(self.parts))
        except ValueError:
            return MISSING


def _route_of(scope: Scope, root_path: str) -> Optional[str]:
    route = scope.get("route")
    path = getattr(route, "path", None)
    # A Mount matched but none of its routes did: that is no route.
    if not isinstance(path, str) or hasattr(route, "routes"):
        return None
    prefix = scope.get("root_path", "")
    if prefix == root_path:
        return path
    prefix = str(prefix)
    mounted = prefix[len(root_path):] if prefix.startswith(root_path) else ""
    return mounted + path


class _Exchange:
    """One request's state: what the response did, as the wrapped ``receive`` and ``send`` see
    it (bound methods of one object: cheaper than closures over a dict)."""

    __slots__ = ("client", "exchange", "root_path", "agent", "set_header", "request_body", "response_body",
                 "status", "completed", "gone", "_receive", "_send")

    def __init__(self, client: Watchlog, exchange: Exchange, root_path: str, agent: Optional[str],
                 request_body: Optional[_Body], receive: Receive, send: Send) -> None:
        self.client = client
        self.exchange = exchange
        self.root_path = root_path
        self.agent = agent
        self.set_header = exchange.generated and client._set_header
        self.request_body = request_body
        self.response_body: Optional[_Body] = None
        self.status: Optional[int] = None
        self.completed = False
        self.gone = False
        self._receive = receive
        self._send = send

    async def receive(self) -> Message:
        message = await self._receive()
        kind = message.get("type")
        if kind == "http.request":
            if self.request_body is not None:
                self.request_body.add(message.get("body", b""))
        elif kind == "http.disconnect" and not self.completed:
            # Servers ignore what is sent after this (uvicorn does): the response never left.
            self.gone = True
        return message

    async def send(self, message: Message) -> None:
        final = False
        try:
            kind = message.get("type")
            if kind == "http.response.body":
                if self.response_body is not None:
                    self.response_body.add(message.get("body", b""))
                final = not message.get("more_body", False)
            elif kind == "http.response.start" and not self.gone:
                message = self._started(message)
        except Exception as error:
            self.client._internal_error(error)
        await self._send(message)
        if final:
            self.completed = True

    def _started(self, message: Message) -> Message:
        client = self.client
        self.status = message.get("status")
        if self.set_header:
            headers = message.get("headers") or []
            for name, _ in headers:
                if name.lower() == b"x-request-id":
                    break
            else:
                message = {**message, "headers": [*headers, (b"x-request-id",
                                                             self.exchange.request_id.encode("ascii"))]}
        if client._capture_response and _is_json(_headers(message.get("headers")).get("content-type", "")):
            self.response_body = _Body(client.max_body_bytes)
        return message


class WatchlogMiddleware:
    """``app.add_middleware(WatchlogMiddleware, watchlog=client)`` or ``client.asgi(app)``."""

    def __init__(self, app: Any, watchlog: Watchlog, identify: Optional[Identify] = None) -> None:
        self.app = app
        self.watchlog = watchlog
        self.identify = identify

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope.get("type") != "http":
            await self.app(scope, receive, send)
            return
        state: Optional[_Exchange] = None
        try:
            state = self._begin(scope, receive, send)
        except Exception as failure:
            self.watchlog._internal_error(failure)
        if state is None:
            await self.app(scope, receive, send)
            return
        error: Optional[BaseException] = None
        try:
            await self.app(scope, state.receive, state.send)
        except BaseException as raised:
            error = raised
            raise
        finally:
            if self.identify is None:
                self._record(scope, state, error, None)
            else:
                await self._record_identified(scope, state, error)

    def _begin(self, scope: Scope, receive: Receive, send: Send) -> Optional[_Exchange]:
        """Reads only the headers the event needs (the first of each name, as a dict would)."""
        given = traceparent = agent = content_type = None
        for name, value in scope.get("headers") or ():
            key = name.lower()
            if key in _WANTED:
                if key == b"x-request-id":
                    given = value.decode("latin-1") if given is None else given
                elif key == b"traceparent":
                    traceparent = value.decode("latin-1") if traceparent is None else traceparent
                elif key == b"user-agent":
                    agent = value.decode("latin-1") if agent is None else agent
                elif content_type is None:
                    content_type = value.decode("latin-1")
        client = self.watchlog
        exchange = client._begin_of(str(scope.get("method", "")), given, traceparent)
        if exchange is None:
            return None
        scope["watchlog.request_id"] = exchange.request_id
        request_body = _Body(client.max_body_bytes) \
            if client._capture_request and content_type is not None and _is_json(content_type) else None
        return _Exchange(client, exchange, str(scope.get("root_path", "")), agent, request_body, receive, send)

    async def _record_identified(self, scope: Scope, state: _Exchange, error: Optional[BaseException]) -> None:
        client = self.watchlog
        try:
            if isinstance(error, asyncio.CancelledError):
                identity = client._identify_sync(self.identify, _request_for(scope))
            else:
                identity = await client._identify_async(self.identify, _request_for(scope))
        except asyncio.CancelledError:
            raise
        except Exception as failure:
            client._internal_error(failure)
            return
        self._record(scope, state, error, identity)

    def _record(self, scope: Scope, state: _Exchange, error: Optional[BaseException], identity: Any) -> None:
        client = self.watchlog
        try:
            status = state.status
            completed = state.completed and not state.gone
            message = None
            if error is not None and not isinstance(error, asyncio.CancelledError):
                message = error_message(error)
                if status is None:
                    # The server answers an unhandled error with a 500 once it leaves the app.
                    status, completed = 500, True
            query = scope.get("query_string", b"")
            raw_path = scope.get("raw_path") or str(scope.get("path", "/")).encode("utf-8")
            url = raw_path.decode("utf-8", "replace") + ("?" + query.decode("latin-1") if query else "")
            peer = scope.get("client")
            params = scope.get("path_params")
            request_body, response_body = state.request_body, state.response_body
            client._finish_of(
                state.exchange, str(scope.get("method", "")), url, _route_of(scope, state.root_path),
                params if isinstance(params, dict) else None, state.agent, str(peer[0]) if peer else None,
                request_body.value() if request_body is not None else MISSING, status, completed,
                response_body.value() if response_body is not None else MISSING, message, identity)
        except Exception as failure:
            client._internal_error(failure)


_WANTED = frozenset((b"x-request-id", b"traceparent", b"user-agent", b"content-type"))


def _request_for(scope: Scope) -> Any:
    """What identify() is given: a Starlette Request when Starlette is installed, else the scope."""
    try:
        from starlette.requests import Request
    except ImportError:
        return scope
    return Request(scope)

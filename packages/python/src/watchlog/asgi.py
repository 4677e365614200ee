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
from .event import MISSING, RequestInfo, ResponseInfo

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
    prefix = str(scope.get("root_path", ""))
    mounted = prefix[len(root_path):] if prefix.startswith(root_path) else ""
    return mounted + path


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
        client = self.watchlog
        exchange: Optional[Exchange] = None
        try:
            headers = _headers(scope.get("headers"))
            exchange = client._begin(str(scope.get("method", "")), headers)
        except Exception as error:
            client._internal_error(error)
        if exchange is None:
            await self.app(scope, receive, send)
            return
        await self._handle(scope, receive, send, exchange, headers)

    async def _handle(self, scope: Scope, receive: Receive, send: Send, exchange: Exchange,
                      headers: Dict[str, str]) -> None:
        client = self.watchlog
        scope["watchlog.request_id"] = exchange.request_id
        limit = client.max_body_bytes
        request_body = _Body(limit) if client.capture_request_body and _is_json(headers.get("content-type", "")) \
            else None
        state: Dict[str, Any] = {"status": None, "completed": False, "response_body": None, "gone": False}
        root_path = str(scope.get("root_path", ""))
        set_header = exchange.generated and client.set_request_id_header

        async def receive_wrapper() -> Message:
            message = await receive()
            kind = message.get("type")
            if request_body is not None and kind == "http.request":
                request_body.add(message.get("body", b""))
            elif kind == "http.disconnect" and not state["completed"]:
                # Servers ignore what is sent after this (uvicorn does): the response never left.
                state["gone"] = True
            return message

        async def send_wrapper(message: Message) -> None:
            final = False
            try:
                kind = message.get("type")
                if kind == "http.response.start" and not state["gone"]:
                    state["status"] = message.get("status")
                    response_headers = list(message.get("headers", []))
                    if set_header and not any(n.lower() == b"x-request-id" for n, _ in response_headers):
                        message = {**message, "headers": [*response_headers,
                                                          (b"x-request-id", exchange.request_id.encode("ascii"))]}
                    if client.capture_response_body and _is_json(_headers(response_headers).get("content-type", "")):
                        state["response_body"] = _Body(limit)
                elif kind == "http.response.body":
                    if state["response_body"] is not None:
                        state["response_body"].add(message.get("body", b""))
                    final = not message.get("more_body", False)
            except Exception as error:
                client._internal_error(error)
            await send(message)
            if final:
                state["completed"] = True

        error: Optional[BaseException] = None
        try:
            await self.app(scope, receive_wrapper, send_wrapper)
        except BaseException as raised:
            error = raised
            raise
        finally:
            await self._record(scope, exchange, headers, state, request_body, root_path, error)

    async def _record(self, scope: Scope, exchange: Exchange, headers: Dict[str, str], state: Dict[str, Any],
                      request_body: Optional[_Body], root_path: str, error: Optional[BaseException]) -> None:
        client = self.watchlog
        try:
            status = state["status"]
            completed = state["completed"] and not state["gone"]
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
            request = RequestInfo(
                method=str(scope.get("method", "")),
                url=url,
                route=_route_of(scope, root_path),
                path_params=scope.get("path_params") if isinstance(scope.get("path_params"), dict) else None,
                headers=headers,
                body=request_body.value() if request_body is not None else MISSING,
                ip=str(peer[0]) if peer else None,
            )
            response_body = state["response_body"]
            response = ResponseInfo(
                status=status,
                completed=completed,
                body=response_body.value() if response_body is not None else MISSING,
                error=message,
            )
            identity = None
            if self.identify is None:
                pass
            elif isinstance(error, asyncio.CancelledError):
                identity = client._identify_sync(self.identify, _request_for(scope))
            else:
                identity = await client._identify_async(self.identify, _request_for(scope))
            client._finish(exchange, request, response, identity)
        except asyncio.CancelledError:
            raise
        except Exception as failure:
            client._internal_error(failure)


def _request_for(scope: Scope) -> Any:
    """What identify() is given: a Starlette Request when Starlette is installed, else the scope."""
    try:
        from starlette.requests import Request
    except ImportError:
        return scope
    return Request(scope)

"""WSGI middleware: any WSGI application (Flask through ``watchlog.flask(app)``, which adds its
route templates). The event is recorded when the server closes the response iterable, that is
once the response is over; nothing here changes what the application sends, apart from
``X-Request-ID`` when the SDK generated the id."""

from __future__ import annotations

import io
import json
from typing import Any, Callable, Dict, Iterable, Iterator, List, Optional

from .capture import OMITTED_KEY
from .client import Exchange, Identify, Watchlog, error_message
from .event import MISSING

__all__ = ["WatchlogWSGI"]

#: Keys a framework integration (Flask's) fills in while the request is handled.
ROUTE = "watchlog.route"
PATH_PARAMS = "watchlog.path_params"
ERROR = "watchlog.error"
IDENTITY = "watchlog.identity"

_BUFFER_FACTOR = 4


def _is_json(content_type: str) -> bool:
    kind = content_type.split(";", 1)[0].strip().lower()
    return kind == "application/json" or kind.endswith("+json")


def _url(environ: Dict[str, Any]) -> str:
    raw = environ.get("RAW_URI") or environ.get("REQUEST_URI")
    if isinstance(raw, str) and raw.startswith("/"):
        return raw
    # PEP 3333 strings hold the request's bytes as latin-1; the raw path is their UTF-8.
    path = (str(environ.get("SCRIPT_NAME", "")) + str(environ.get("PATH_INFO", ""))).encode("latin-1", "replace")
    query = str(environ.get("QUERY_STRING", ""))
    return path.decode("utf-8", "replace") + ("?" + query if query else "")


def _parse(data: bytes, limit: int) -> Any:
    if not data:
        return MISSING
    try:
        return json.loads(data)
    except ValueError:
        return MISSING


def _header(environ: Dict[str, Any], key: str) -> Optional[str]:
    value = environ.get(key)
    return None if value is None else str(value)


class _Recorded:
    """One request: the ``start_response`` the app is given, then the response iterable, passed
    through unchanged, whose close() records the event (one object with bound methods: cheaper
    than closures over a dict)."""

    __slots__ = ("_middleware", "_client", "_environ", "_exchange", "_agent", "_request_body", "_start_response",
                 "_status", "_json", "_chunks", "_size", "_result", "_iterator", "_completed", "_error")

    def __init__(self, middleware: "WatchlogWSGI", environ: Dict[str, Any], exchange: Exchange, agent: Optional[str],
                 request_body: Any, start_response: Callable[..., Any]) -> None:
        self._middleware = middleware
        self._client = middleware.watchlog
        self._environ = environ
        self._exchange = exchange
        self._agent = agent
        self._request_body = request_body
        self._start_response = start_response
        self._status: Optional[int] = None
        self._json = False
        self._chunks: List[bytes] = []
        self._size = 0
        self._result: Iterable[bytes] = ()
        self._iterator: Optional[Iterator[bytes]] = None
        self._completed = False
        self._error: Optional[BaseException] = None

    def start(self, status: str, response_headers: List[Any], exc_info: Any = None) -> Any:
        client = self._client
        try:
            self._status = int(status.split(" ", 1)[0])
            if self._exchange.generated and client._set_header:
                for name, _ in response_headers:
                    if str(name).lower() == "x-request-id":
                        break
                else:
                    response_headers = [*response_headers, ("X-Request-ID", self._exchange.request_id)]
            if client._capture_response:
                kind = next((str(v) for n, v in response_headers if str(n).lower() == "content-type"), "")
                self._json = _is_json(kind)
        except Exception as error:
            client._internal_error(error)
        if exc_info is not None:
            return self._start_response(status, response_headers, exc_info)
        return self._start_response(status, response_headers)

    def __iter__(self) -> Iterator[bytes]:
        return self

    def __next__(self) -> bytes:
        if self._iterator is None:
            self._iterator = iter(self._result)
        try:
            chunk = next(self._iterator)
        except StopIteration:
            self._completed = True
            raise
        except BaseException as error:
            self._error = error
            raise
        if self._json:
            self._size += len(chunk)
            if self._size <= self._client.max_body_bytes * _BUFFER_FACTOR:
                self._chunks.append(chunk)
        return chunk

    def close(self) -> None:
        try:
            close = getattr(self._result, "close", None)
            if close is not None:
                close()
        finally:
            self.record(self._completed, self._error)

    def record(self, completed: bool, error: Optional[BaseException]) -> None:
        client = self._client
        environ = self._environ
        try:
            given_error = environ.get(ERROR)
            message = given_error if isinstance(given_error, str) else (error_message(error) if error else None)
            response_body: Any = MISSING
            if self._json:
                limit = client.max_body_bytes
                if self._size > limit * _BUFFER_FACTOR:
                    response_body = {OMITTED_KEY: "too_large", "bytes": self._size, "limit": limit}
                else:
                    response_body = _parse(b"".join(self._chunks), limit)
            route = environ.get(ROUTE)
            params = environ.get(PATH_PARAMS)
            if IDENTITY in environ:
                identity = environ[IDENTITY]
            else:
                identity = client._identify_sync(self._middleware.identify, environ)
            client._finish_of(
                self._exchange, str(environ.get("REQUEST_METHOD", "")), _url(environ),
                route if isinstance(route, str) else None, params if isinstance(params, dict) else None, self._agent,
                str(environ["REMOTE_ADDR"]) if environ.get("REMOTE_ADDR") else None, self._request_body,
                self._status, completed, response_body, message, identity)
        except Exception as failure:
            client._internal_error(failure)


class WatchlogWSGI:
    """``app = WatchlogWSGI(app, watchlog=client)`` or ``client.wsgi(app)``."""

    def __init__(self, app: Any, watchlog: Watchlog, identify: Optional[Identify] = None) -> None:
        self.app = app
        self.watchlog = watchlog
        self.identify = identify

    def __call__(self, environ: Dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        client = self.watchlog
        exchange: Optional[Exchange] = None
        try:
            # Only the headers the event needs, rather than a dict of them all.
            exchange = client._begin_of(str(environ.get("REQUEST_METHOD", "")), _header(environ, "HTTP_X_REQUEST_ID"),
                                        _header(environ, "HTTP_TRACEPARENT"))
        except Exception as error:
            client._internal_error(error)
        if exchange is None:
            return self.app(environ, start_response)  # type: ignore[no-any-return]
        environ["watchlog.request_id"] = exchange.request_id
        request_body: Any = MISSING
        if client._capture_request:
            content_type = environ.get("CONTENT_TYPE") or environ.get("HTTP_CONTENT_TYPE") or ""
            if _is_json(str(content_type)):
                request_body = self._read_body(environ, client.max_body_bytes)
        recorded = _Recorded(self, environ, exchange, _header(environ, "HTTP_USER_AGENT"), request_body, start_response)
        try:
            recorded._result = self.app(environ, recorded.start)
        except BaseException as error:
            # The server answers an unhandled error with a 500.
            if recorded._status is None:
                recorded._status = 500
            recorded.record(True, error)
            raise
        return recorded

    def _read_body(self, environ: Dict[str, Any], limit: int) -> Any:
        """Reads a JSON request body that is small enough, and puts it back for the app."""
        try:
            length = int(environ.get("CONTENT_LENGTH") or 0)
        except ValueError:
            return MISSING
        if length <= 0:
            return MISSING
        if length > limit * _BUFFER_FACTOR:
            return {OMITTED_KEY: "too_large", "bytes": length, "limit": limit}
        stream = environ.get("wsgi.input")
        if stream is None:
            return MISSING
        data = stream.read(length)
        environ["wsgi.input"] = io.BytesIO(data)
        return _parse(data, limit)

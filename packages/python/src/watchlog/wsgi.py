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
from .event import MISSING, RequestInfo, ResponseInfo

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


def _headers(environ: Dict[str, Any]) -> Dict[str, str]:
    out: Dict[str, str] = {}
    for key, value in environ.items():
        if key.startswith("HTTP_"):
            out[key[5:].replace("_", "-").lower()] = str(value)
    if environ.get("CONTENT_TYPE"):
        out["content-type"] = str(environ["CONTENT_TYPE"])
    return out


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


class _Recorded:
    """The response iterable, passed through unchanged; its close() records the event."""

    def __init__(self, result: Iterable[bytes], on_chunk: Callable[[bytes], None],
                 on_close: Callable[[bool, Optional[BaseException]], None]) -> None:
        self._result = result
        self._iterator: Optional[Iterator[bytes]] = None
        self._on_chunk = on_chunk
        self._on_close = on_close
        self._completed = False
        self._error: Optional[BaseException] = None

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
        self._on_chunk(chunk)
        return chunk

    def close(self) -> None:
        try:
            close = getattr(self._result, "close", None)
            if close is not None:
                close()
        finally:
            self._on_close(self._completed, self._error)


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
            headers = _headers(environ)
            exchange = client._begin(str(environ.get("REQUEST_METHOD", "")), headers)
        except Exception as error:
            client._internal_error(error)
        if exchange is None:
            return self.app(environ, start_response)  # type: ignore[no-any-return]
        environ["watchlog.request_id"] = exchange.request_id
        limit = client.max_body_bytes
        request_body: Any = MISSING
        if client.capture_request_body and _is_json(headers.get("content-type", "")):
            request_body = self._read_body(environ, limit)
        state: Dict[str, Any] = {"status": None, "json": False, "chunks": [], "size": 0}
        set_header = exchange.generated and client.set_request_id_header

        def start(status: str, response_headers: List[Any], exc_info: Any = None) -> Any:
            try:
                state["status"] = int(status.split(" ", 1)[0])
                if set_header and not any(str(n).lower() == "x-request-id" for n, _ in response_headers):
                    response_headers = [*response_headers, ("X-Request-ID", exchange.request_id)]
                kind = next((str(v) for n, v in response_headers if str(n).lower() == "content-type"), "")
                state["json"] = client.capture_response_body and _is_json(kind)
            except Exception as error:
                client._internal_error(error)
            if exc_info is not None:
                return start_response(status, response_headers, exc_info)
            return start_response(status, response_headers)

        def on_chunk(chunk: bytes) -> None:
            if state["json"]:
                state["size"] += len(chunk)
                if state["size"] <= limit * _BUFFER_FACTOR:
                    state["chunks"].append(chunk)

        def on_close(completed: bool, error: Optional[BaseException]) -> None:
            self._record(environ, exchange, headers, request_body, state, completed, error)

        try:
            result = self.app(environ, start)
        except BaseException as error:
            # The server answers an unhandled error with a 500.
            if state["status"] is None:
                state["status"] = 500
            self._record(environ, exchange, headers, request_body, state, True, error)
            raise
        return _Recorded(result, on_chunk, on_close)

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

    def _record(self, environ: Dict[str, Any], exchange: Exchange, headers: Dict[str, str], request_body: Any,
                state: Dict[str, Any], completed: bool, error: Optional[BaseException]) -> None:
        client = self.watchlog
        try:
            given_error = environ.get(ERROR)
            message = given_error if isinstance(given_error, str) else (error_message(error) if error else None)
            response_body: Any = MISSING
            if state["json"]:
                if state["size"] > client.max_body_bytes * _BUFFER_FACTOR:
                    response_body = {OMITTED_KEY: "too_large", "bytes": state["size"], "limit": client.max_body_bytes}
                else:
                    response_body = _parse(b"".join(state["chunks"]), client.max_body_bytes)
            route = environ.get(ROUTE)
            params = environ.get(PATH_PARAMS)
            request = RequestInfo(
                method=str(environ.get("REQUEST_METHOD", "")),
                url=_url(environ),
                route=route if isinstance(route, str) else None,
                path_params=params if isinstance(params, dict) else None,
                headers=headers,
                body=request_body,
                ip=str(environ["REMOTE_ADDR"]) if environ.get("REMOTE_ADDR") else None,
            )
            response = ResponseInfo(status=state["status"], completed=completed, body=response_body, error=message)
            if IDENTITY in environ:
                identity = environ[IDENTITY]
            else:
                identity = client._identify_sync(self.identify, environ)
            client._finish(exchange, request, response, identity)
        except Exception as failure:
            client._internal_error(failure)

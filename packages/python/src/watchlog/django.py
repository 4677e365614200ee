"""Django: a middleware class made for one client. ``path`` is
``request.resolver_match.route`` (with a leading ``/``), ``path_params`` its kwargs."""

from __future__ import annotations

import json
from typing import Any, Callable, Dict, Optional

from .client import Identify, Watchlog, error_message
from .event import MISSING, RequestInfo, ResponseInfo

__all__ = ["middleware_class"]


def _is_json(content_type: str) -> bool:
    kind = content_type.split(";", 1)[0].strip().lower()
    return kind == "application/json" or kind.endswith("+json")


def _json(data: bytes) -> Any:
    try:
        return json.loads(data) if data else MISSING
    except ValueError:
        return MISSING


def middleware_class(watchlog: Watchlog, identify: Optional[Identify] = None) -> type:
    """``WatchlogMiddleware = watchlog.django(identify=...)`` in a module of yours, then its
    dotted path first in ``MIDDLEWARE``."""

    class WatchlogMiddleware:
        sync_capable = True
        async_capable = False

        def __init__(self, get_response: Callable[[Any], Any]) -> None:
            self.get_response = get_response

        def __call__(self, request: Any) -> Any:
            exchange = None
            headers: Dict[str, str] = {}
            try:
                headers = {str(k).lower(): str(v) for k, v in request.headers.items()}
                exchange = watchlog._begin(request.method or "", headers)
            except Exception as error:
                watchlog._internal_error(error)
            if exchange is None:
                return self.get_response(request)
            request.META["watchlog.request_id"] = exchange.request_id
            response = self.get_response(request)
            try:
                if exchange.generated and watchlog.set_request_id_header and not response.has_header("X-Request-ID"):
                    response["X-Request-ID"] = exchange.request_id
                self._record(request, response, exchange, headers)
            except Exception as error:
                watchlog._internal_error(error)
            return response

        def process_exception(self, request: Any, exception: BaseException) -> None:
            request.META["watchlog.error"] = error_message(exception)

        def _record(self, request: Any, response: Any, exchange: Any, headers: Dict[str, str]) -> None:
            match = getattr(request, "resolver_match", None)
            route = getattr(match, "route", None)
            request_body: Any = MISSING
            if watchlog.capture_request_body and _is_json(headers.get("content-type", "")):
                try:
                    request_body = _json(request.body)
                except Exception:
                    request_body = MISSING  # The view read the stream itself.
            response_body: Any = MISSING
            if (watchlog.capture_response_body and not getattr(response, "streaming", False)
                    and _is_json(response.get("Content-Type", ""))):
                response_body = _json(response.content)
            raw = request.META.get("RAW_URI") or request.META.get("REQUEST_URI")
            url = raw if isinstance(raw, str) and raw.startswith("/") else request.get_full_path()
            info = RequestInfo(
                method=request.method or "",
                url=url,
                route="/" + route.lstrip("/") if isinstance(route, str) else None,
                path_params=dict(match.kwargs) if match is not None else None,
                headers=headers,
                body=request_body,
                ip=request.META.get("REMOTE_ADDR") or None,
            )
            error = request.META.get("watchlog.error")
            result = ResponseInfo(status=response.status_code, completed=True, body=response_body,
                                  error=error if isinstance(error, str) else None)
            identity = watchlog._identify_sync(identify, request)
            watchlog._finish(exchange, info, result, identity)

    return WatchlogMiddleware

"""Django: a middleware class made for one client. ``path`` is
``request.resolver_match.route`` (with a leading ``/``), ``path_params`` its kwargs.

The class is sync and async capable: under ASGI, with the rest of the chain async, Django calls it
as a coroutine and no request hops to a thread for it. ``identify`` then runs as Django runs a
sync view, through asgiref's ``sync_to_async`` (thread-sensitive: the ORM and ``request.user``
work in it), unless it is an ``async def``, which is awaited; both within ``identify_timeout_ms``."""

from __future__ import annotations

import json
import inspect
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

    # Under ASGI an ``async def`` identify is awaited as it is; a sync one may touch the ORM, which
    # Django refuses on the event loop's thread.
    async_identify = identify is not None and inspect.iscoroutinefunction(identify)

    class WatchlogMiddleware:
        sync_capable = True
        async_capable = True

        def __init__(self, get_response: Callable[[Any], Any]) -> None:
            self.get_response = get_response
            self.is_async = False
            self.identify_async: Optional[Identify] = None
            try:
                from asgiref.sync import iscoroutinefunction, markcoroutinefunction, sync_to_async
            except ImportError:  # Django < 4.1 has no async middleware chains to join.
                return
            if iscoroutinefunction(get_response):
                self.is_async = True
                markcoroutinefunction(self)
                self.identify_async = identify if identify is None or async_identify else sync_to_async(identify)

        def __call__(self, request: Any) -> Any:
            if self.is_async:
                return self._acall(request)
            begun = self._begin(request)
            if begun is None:
                return self.get_response(request)
            response = self.get_response(request)
            try:
                self._answered(request, response, begun, watchlog._identify_sync(identify, request))
            except Exception as error:
                watchlog._internal_error(error)
            return response

        async def _acall(self, request: Any) -> Any:
            begun = self._begin(request)
            if begun is None:
                return await self.get_response(request)
            response = await self.get_response(request)
            try:
                identity = await watchlog._identify_async(self.identify_async, request)
                self._answered(request, response, begun, identity)
            except Exception as error:
                watchlog._internal_error(error)
            return response

        def _begin(self, request: Any) -> Optional[Any]:
            try:
                headers = {str(k).lower(): str(v) for k, v in request.headers.items()}
                exchange = watchlog._begin(request.method or "", headers)
            except Exception as error:
                watchlog._internal_error(error)
                return None
            if exchange is None:
                return None
            request.META["watchlog.request_id"] = exchange.request_id
            return exchange, headers

        def _answered(self, request: Any, response: Any, begun: Any, identity: Any) -> None:
            exchange, headers = begun
            if exchange.generated and watchlog.set_request_id_header and not response.has_header("X-Request-ID"):
                response["X-Request-ID"] = exchange.request_id
            self._record(request, response, exchange, headers, identity)

        def process_exception(self, request: Any, exception: BaseException) -> None:
            request.META["watchlog.error"] = error_message(exception)

        def _record(self, request: Any, response: Any, exchange: Any, headers: Dict[str, str], identity: Any) -> None:
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
            watchlog._finish(exchange, info, result, identity)

    return WatchlogMiddleware

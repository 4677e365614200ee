"""A minimal Django project in one module: settings, URLs and views. Django's settings can be
configured once per process, so the middleware reads its client from here, set per test."""

from __future__ import annotations

import json
from typing import Any, Callable, List, Optional

from watchlog import Watchlog

_current: dict = {}


class WatchlogMiddleware:
    """Delegates to the middleware class of the client the running test set, in the mode Django
    calls it in (async under ASGIHandler, as the SDK's class is then)."""

    sync_capable = True
    async_capable = True

    def __init__(self, get_response: Callable[[Any], Any]) -> None:
        from asgiref.sync import iscoroutinefunction, markcoroutinefunction

        self.get_response = get_response
        if iscoroutinefunction(get_response):
            markcoroutinefunction(self)

    def __call__(self, request: Any) -> Any:
        request.watchlog_inner = _current["middleware"](self.get_response)
        return request.watchlog_inner(request)

    def process_exception(self, request: Any, exception: BaseException) -> None:
        request.watchlog_inner.process_exception(request, exception)


def order(request: Any, order_id: int) -> Any:
    from django.http import JsonResponse

    import watchlog

    _current["handled"].append(watchlog.request_id(request) or "missing")
    return JsonResponse({"id": order_id})


def create(request: Any) -> Any:
    from django.http import JsonResponse

    return JsonResponse({"id": 7, "token": "tok-1", **json.loads(request.body or b"{}")}, status=201)


def boom(request: Any) -> Any:
    raise RuntimeError("the database is on fire")


def setup(client: Watchlog, identify: Optional[Callable[[Any], Any]], handled: List[str]) -> None:
    import django
    from django.conf import settings

    _current["middleware"] = client.django(identify=identify)
    _current["handled"] = handled
    if settings.configured:
        return
    settings.configure(
        DEBUG=False,
        ALLOWED_HOSTS=["*"],
        SECRET_KEY="test-only",
        ROOT_URLCONF=__name__,
        MIDDLEWARE=[f"{__name__}.WatchlogMiddleware"],
        INSTALLED_APPS=[],
        LOGGING_CONFIG=None,
    )
    django.setup()


def _urls() -> list:
    from django.urls import path

    return [
        path("api/orders/<int:order_id>", order),
        path("api/orders", create),
        path("api/boom", boom),
    ]


def __getattr__(name: str) -> Any:
    # ROOT_URLCONF's urlpatterns, built once Django is set up.
    if name == "urlpatterns":
        return _urls()
    raise AttributeError(name)

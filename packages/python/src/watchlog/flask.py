"""Flask: the WSGI middleware, plus what only Flask knows: the matched rule's template
(``request.url_rule.rule``), its ``view_args``, the error a view raised, and the identity, read
while the request context still exists.

The route is noted by a URL value preprocessor, which Flask calls as it is (a teardown function
goes through ``ensure_sync`` and its coroutine checks on every request); the error by the
``got_request_exception`` signal, sent only when a view raised; the identity, which may depend on
what the view did, by a teardown function, registered only when there is an ``identify``."""

from __future__ import annotations

from typing import Any, Dict, Optional

from .client import Identify, Watchlog, error_message
from .wsgi import ERROR, IDENTITY, PATH_PARAMS, ROUTE, WatchlogWSGI

__all__ = ["instrument"]


def instrument(watchlog: Watchlog, app: Any, identify: Optional[Identify] = None) -> Any:
    """Wraps ``app.wsgi_app`` and registers its hooks; returns the app."""
    from flask import got_request_exception, request

    def note_route(endpoint: Optional[str], values: Optional[Dict[str, Any]]) -> None:
        try:
            environ = request.environ
            if "watchlog.request_id" not in environ:
                return
            rule = request.url_rule
            if rule is not None:
                environ[ROUTE] = rule.rule
                # The view_args themselves: copied when the event is written, after the response,
                # so that they are as the request ended, whatever later preprocessors took out.
                environ[PATH_PARAMS] = values if values is not None else {}
        except Exception as error:
            watchlog._internal_error(error)

    def note_error(sender: Any, exception: BaseException, **extra: Any) -> None:
        try:
            environ = request.environ
            if "watchlog.request_id" in environ:
                environ[ERROR] = error_message(exception)
        except Exception as error:
            watchlog._internal_error(error)

    def note_identity(exc: Optional[BaseException]) -> None:
        try:
            environ = request.environ
            if "watchlog.request_id" in environ:
                # Teardown still runs inside the request context: flask.request, g and
                # flask_login's current_user are there; after the response they are gone.
                environ[IDENTITY] = watchlog._identify_sync(identify, request)
        except Exception as error:
            watchlog._internal_error(error)

    app.url_value_preprocessor(note_route)
    got_request_exception.connect(note_error, app, weak=False)
    if identify is not None:
        app.teardown_request(note_identity)
    app.wsgi_app = WatchlogWSGI(app.wsgi_app, watchlog=watchlog)
    return app

"""Flask: the WSGI middleware, plus what only Flask knows: the matched rule's template
(``request.url_rule.rule``), its ``view_args``, the error a view raised, and the identity, read
while the request context still exists."""

from __future__ import annotations

from typing import Any, Optional

from .client import Identify, Watchlog, error_message
from .wsgi import ERROR, IDENTITY, PATH_PARAMS, ROUTE, WatchlogWSGI

__all__ = ["instrument"]


def instrument(watchlog: Watchlog, app: Any, identify: Optional[Identify] = None) -> Any:
    """Wraps ``app.wsgi_app`` and registers a teardown hook; returns the app."""
    from flask import request

    def note(exc: Optional[BaseException]) -> None:
        try:
            environ = request.environ
            if "watchlog.request_id" not in environ:
                return
            rule = request.url_rule
            if rule is not None:
                environ[ROUTE] = rule.rule
                environ[PATH_PARAMS] = dict(request.view_args or {})
            if exc is not None:
                environ[ERROR] = error_message(exc)
            if identify is not None:
                # Teardown still runs inside the request context: flask.request, g and
                # flask_login's current_user are there; after the response they are gone.
                environ[IDENTITY] = watchlog._identify_sync(identify, request)
        except Exception as error:
            watchlog._internal_error(error)

    app.teardown_request(note)
    app.wsgi_app = WatchlogWSGI(app.wsgi_app, watchlog=watchlog)
    return app

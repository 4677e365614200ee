"""The Flask host of the SDK benchmark, run by gunicorn: ``GET /orders/<order_id>`` answering a
small JSON object, bare or with ``watchlog.flask(app)`` (``SDK=on``); both variants run the same
code but for that one call."""

from __future__ import annotations

from typing import Any, Callable, Dict, Iterable

from flask import Flask

from bench_routes import answer, count, watchlog

StartResponse = Callable[..., Any]

flask_app = Flask(__name__)


@flask_app.get("/orders/<order_id>")
def order(order_id: str) -> Dict[str, str]:
    count()
    return {"order": order_id}


if watchlog is not None:
    watchlog.flask(flask_app)


def app(environ: Dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
    body = answer(environ.get("PATH_INFO", ""))
    if body is None:
        result: Iterable[bytes] = flask_app(environ, start_response)
        return result
    start_response("200 OK", [("Content-Type", "application/json"), ("Content-Length", str(len(body)))])
    return [body]

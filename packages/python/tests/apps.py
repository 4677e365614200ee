"""Host applications for the end-to-end tests, each on 127.0.0.1 in a thread of this process:
FastAPI under uvicorn, Flask and Django under werkzeug's threaded server, and Django's ASGI handler
under uvicorn. Each notes the request
id the SDK gave every request it handled."""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, List, Optional

import uvicorn
from fastapi import FastAPI, HTTPException, Request
from fastapi.responses import JSONResponse
from starlette.applications import Starlette
from starlette.routing import Route

import watchlog
from watchlog import Watchlog
from watchlog.asgi import WatchlogMiddleware
from watchlog_server import free_port


@dataclass
class HostApp:
    url: str
    stop: Callable[[], None]
    handled: List[str] = field(default_factory=list)


def fastapi_app(client: Watchlog, identify: Optional[Callable[[Any], Any]] = None) -> HostApp:
    app = FastAPI()
    handled: List[str] = []

    @app.get("/orders/{order_id}")
    async def order(order_id: int, request: Request) -> Any:
        handled.append(watchlog.request_id(request) or "missing")
        return {"id": order_id}

    @app.post("/orders")
    async def create(request: Request) -> Any:
        body = await request.json()
        return JSONResponse({"id": 7, "token": "tok-1", **body}, status_code=201)

    @app.get("/missing/{thing}")
    async def missing(thing: str) -> Any:
        raise HTTPException(status_code=404, detail="no such thing")

    @app.get("/boom")
    async def boom() -> Any:
        raise RuntimeError("the database is on fire")

    @app.get("/slow")
    async def slow(request: Request) -> Any:
        # Answers once the client has gone (or after 10 s): a response nobody receives.
        for _ in range(1000):
            if await request.is_disconnected():
                break
            await asyncio.sleep(0.01)
        return {"late": True}

    async def item(request: Request) -> JSONResponse:
        return JSONResponse({"item": request.path_params["item_id"]})

    # A Starlette app mounted under a prefix: the template is the prefix and the inner route.
    app.mount("/v2", Starlette(routes=[Route("/items/{item_id}", item)]))
    app.add_middleware(WatchlogMiddleware, watchlog=client, identify=identify)
    return serve_asgi(app, handled)


def serve_asgi(app: Any, handled: Optional[List[str]] = None) -> HostApp:
    """``app`` under uvicorn on 127.0.0.1, in a thread, once it listens."""
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="critical",
                                           access_log=False, lifespan="off"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if time.monotonic() > deadline:
            raise AssertionError("uvicorn did not start")
        time.sleep(0.02)

    def stop() -> None:
        server.should_exit = True
        thread.join(10)

    return HostApp(f"http://127.0.0.1:{port}", stop, handled if handled is not None else [])


def _serve_wsgi(app: Any, handled: List[str]) -> HostApp:
    from werkzeug.serving import make_server

    # A line per request would cost more than the request.
    logging.getLogger("werkzeug").setLevel(logging.ERROR)

    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()

    def stop() -> None:
        server.shutdown()
        thread.join(10)

    return HostApp(f"http://127.0.0.1:{server.server_port}", stop, handled)


def flask_app(client: Watchlog, identify: Optional[Callable[[Any], Any]] = None) -> HostApp:
    from flask import Flask, jsonify, request

    app = Flask("watchlog-test")
    handled: List[str] = []

    @app.get("/orders/<int:order_id>")
    def order(order_id: int) -> Any:
        handled.append(watchlog.request_id(request) or "missing")
        return jsonify(id=order_id)

    @app.post("/orders")
    def create() -> Any:
        return jsonify({"id": 7, "token": "tok-1", **(request.get_json() or {})}), 201

    @app.get("/boom")
    def boom() -> Any:
        raise RuntimeError("the database is on fire")

    client.flask(app, identify=identify)
    return _serve_wsgi(app, handled)


def django_app(client: Watchlog, identify: Optional[Callable[[Any], Any]] = None) -> HostApp:
    import django_site

    handled: List[str] = []
    django_site.setup(client, identify, handled)
    from django.core.handlers.wsgi import WSGIHandler

    return _serve_wsgi(WSGIHandler(), handled)


def django_asgi_app(client: Watchlog, identify: Optional[Callable[[Any], Any]] = None) -> HostApp:
    """The same Django site under ASGI: the middleware chain is async, so the SDK's middleware
    is called as a coroutine and a sync ``identify`` runs through ``sync_to_async``."""
    import django_site

    handled: List[str] = []
    django_site.setup(client, identify, handled)
    from django.core.handlers.asgi import ASGIHandler

    return serve_asgi(ASGIHandler(), handled)

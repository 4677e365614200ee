"""The FastAPI host of the SDK benchmark, run by uvicorn: ``GET /orders/{order_id}`` answering a
small JSON object, bare or with the SDK's ``WatchlogMiddleware`` (``SDK=on``); both variants run
the same code but for that one ``add_middleware``."""

from __future__ import annotations

import asyncio
from typing import Any, Awaitable, Callable, Dict, MutableMapping

from fastapi import FastAPI

from bench_routes import answer, count, watchlog
from watchlog.asgi import WatchlogMiddleware

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]

fastapi_app = FastAPI()


@fastapi_app.get("/orders/{order_id}")
async def order(order_id: str) -> Dict[str, str]:
    count()
    return {"order": order_id}


if watchlog is not None:
    fastapi_app.add_middleware(WatchlogMiddleware, watchlog=watchlog)


async def app(scope: Scope, receive: Receive, send: Send) -> None:
    path: str = scope["path"] if scope["type"] == "http" else ""
    # A flush waits for the delivery threads: the bench routes are answered off the event loop.
    body = await asyncio.get_running_loop().run_in_executor(None, answer, path) if path.startswith("/__") else None
    if body is None:
        await fastapi_app(scope, receive, send)
        return
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    await send({"type": "http.response.body", "body": body})

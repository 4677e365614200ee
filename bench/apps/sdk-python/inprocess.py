"""The Python SDK's cost per request without a server: the bench's Flask app called as WSGI and
its FastAPI app as ASGI (on uvloop), in this process, bare and with the SDK, whose delivery
threads really send to the bench's receiver (bench/sdk-receiver.ts) in another process. Prints
the bare app's CPU per request and what the SDK adds: on the request path (the main thread's
CPU, in alternating slices of 200 requests) and in its delivery threads (their own CPU clocks,
per event).

    packages/python/.venv/bin/python bench/apps/sdk-python/inprocess.py [flask|fastapi] [N] [--profile]

``--profile`` runs the instrumented app under cProfile and prints the top functions (``SORT``,
``FILTER`` and ``TOP`` choose which; ``--bare`` profiles the bare app instead); ``--no-delivery``
writes each event but does not queue it (the request path's own share), ``--no-event`` does not
write it either (the middleware around it); ``MIDDLEWARE=noop`` puts a middleware that only
passes the call on in FastAPI's stead of the SDK's (the floor of any middleware)."""

from __future__ import annotations

import asyncio
import cProfile
import json
import os
import pstats
import resource
import socket
import subprocess
import sys
import time
import urllib.request
from typing import Any, Callable, Dict, List, MutableMapping, Tuple



ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "../../.."))


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def wait_for(port: int) -> None:
    deadline = time.monotonic() + 30
    while True:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/count", timeout=1):
                return
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)


def delivery_cpu(client: Any) -> float:
    """CPU seconds of the client's delivery threads so far."""
    total = 0.0
    for thread in client._delivery._threads:
        if thread.ident is not None and thread.is_alive():
            total += time.clock_gettime(time.pthread_getcpuclockid(thread.ident))
    return total


def cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def flask_apps(client: Any) -> Tuple[Callable[[], None], Callable[[], None]]:
    from flask import Flask

    def make(sdk: bool) -> Callable[[], None]:
        app = Flask(f"bench{sdk}")

        @app.get("/orders/<order_id>")
        def order(order_id: str) -> Dict[str, str]:
            return {"order": order_id}

        if sdk:
            client.flask(app)

        def start_response(status: str, headers: List[Any], exc_info: Any = None) -> None:
            pass

        def call() -> None:
            environ = {
                "REQUEST_METHOD": "GET", "SCRIPT_NAME": "", "PATH_INFO": "/orders/42", "QUERY_STRING": "",
                "RAW_URI": "/orders/42", "SERVER_NAME": "127.0.0.1", "SERVER_PORT": "8000",
                "SERVER_PROTOCOL": "HTTP/1.1", "REMOTE_ADDR": "127.0.0.1", "REMOTE_PORT": "50000",
                "HTTP_HOST": "127.0.0.1:8000", "HTTP_CONNECTION": "keep-alive", "wsgi.url_scheme": "http",
                "wsgi.input": None, "wsgi.errors": sys.stderr, "wsgi.multithread": True,
                "wsgi.multiprocess": False, "wsgi.run_once": False, "wsgi.version": (1, 0),
            }
            result = app(environ, start_response)
            for _ in result:
                pass
            close = getattr(result, "close", None)
            if close is not None:
                close()

        return call

    return make(False), make(True)


def fastapi_apps(client: Any) -> Tuple[Callable[[], None], Callable[[], None]]:
    import uvloop
    from fastapi import FastAPI

    from watchlog.asgi import WatchlogMiddleware

    class Noop:
        """A middleware that only passes the call on: the floor of any middleware's cost."""

        def __init__(self, app: Any) -> None:
            self.app = app

        async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
            await self.app(scope, receive, send)

    loop = uvloop.new_event_loop()
    asyncio.set_event_loop(loop)

    def make(sdk: bool) -> Any:
        app = FastAPI()

        @app.get("/orders/{order_id}")
        async def order(order_id: str) -> Dict[str, str]:
            return {"order": order_id}

        if sdk and os.environ.get("MIDDLEWARE") == "noop":
            app.add_middleware(Noop)
        elif sdk:
            app.add_middleware(WatchlogMiddleware, watchlog=client)
        return app

    async def receive() -> MutableMapping[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: MutableMapping[str, Any]) -> None:
        pass

    def runner(app: Any) -> Callable[[], None]:
        async def many(n: int) -> None:
            for _ in range(n):
                scope = {
                    "type": "http", "asgi": {"version": "3.0", "spec_version": "2.3"}, "http_version": "1.1",
                    "server": ("127.0.0.1", 8000), "client": ("127.0.0.1", 50000), "scheme": "http",
                    "method": "GET", "root_path": "", "path": "/orders/42", "raw_path": b"/orders/42",
                    "query_string": b"", "headers": [(b"host", b"127.0.0.1:8000"), (b"connection", b"keep-alive")],
                    "state": {},
                }
                await app(scope, receive, send)

        def call() -> None:
            loop.run_until_complete(many(BATCH))

        return call

    return runner(make(False)), runner(make(True))


#: Requests per call of an ASGI runner (one event-loop run for many requests).
BATCH = 50


def main() -> None:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    kind = args[0] if args else "flask"
    n = int(args[1]) if len(args) > 1 else 20000
    port = free_port()
    receiver = subprocess.Popen(["node", "--import", "tsx", os.path.join(ROOT, "bench/sdk-receiver.ts")],
                                cwd=ROOT, env={**os.environ, "PORT": str(port)})
    try:
        wait_for(port)
        from watchlog import Watchlog

        client = Watchlog(endpoint=f"http://127.0.0.1:{port}", api_key="bench-key", service_name="bench",
                          environment="production", logger=None)
        if "--no-delivery" in sys.argv:
            # The event built and encoded, not queued: what the request path costs alone.
            client._delivery.enqueue_data = lambda data: None
        if "--no-event" in sys.argv:
            # Nor is the event written: what the middleware costs around it.
            client._finish_of = lambda *args: None
        bare, with_sdk = (flask_apps if kind == "flask" else fastapi_apps)(client)
        per_call = BATCH if kind == "fastapi" else 1
        calls = n // per_call
        for fn in (bare, with_sdk):
            for _ in range(max(1, 2000 // per_call)):
                fn()
        client.flush(30)
        if "--profile" in sys.argv:
            profile = cProfile.Profile()
            profile.enable()
            for _ in range(calls):
                (bare if "--bare" in sys.argv else with_sdk)()
            client.flush(30)
            profile.disable()
            stats = pstats.Stats(profile).sort_stats(os.environ.get("SORT", "tottime"))
            stats.print_stats(os.environ.get("FILTER", ""), int(os.environ.get("TOP", "35")))
            return
        # Short slices, alternating, the order flipped every round: the machine's drift falls on
        # both alike. The main thread's CPU is the request path's; the delivery threads' CPU,
        # read from their own clocks, is added to the instrumented app's.
        main: Dict[str, float] = {"bare": 0.0, "sdk": 0.0}
        rounds = max(1, calls * per_call // 200)
        per_slice = max(1, calls // rounds)
        delivery_before = delivery_cpu(client)
        queued_before = client.stats()["queued"]
        process_before = cpu()
        for n in range(rounds):
            order = (("bare", bare), ("sdk", with_sdk)) if n % 2 == 0 else (("sdk", with_sdk), ("bare", bare))
            for name, fn in order:
                start = time.thread_time()
                for _ in range(per_slice):
                    fn()
                main[name] += time.thread_time() - start
        client.flush(30)
        process = cpu() - process_before
        delivery = delivery_cpu(client) - delivery_before
        events = client.stats()["queued"] - queued_before
        requests = rounds * per_slice * per_call
        stats = client.stats()
        bare_us = main["bare"] / requests * 1e6
        path_us = (main["sdk"] - main["bare"]) / requests * 1e6
        delivery_us = delivery / max(1, events) * 1e6
        print(json.dumps({"kind": kind, "requests": requests, "bare_us": round(bare_us, 1),
                          "added_us": round(path_us + delivery_us, 1), "request_path_us": round(path_us, 1),
                          "delivery_us_per_event": round(delivery_us, 1),
                          "process_us_per_request_both": round(process / requests / 2 * 1e6, 1),
                          "sent": stats["sent"], "queued": stats["queued"]}))
    finally:
        receiver.terminate()
        receiver.wait()


if __name__ == "__main__":
    main()

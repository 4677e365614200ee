"""The Python SDK's cost per request without a server: the bench's Flask app called as WSGI and
its FastAPI app as ASGI (on uvloop), in this process, bare and with the SDK, whose delivery
threads really send to a receiver in another process (a stdlib HTTP server answering 202 with an
answer of the real shape). Prints the process's CPU time (all threads) per request of each.

    packages/python/.venv/bin/python bench/apps/sdk-python/inprocess.py [flask|fastapi] [N] [--profile]

``--profile`` runs the instrumented app under cProfile and prints the top functions."""

from __future__ import annotations

import asyncio
import cProfile
import json
import os
import pstats
import resource
import subprocess
import sys
import time
from typing import Any, Callable, Dict, List, MutableMapping, Tuple

RECEIVER = r"""
import json, sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
KEY = b'"idempotency_key":"'
answers = {}
class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *args):
        pass
    def do_POST(self):
        body = self.rfile.read(int(self.headers["content-length"]))
        n = body.count(KEY)
        if n not in answers:
            answers[n] = json.dumps({"accepted": [{"index": i, "id": "%036d" % i} for i in range(n)],
                                     "rejected": []}).encode()
        out = answers[n]
        self.send_response(202)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)
server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)
server.serve_forever()
"""


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

    loop = uvloop.new_event_loop()
    asyncio.set_event_loop(loop)

    def make(sdk: bool) -> Any:
        app = FastAPI()

        @app.get("/orders/{order_id}")
        async def order(order_id: str) -> Dict[str, str]:
            return {"order": order_id}

        if sdk:
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
    receiver = subprocess.Popen([sys.executable, "-c", RECEIVER], stdout=subprocess.PIPE, text=True)
    assert receiver.stdout is not None
    port = int(receiver.stdout.readline())
    try:
        from watchlog import Watchlog

        client = Watchlog(endpoint=f"http://127.0.0.1:{port}", api_key="bench-key", service_name="bench",
                          environment="production", logger=None)
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
                with_sdk()
            client.flush(30)
            profile.disable()
            pstats.Stats(profile).sort_stats(os.environ.get("SORT", "tottime")).print_stats(os.environ.get("FILTER", ""), int(os.environ.get("TOP", "35")))
            return
        totals: Dict[str, List[float]] = {"bare": [], "sdk": []}
        for _ in range(4):
            for name, fn in (("bare", bare), ("sdk", with_sdk)):
                start, wall = cpu(), time.perf_counter()
                for _ in range(calls // 4):
                    fn()
                if name == "sdk":
                    client.flush(30)
                totals[name].append((cpu() - start) / (calls // 4 * per_call) * 1e6)
        stats = client.stats()
        bare_us, sdk_us = min(totals["bare"]), min(totals["sdk"])
        print(json.dumps({"kind": kind, "bare_us": round(bare_us, 1), "sdk_us": round(sdk_us, 1),
                          "added_us": round(sdk_us - bare_us, 1), "runs": {k: [round(x, 1) for x in v]
                                                                           for k, v in totals.items()},
                          "sent": stats["sent"], "queued": stats["queued"], "pid": os.getpid()}))
    finally:
        receiver.terminate()
        receiver.wait()


if __name__ == "__main__":
    main()

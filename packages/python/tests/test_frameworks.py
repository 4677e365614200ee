"""Each framework's middleware against the real watchlog: what the stored events hold, what the
client sees (the X-Request-ID header, nothing else changed)."""

from __future__ import annotations

import asyncio
import socket
from typing import Any, Callable, Dict, Iterator, List

import pytest

from apps import HostApp, django_app, django_asgi_app, fastapi_app, flask_app
from http_client import request
from watchlog import Watchlog
from watchlog_server import WatchlogServer, eventually

FRAMEWORKS: Dict[str, Dict[str, Any]] = {
    "fastapi": {"make": fastapi_app, "prefix": "", "template": "/orders/{order_id}"},
    "flask": {"make": flask_app, "prefix": "", "template": "/orders/<int:order_id>"},
    "django": {"make": django_app, "prefix": "/api", "template": "/api/orders/<int:order_id>"},
    "django-asgi": {"make": django_asgi_app, "prefix": "/api", "template": "/api/orders/<int:order_id>"},
}


def identify(request: Any) -> Any:
    headers = getattr(request, "headers", None)
    if headers is None:  # a WSGI environ
        user = request.get("HTTP_X_USER")
    else:
        user = headers.get("x-user")
    return {"identifier": user, "user_roles": ["admin", 7], "tenant_id": "acme"} if user else None


@pytest.fixture(params=list(FRAMEWORKS))
def setup(request: pytest.FixtureRequest, server: WatchlogServer) -> Iterator[Dict[str, Any]]:
    name = request.param
    project_id, api_key = server.project_with_key(f"py-{name}")
    client = Watchlog(endpoint=server.url, api_key=api_key, service_name=f"py-{name}", environment="staging",
                      capture_bodies=True, flush_interval_ms=50, logger=None)
    make: Callable[..., HostApp] = FRAMEWORKS[name]["make"]
    app = make(client, identify)
    yield {"name": name, "client": client, "app": app, "project_id": project_id, **FRAMEWORKS[name]}
    app.stop()
    client.close(timeout=1)


def by_path(events: List[Dict[str, Any]], path: str) -> List[Dict[str, Any]]:
    return [e for e in events if e["path"] == path]


def test_events_of_a_framework(setup: Dict[str, Any], server: WatchlogServer) -> None:
    client: Watchlog = setup["client"]
    base = setup["app"].url + setup["prefix"]

    status, headers, body = request(f"{base}/orders/42?channel=web&token=abc&card=4111111111111111",
                                    headers={"x-user": "ada", "user-agent": "pytest"})
    assert status == 200 and b"42" in body
    generated = headers.get("x-request-id")
    assert generated, "a generated request id is set on the response"
    status, headers, _ = request(f"{base}/orders/43", headers={"x-request-id": "given-id-1"})
    assert status == 200
    assert "x-request-id" not in headers, "an incoming id is not echoed by the SDK"
    status, _, body = request(f"{base}/orders", "POST", {"name": "x", "password": "hunter2",
                                                         "card": "4111 1111 1111 1111"})
    assert status == 201 and b"tok-1" in body, "the application's response is unchanged"
    status, _, _ = request(f"{base}/boom")
    assert status == 500
    status, _, _ = request(f"{base}/nowhere/at/all?x=1")
    assert status == 404
    # Django's function views take any method; the others answer 405. Either way: not recorded.
    request(f"{base}/orders/44", "PATCH")

    # A middleware queues an event just after its response has left.
    eventually(lambda: True if client.stats()["queued"] == 5 else None, 10, "five events queued")
    assert client.flush(10)
    stats = client.stats()
    assert stats["skipped_methods"] == 1
    assert stats["queued"] == stats["sent"] == 5, stats
    events = server.wait_for_events(setup["project_id"], 5)
    assert len(events) == 5

    [first] = [e for e in events if e["request_id"] == generated]
    assert first["path"] == setup["template"]
    assert first["method"] == "GET" and first["status_code"] == 200
    assert first["path_params"] == {"order_id": "42"}
    assert first["query_params"] == {"channel": "web", "token": "********", "card": "************1111"}
    assert first["identifier"] == "ada" and first["user_roles"] == ["admin"] and first["tenant_id"] == "acme"
    assert first["user_agent"] == "pytest"
    assert first["service_name"] == f"py-{setup['name']}" and first["environment"] == "staging"
    assert first["ip"] == "127.0.0.1"
    assert isinstance(first["response_time"], int)

    [given] = [e for e in events if e["request_id"] == "given-id-1"]
    assert given["identifier"] == "anonymous"

    [created] = by_path(events, setup["prefix"] + "/orders")
    assert created["method"] == "POST" and created["status_code"] == 201
    assert created["request_body"] == {"name": "x", "password": "********", "card": "**** **** **** 1111"}
    assert created["response_body"]["token"] == "********"

    [boom] = by_path(events, setup["prefix"] + "/boom")
    assert boom["status_code"] == 500
    assert boom["error_message"] == "the database is on fire"

    [lost] = by_path(events, setup["prefix"] + "/nowhere/at/all")
    assert lost["status_code"] == 404 and "path_params" not in lost and lost["query_params"] == {"x": "1"}


def test_a_mounted_starlette_app_gives_its_prefix_and_route(server: WatchlogServer) -> None:
    project_id, api_key = server.project_with_key("py-mount")
    client = Watchlog(endpoint=server.url, api_key=api_key, service_name="py-mount", environment="staging",
                      flush_interval_ms=20, logger=None, unsupported_methods="nearest")
    app = fastapi_app(client)
    try:
        assert request(f"{app.url}/v2/items/card-4111111111111111")[0] == 200
        assert request(f"{app.url}/v2/nothing-here")[0] == 404
        assert request(f"{app.url}/orders/5", "HEAD")[0] in (200, 405)
        eventually(lambda: True if client.stats()["queued"] == 3 else None, 10, "three events queued")
        assert client.flush(10)
        events = {e["path"]: e for e in server.wait_for_events(project_id, 3)}
        assert set(events) == {"/v2/items/{item_id}", "/v2/nothing-here", "/orders/{order_id}"}
        assert events["/v2/items/{item_id}"]["path_params"] == {"item_id": "card-************1111"}
        assert events["/v2/nothing-here"]["status_code"] == 404
        assert events["/orders/{order_id}"]["method"] == "GET", "nearest: HEAD is recorded as GET"
    finally:
        app.stop()
        client.close(timeout=1)


def test_a_client_that_leaves_before_the_response_is_499(server: WatchlogServer) -> None:
    project_id, api_key = server.project_with_key("py-gone")
    client = Watchlog(endpoint=server.url, api_key=api_key, service_name="py-gone", environment="staging",
                      flush_interval_ms=20, logger=None)
    app = fastapi_app(client)
    try:
        host, port = app.url.rsplit(":", 1)
        with socket.create_connection((host.replace("http://", ""), int(port))) as sock:
            sock.sendall(b"GET /slow HTTP/1.1\r\nHost: t\r\nX-Request-ID: gone-1\r\n\r\n")
        [event] = server.wait_for_events(project_id, 1)
        assert (event["path"], event["status_code"], event["request_id"]) == ("/slow", 499, "gone-1")
        assert event["error_message"] == "client closed the connection before the response was complete"
    finally:
        app.stop()
        client.close(timeout=1)


def test_an_async_identify_is_awaited_within_its_timeout(server: WatchlogServer) -> None:
    project_id, api_key = server.project_with_key("py-async-identify")
    client = Watchlog(endpoint=server.url, api_key=api_key, service_name="py-async", environment="staging",
                      flush_interval_ms=20, identify_timeout_ms=100, logger=None)

    async def identify(request: Any) -> Any:
        if request.headers.get("x-user") == "slow":
            await asyncio.sleep(5)
        await asyncio.sleep(0)
        return {"identifier": request.headers.get("x-user"), "user_email": "ada@example.com"}

    app = fastapi_app(client, identify)
    try:
        assert request(f"{app.url}/orders/1", headers={"x-user": "ada"})[0] == 200
        assert request(f"{app.url}/orders/2", headers={"x-user": "slow"})[0] == 200
        events = {e["path_params"]["order_id"]: e for e in server.wait_for_events(project_id, 2)}
        assert (events["1"]["identifier"], events["1"]["user_email"]) == ("ada", "ada@example.com")
        assert events["2"]["identifier"] == "anonymous" and "user_email" not in events["2"]
    finally:
        app.stop()
        client.close(timeout=1)


def test_django_under_asgi_runs_a_sync_identify_off_the_event_loop_and_awaits_an_async_one(
        server: WatchlogServer) -> None:
    project_id, api_key = server.project_with_key("py-django-identify")
    seen: List[str] = []

    def sync_identify(request: Any) -> Any:
        # Django refuses ORM access on the event loop's thread: a sync identify must not run there.
        try:
            asyncio.get_running_loop()
            seen.append("on the loop")
        except RuntimeError:
            seen.append("off the loop")
        return {"identifier": "sync-user"}

    async def async_identify(request: Any) -> Any:
        await asyncio.sleep(0)
        return {"identifier": "async-user"}

    for name, identify_fn in (("sync", sync_identify), ("async", async_identify)):
        client = Watchlog(endpoint=server.url, api_key=api_key, service_name=f"py-django-{name}",
                          environment="staging", flush_interval_ms=50, logger=None)
        app = django_asgi_app(client, identify_fn)
        try:
            status, headers, _ = request(f"{app.url}/api/orders/5")
            assert status == 200 and headers.get("x-request-id")
            eventually(lambda: True if client.stats()["queued"] == 1 else None, 10, "the event queued")
            assert client.flush(10)
        finally:
            app.stop()
            client.close(timeout=1)
    assert seen == ["off the loop"]
    events = server.wait_for_events(project_id, 2)
    assert sorted(e["identifier"] for e in events) == ["async-user", "sync-user"]

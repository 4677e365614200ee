"""Delivery against a real watchlog that goes away: 10,000 requests through FastAPI, Flask and
Django apps while watchlog is killed and started again on the same data dir and port, each
stored exactly once; and an outage longer than the queue's bound, which drops the oldest events
and says so once."""

from __future__ import annotations

import threading
from typing import Any, Dict, List

from apps import HostApp, django_app, fastapi_app, flask_app
from conftest import Captured
from http_client import request
from watchlog import Watchlog, WatchlogDeliveryError
from watchlog_server import WatchlogServer, eventually

SHARES = {"fastapi": (fastapi_app, "", 4000), "flask": (flask_app, "", 3000), "django": (django_app, "/api", 3000)}
TOTAL = sum(share for _, _, share in SHARES.values())
THREADS_PER_APP = 3


def _drive(app: HostApp, prefix: str, amount: int, outcomes: List[int]) -> List[threading.Thread]:
    def run(start: int) -> None:
        for n in range(start, amount, THREADS_PER_APP):
            status, _, _ = request(f"{app.url}{prefix}/orders/{n}?channel=web")
            outcomes.append(status)

    threads = [threading.Thread(target=run, args=(i,), daemon=True) for i in range(THREADS_PER_APP)]
    for thread in threads:
        thread.start()
    return threads


def test_ten_thousand_requests_stored_exactly_once_across_a_restart(log_lines: Captured) -> None:
    watchlog = WatchlogServer().start()
    clients: Dict[str, Watchlog] = {}
    apps: Dict[str, HostApp] = {}
    projects: Dict[str, str] = {}
    try:
        for name, (make, _, _) in SHARES.items():
            projects[name], key = watchlog.project_with_key(f"once-{name}")
            clients[name] = Watchlog(
                endpoint=watchlog.url, api_key=key, service_name=f"once-{name}", environment="staging",
                batch_max_events=200, flush_interval_ms=50, retry_initial_delay_ms=50, retry_max_delay_ms=500,
                logger=log_lines.logger,
            )
            apps[name] = make(clients[name])
        outcomes: List[int] = []
        threads = [thread for name, (_, prefix, share) in SHARES.items()
                   for thread in _drive(apps[name], prefix, share, outcomes)]

        # A third of the way in, watchlog is killed under the load (answers in flight die with it)
        # and started again on the same data dir and port.
        eventually(lambda: True if len(outcomes) >= TOTAL // 3 else None, 120, "a third of the load")
        watchlog.kill()
        killed_after = len(outcomes)
        watchlog.start()
        for thread in threads:
            thread.join(300)
        assert outcomes.count(200) == TOTAL, "the applications answered every request"
        assert killed_after < TOTAL, "watchlog was killed mid-load"

        for name, (_, _, share) in SHARES.items():
            client = clients[name]
            # A middleware queues an event just after its response has left.
            eventually(lambda: True if client.stats()["queued"] == share else None, 10, f"{name}: all queued")
            assert client.flush(60), f"{name}: everything delivered after the restart"
            stats = client.stats()
            assert stats["queued"] == share, stats
            assert (stats["dropped"], stats["failures"], stats["rejected"], stats["pending"]) == (0, 0, 0, 0), stats
            assert stats["sent"] + stats["replayed"] == share, stats
            assert stats["retries"] > 0, f"{name}: the outage was seen"
            events = watchlog.wait_for_events(projects[name], share, 60)
            assert len(events) == share, f"{name}: nothing stored twice"
            ids = [e["request_id"] for e in events]
            assert len(set(ids)) == share, f"{name}: each request id once"
            assert set(ids) == set(apps[name].handled), f"{name}: exactly the requests handled"
            template = {"fastapi": "/orders/{order_id}", "flask": "/orders/<int:order_id>",
                        "django": "/api/orders/<int:order_id>"}[name]
            assert all(e["path"] == template and e["method"] == "GET" for e in events)
    finally:
        for app in apps.values():
            app.stop()
        for client in clients.values():
            client.close(timeout=1)
        watchlog.stop()


def test_an_outage_longer_than_the_queue_drops_the_oldest_and_says_so_once(log_lines: Captured) -> None:
    watchlog = WatchlogServer().start()
    project_id, key = watchlog.project_with_key("outage")
    problems: List[WatchlogDeliveryError] = []
    client = Watchlog(
        endpoint=watchlog.url, api_key=key, service_name="outage", environment="development",
        max_queue_events=100, batch_max_events=10, concurrency=1, flush_interval_ms=20,
        retry_initial_delay_ms=20, retry_max_delay_ms=200,
        logger=log_lines.logger, on_error=problems.append,
    )
    app = fastapi_app(client)
    try:
        watchlog.kill()
        # One request at a time, the next once the last one's event is queued (the middleware
        # queues it after the response has left): the queue's order is the order handled.
        for n in range(250):
            status, _, _ = request(f"{app.url}/orders/{n}")
            assert status == 200, "the application is unaffected by the outage"
            eventually(lambda: True if client.stats()["queued"] == n + 1 else None, 10, f"event {n} queued")
        stats = client.stats()
        in_flight = stats["pending"] - 100
        assert 1 <= in_flight <= 10, stats
        assert stats["dropped"] == 250 - stats["pending"] >= 140, stats
        assert stats["sent"] == 0

        warnings = [line for line in log_lines.lines if "queue full" in line]
        assert len(warnings) == 1, log_lines.lines
        assert len([line for line in log_lines.lines if "cannot deliver" in line]) == 1, log_lines.lines
        assert [p.problem for p in problems] == ["unreachable", "dropping"]

        watchlog.start()
        assert client.flush(30)
        after = client.stats()
        assert after["sent"] + after["replayed"] == stats["pending"] and after["pending"] == 0, after
        assert after["dropped"] == stats["dropped"]
        dropped = stats["dropped"]
        assert any(f"{dropped} events dropped meanwhile" in line for line in log_lines.lines), log_lines.lines

        # Stored: the batch that was in flight (the oldest) and the newest 100; the rest dropped.
        handled = app.handled
        events = watchlog.wait_for_events(project_id, stats["pending"])
        assert {e["request_id"] for e in events} == set(handled[:in_flight] + handled[-100:])
    finally:
        app.stop()
        client.close(timeout=1)
        watchlog.stop()

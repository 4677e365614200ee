"""The client's contract with the application: options checked at start with every problem named;
afterwards nothing raises into the host, nothing changes its responses; record(); identify()
failures; enabled=False."""

from __future__ import annotations

import io
from typing import Any, Dict, Iterable, List, Tuple

import pytest

from conftest import Captured
from watchlog import Watchlog, WatchlogConfigError
from watchlog_server import WatchlogServer

GOOD: Dict[str, Any] = {"endpoint": "http://127.0.0.1:9", "api_key": "k", "service_name": "s",
                        "environment": "production", "logger": None}


def test_every_faulty_option_is_named_at_once() -> None:
    with pytest.raises(WatchlogConfigError) as raised:
        Watchlog(endpoint="ftp://x", api_key="has space", service_name="", environment="prod",
                 batch_max_events=0, retry_initial_delay_ms=100, retry_max_delay_ms=50, identify=lambda r: r,
                 capture_bodies={"request": "yes"}, unsupported_methods="nearby")
    named = {problem.option for problem in raised.value.problems}
    assert named == {"endpoint", "api_key", "service_name", "environment", "batch_max_events", "retry_max_delay_ms",
                     "identify", "capture_bodies.request", "unsupported_methods"}
    assert "has space" not in str(raised.value), "the API key is never echoed"
    assert "pass identify to the middleware" in str(raised.value)


def test_required_options() -> None:
    with pytest.raises(WatchlogConfigError) as raised:
        Watchlog()
    assert {p.option for p in raised.value.problems} == {"endpoint", "api_key", "service_name", "environment"}


def _call(app: Any, method: str = "GET", path: str = "/x",
          headers: Iterable[Tuple[str, str]] = ()) -> Tuple[str, List[Any], bytes]:
    """Calls a WSGI app as a server would, closing the response iterable when it is sent."""
    seen: Dict[str, Any] = {}
    environ = {"REQUEST_METHOD": method, "PATH_INFO": path, "QUERY_STRING": "", "SERVER_NAME": "t",
               "SERVER_PORT": "80", "wsgi.input": io.BytesIO(b""), "REMOTE_ADDR": "127.0.0.1",
               **{"HTTP_" + k.upper().replace("-", "_"): v for k, v in headers}}

    def start_response(status: str, response_headers: List[Any], exc_info: Any = None) -> None:
        seen["status"], seen["headers"] = status, response_headers

    result = app(environ, start_response)
    body = b"".join(result)
    if hasattr(result, "close"):
        result.close()
    return seen["status"], seen["headers"], body


def _hello(environ: Dict[str, Any], start_response: Any) -> List[bytes]:
    start_response("200 OK", [("Content-Type", "text/plain")])
    return [b"hello"]


def test_enabled_false_passes_requests_through() -> None:
    client = Watchlog(**{**GOOD, "enabled": False})
    status, headers, body = _call(client.wsgi(_hello))
    assert (status, headers, body) == ("200 OK", [("Content-Type", "text/plain")], b"hello")
    assert client.stats()["queued"] == 0
    client.close(timeout=0)


def test_a_failing_identify_records_anonymous_and_says_so_once(server: WatchlogServer, log_lines: Captured) -> None:
    project_id, key = server.project_with_key("identify")
    client = Watchlog(endpoint=server.url, api_key=key, service_name="identify", environment="production",
                      flush_interval_ms=20, logger=log_lines.logger)

    def identify(environ: Any) -> Any:
        raise KeyError("no user")

    app = client.wsgi(_hello, identify=identify)
    for _ in range(3):
        status, headers, body = _call(app, headers=[("x-request-id", "same")])
        assert (status, body) == ("200 OK", b"hello")
        assert headers == [("Content-Type", "text/plain")], "an incoming id: the headers are as the app set them"
    assert client.flush(10)
    events = server.wait_for_events(project_id, 3)
    assert [e["identifier"] for e in events] == ["anonymous"] * 3
    assert len([line for line in log_lines.lines if "identify() failed" in line]) == 1
    client.close()


def test_record_and_close(server: WatchlogServer) -> None:
    project_id, key = server.project_with_key("record")
    client = Watchlog(endpoint=server.url, api_key=key, service_name="jobs", environment="staging", logger=None,
                      flush_interval_ms=60_000, unsupported_methods="nearest")
    client.record({"method": "patch", "path": "/jobs/nightly", "status_code": 200, "identifier": "cron",
                   "request_body": {"password": "p", "n": 1}, "response_time": 12.6})
    client.record({"method": "OPTIONS", "path": "/skipped"})
    stats = client.close(timeout=10)
    assert stats["sent"] == 1 and stats["skipped_methods"] == 1 and stats["pending"] == 0, stats
    [event] = server.wait_for_events(project_id, 1)
    assert (event["method"], event["path"], event["identifier"], event["response_time"]) == \
        ("PUT", "/jobs/nightly", "cron", 13)
    assert event["request_body"] == {"password": "********", "n": 1}
    client.record({"method": "GET", "path": "/late"})
    assert client.stats()["dropped"] == 1, "an event after close() is dropped"


def test_nothing_raises_when_watchlog_is_unreachable() -> None:
    client = Watchlog(**{**GOOD, "retry_initial_delay_ms": 10, "retry_max_delay_ms": 20})
    app = client.wsgi(_hello)
    status, headers, body = _call(app)
    assert status == "200 OK" and body == b"hello"
    assert [name for name, _ in headers] == ["Content-Type", "X-Request-ID"]
    assert client.flush(0.2) is False
    stats = client.close(timeout=0.2)
    assert stats["dropped"] == 1 and stats["pending"] == 0 and stats["retries"] > 0, stats


def test_a_refused_api_key_is_a_failure_said_once(server: WatchlogServer, log_lines: Captured) -> None:
    client = Watchlog(endpoint=server.url, api_key="wl_not_a_key", service_name="refused", environment="staging",
                      flush_interval_ms=20, batch_max_events=1, logger=log_lines.logger)
    for n in range(3):
        client.record({"method": "GET", "path": f"/{n}"})
    assert client.flush(10)
    stats = client.stats()
    assert (stats["failures"], stats["sent"], stats["retries"], stats["pending"]) == (3, 0, 0, 0), stats
    refusals = [line for line in log_lines.lines if "refused the API key (401" in line]
    assert len(refusals) == 1 and refusals[0].startswith("ERROR"), log_lines.lines
    client.close()

"""OpenTelemetry Python into watchlog's OTLP/HTTP ingest (docs/otlp.md), with no SDK of ours: a
FastAPI app under uvicorn instrumented by ``FastAPIInstrumentor``, its spans exported by the
official OTLP/HTTP protobuf exporter configured as users do, through ``OTEL_*`` variables, to a
real ``watchlog start``. Every request must be stored once, with the fields the mapping gives it;
the same spans exported again must store nothing more."""

from __future__ import annotations

import asyncio
import gzip
import urllib.error
import urllib.request
from typing import Any, Dict, Iterator, List, Optional, Tuple

import pytest

try:
    from fastapi import FastAPI, HTTPException, Request
    from opentelemetry import trace
    from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.instrumentation._semconv import _OpenTelemetrySemanticConventionStability
    from opentelemetry.instrumentation.fastapi import FastAPIInstrumentor
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceResponse
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor, SimpleSpanProcessor, SpanExportResult
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
except ImportError as missing:
    # A failure, not a skip: this proof must not disappear from the suite because a venv is stale.
    raise ImportError(
        f"the OpenTelemetry test packages are missing ({missing}); they are pinned in "
        "packages/python/requirements-test.txt: run `bash packages/python/scripts/venv.sh`"
    ) from missing

from apps import HostApp, serve_asgi
from watchlog_server import WatchlogServer, api, eventually

SPAN_WAIT = 15.0


def shop() -> FastAPI:
    app = FastAPI()

    @app.get("/orders/{order_id}")
    async def order(order_id: int) -> Any:
        # The server span is the current one in a handler: what an app does to name its user.
        trace.get_current_span().set_attribute("enduser.id", f"user-{order_id}")
        # Long enough that a response_time of 0 would be a fault, not a rounding.
        await asyncio.sleep(0.02)
        return {"id": order_id}

    @app.post("/orders/{order_id}", status_code=201)
    async def update(order_id: int) -> Any:
        return {"id": order_id}

    @app.patch("/orders/{order_id}")
    async def patch(order_id: int) -> Any:
        return {"id": order_id}

    @app.get("/missing/{thing}")
    async def missing(thing: str) -> Any:
        raise HTTPException(status_code=404, detail="no such thing")

    @app.get("/boom")
    async def boom() -> Any:
        raise RuntimeError("the database is on fire")

    return app


def call(base: str, method: str, path: str) -> int:
    request = urllib.request.Request(base + path, method=method, headers={"user-agent": "shop-client/1.0"})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            response.read()
            return int(response.status)
    except urllib.error.HTTPError as error:
        error.read()
        return int(error.code)


def server_spans(memory: InMemorySpanExporter, count: int) -> List[ReadableSpan]:
    """The app's SERVER spans once ``count`` have ended: a request whose handler raised ends its
    span after uvicorn has already answered the 500, so the client's answer is not enough."""

    def ended() -> Optional[List[ReadableSpan]]:
        found = [s for s in memory.get_finished_spans() if s.kind == trace.SpanKind.SERVER]
        return found if len(found) >= count else None

    return eventually(ended, SPAN_WAIT, f"{count} ended SERVER spans")


def stored(server: WatchlogServer, project_id: str) -> List[Dict[str, Any]]:
    """The project's events as the list gives them, each read whole (the list is a summary)."""
    status, page = api(server.url, "GET", f"/v1/audit?project_id={project_id}&limit=100", token=server.token())
    assert status == 200, (status, page)
    events = []
    for item in page["data"]:
        status, event = api(server.url, "GET", f"/v1/audit/{item['id']}", token=server.token())
        assert status == 200, (status, event)
        events.append(event)
    return events


def wait_stored(server: WatchlogServer, project_id: str, count: int) -> List[Dict[str, Any]]:
    def enough() -> Optional[List[Dict[str, Any]]]:
        found = stored(server, project_id)
        return found if len(found) >= count else None

    return eventually(enough, 30, f"{count} events listed by GET /v1/audit")


def milliseconds(span: ReadableSpan) -> int:
    assert span.start_time is not None and span.end_time is not None
    # Math.round's half-up, which the server uses; Python's round() rounds half to even.
    return int((span.end_time - span.start_time) / 1e6 + 0.5)


def post_again(endpoint: str, key: str, spans: List[ReadableSpan]) -> ExportTraceServiceResponse:
    """The spans exported by hand, to read the answer: the Python exporter ignores
    ``partial_success``, so through it a refused span would look like a success."""
    body = gzip.compress(encode_spans(spans).SerializeToString())
    request = urllib.request.Request(endpoint, data=body, method="POST", headers={
        "content-type": "application/x-protobuf", "content-encoding": "gzip", "x-api-key": key})
    with urllib.request.urlopen(request, timeout=30) as response:
        assert response.status == 200
        answer = ExportTraceServiceResponse()
        answer.ParseFromString(response.read())
        return answer


@pytest.fixture
def semconv(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """The instrumentation's HTTP attribute names: the older ones (its default) or the stable
    ones (``OTEL_SEMCONV_STABILITY_OPT_IN``). It reads the variable once per process (when an app is
    instrumented, and at its first request), so the read is forgotten before each run and after."""
    mode = str(request.param)
    if mode == "default":
        monkeypatch.delenv("OTEL_SEMCONV_STABILITY_OPT_IN", raising=False)
    else:
        monkeypatch.setenv("OTEL_SEMCONV_STABILITY_OPT_IN", mode)
    _OpenTelemetrySemanticConventionStability._initialized = False
    yield mode
    _OpenTelemetrySemanticConventionStability._initialized = False


# Each run in a project of its own whose default environment is development, so that the
# deployment environment mapping is what makes production or staging.
RUNS = [
    # The instrumentation's default attributes, the exporter's default (no compression).
    pytest.param("default", "prod", "production", None, id="old-semconv"),
    pytest.param("http", "stg", "staging", "gzip", id="stable-semconv-gzip"),
    # Both sets of names on each span (the migration's middle step); the mapping is case-blind.
    pytest.param("http/dup", "PROD", "production", None, id="both-semconv"),
]


@pytest.mark.parametrize("semconv, deployment, environment, compression", RUNS, indirect=["semconv"])
def test_fastapi_spans_exported_by_opentelemetry_python(
    server: WatchlogServer,
    monkeypatch: pytest.MonkeyPatch,
    semconv: str,
    deployment: str,
    environment: str,
    compression: Optional[str],
) -> None:
    project_id, key = server.project_with_key(f"otel-python-{semconv}")
    settings = {"identifier_attribute": None, "default_environment": "development", "unsupported_methods": "skip"}
    status, body = api(server.url, "PUT", f"/v1/projects/{project_id}/otlp", settings, server.token())
    assert status == 200, (status, body)

    service = f"orders-api-{semconv}"
    # What docs/otlp.md tells users to set; the exporter adds /v1/traces to the endpoint.
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", f"{server.url}/v1/otlp")
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_HEADERS", f"x-api-key={key}")
    monkeypatch.setenv("OTEL_SERVICE_NAME", service)
    monkeypatch.setenv("OTEL_RESOURCE_ATTRIBUTES", f"deployment.environment.name={deployment}")
    if compression:
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_COMPRESSION", compression)
    else:
        monkeypatch.delenv("OTEL_EXPORTER_OTLP_COMPRESSION", raising=False)
    for variable in ("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_HEADERS",
                     "OTEL_EXPORTER_OTLP_TRACES_COMPRESSION"):
        monkeypatch.delenv(variable, raising=False)

    exporter = OTLPSpanExporter()
    assert exporter._endpoint == f"{server.url}/v1/otlp/v1/traces"
    provider = TracerProvider(resource=Resource.create())
    assert provider.resource.attributes["service.name"] == service
    assert provider.resource.attributes["deployment.environment.name"] == deployment
    provider.add_span_processor(BatchSpanProcessor(exporter))
    memory = InMemorySpanExporter()
    provider.add_span_processor(SimpleSpanProcessor(memory))

    app = shop()
    FastAPIInstrumentor.instrument_app(app, tracer_provider=provider)
    host: Optional[HostApp] = None
    try:
        host = serve_asgi(app)
        requests: List[Tuple[str, str, int]] = [
            ("GET", "/orders/41?expand=items&tag=a&tag=b", 200),
            ("POST", "/orders/41", 201),
            ("GET", "/missing/x", 404),
            ("GET", "/nowhere/7", 404),
            ("GET", "/boom", 500),
            ("PATCH", "/orders/41", 200),
        ]
        for method, path, expected in requests:
            assert call(host.url, method, path) == expected, (method, path)
        first = server_spans(memory, len(requests))
        assert provider.force_flush(10_000)
        names = set(first[0].attributes or {})
        assert ("http.request.method" in names) == (semconv != "default"), names
        assert ("http.method" in names) == (semconv != "http"), names

        # (method, path, status_code) → identifier, query_params, error_message.
        # The old attributes carry the query only in http.url, which watchlog does not read
        # (docs/otlp.md: url.query, else http.target's query; this instrumentation's http.target
        # is the path alone): no query_params from them.
        query = {"expand": "items", "tag": ["a", "b"]} if semconv != "default" else None
        expected_events: Dict[Tuple[str, str, int], Tuple[str, Any, Any]] = {
            ("GET", "/orders/{order_id}", 200): ("user-41", query, None),
            ("POST", "/orders/{order_id}", 201): ("anonymous", None, None),
            ("GET", "/missing/{thing}", 404): ("anonymous", None, None),
            # No route matched: no http.route, so the path as requested.
            ("GET", "/nowhere/7", 404): ("anonymous", None, None),
            ("GET", "/boom", 500): ("anonymous", None, "the database is on fire"),
        }
        events = wait_stored(server, project_id, len(expected_events))
        by_trace = {format(s.context.trace_id, "032x"): s for s in first}
        assert len(by_trace) == len(first), "each request is a trace of its own"
        keys = sorted((e["method"], e["path"], e["status_code"]) for e in events)
        # Each once; the PATCH skipped by the project's default policy (unsupported_methods skip).
        assert keys == sorted(expected_events), events
        for event in events:
            identifier, query_params, error_message = expected_events[(event["method"], event["path"],
                                                                       event["status_code"])]
            span = by_trace.get(event["request_id"])
            assert span is not None, f"request_id {event['request_id']} is no trace id of the app's spans"
            assert event["identifier"] == identifier, event
            assert event.get("query_params") == query_params, event
            assert event.get("error_message") == error_message, event
            assert event["response_time"] == milliseconds(span), event
            assert event["service_name"] == service, event
            assert event["environment"] == environment, event
            assert event["ip"] == "127.0.0.1", event
            assert event["user_agent"] == "shop-client/1.0", event
            assert event["event_type"] == "http" and event["source"] == "backend", event
        order = next(e for e in events if e["status_code"] == 200)
        assert order["response_time"] >= 20, order

        # Sent again, as an exporter does after a timeout: through the exporter, then by hand to
        # read the answer (not refused: a span sent again with the same content is taken).
        again = list(memory.get_finished_spans())
        assert exporter.export(again) == SpanExportResult.SUCCESS
        answer = post_again(f"{server.url}/v1/otlp/v1/traces", key, again)
        assert not answer.HasField("partial_success"), answer

        # One request more, listed after whatever the two sends stored: once it is there, a
        # duplicate would be too.
        assert call(host.url, "GET", "/orders/99") == 200
        last = server_spans(memory, len(requests) + 1)
        assert provider.force_flush(10_000)
        events = wait_stored(server, project_id, len(expected_events) + 1)
        assert sorted(e["request_id"] for e in events) == sorted(
            format(s.context.trace_id, "032x") for s in last if s.attributes and (
                s.attributes.get("http.method") or s.attributes.get("http.request.method")) != "PATCH"), events
        assert [e["identifier"] for e in events].count("user-99") == 1, events
    finally:
        if host is not None:
            host.stop()
        provider.shutdown()

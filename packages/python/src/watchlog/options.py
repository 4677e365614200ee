"""The client's options, checked all at once at start-up: one WatchlogConfigError names every
faulty option, so a bad deployment fails when it starts, never at request time."""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Mapping, Optional, Tuple
from urllib.parse import urlsplit

from ._json import utf16_len
from .event import ENVIRONMENTS, LIMIT_IDENTIFIER, LIMIT_SERVICE_NAME, EventOptions, MethodPolicy

__all__ = ["DEFAULTS", "ConfigProblem", "Options", "WatchlogConfigError", "resolve_options"]

KIB = 1024
MIB = 1024 * KIB

#: Every numeric option: (default, min, max), inclusive.
DEFAULTS: Dict[str, Tuple[int, int, int]] = {
    "max_body_bytes": (16 * KIB, 256, MIB),
    "identify_timeout_ms": (5000, 1, 60_000),
    "batch_max_events": (500, 1, 1000),
    "batch_max_bytes": (MIB, 16 * KIB, 5 * MIB),
    "flush_interval_ms": (1000, 1, 60_000),
    "max_queue_events": (10_000, 1, 1_000_000),
    "concurrency": (2, 1, 16),
    "retry_initial_delay_ms": (500, 1, 60_000),
    "retry_max_delay_ms": (30_000, 1, 600_000),
    "request_timeout_ms": (10_000, 100, 300_000),
}

_KNOWN = {
    "endpoint", "api_key", "service_name", "environment", "capture_bodies", "unsupported_methods",
    "anonymous_identifier", "set_request_id_header", "logger", "on_error", "enabled", *DEFAULTS,
}

#: Where an option belongs instead, for the mistakes most likely to be made.
_MISPLACED = {
    "identify": "pass identify to the middleware instead, e.g. watchlog.asgi(app, identify=...)",
    "url": "the option is called endpoint",
    "apikey": "the option is called api_key",
    "apiKey": "the option is called api_key",
    "service": "the option is called service_name",
    "serviceName": "the option is called service_name",
    "env": "the option is called environment",
}

_API_KEY = re.compile(r"^[\x21-\x7e]{1,1024}$")


@dataclass(frozen=True)
class ConfigProblem:
    option: str
    message: str


class WatchlogConfigError(ValueError):
    """Raised by ``Watchlog(...)`` when options are wrong; ``problems`` names each one."""

    def __init__(self, problems: List[ConfigProblem]) -> None:
        lines = "\n".join(f"  - {p.option}: {p.message}" for p in problems)
        super().__init__(f"invalid watchlog options:\n{lines}")
        self.problems = problems


@dataclass(frozen=True)
class Options:
    batch_url: str
    api_key: str
    event: EventOptions
    identify_timeout_ms: int
    batch_max_events: int
    batch_max_bytes: int
    flush_interval_ms: int
    max_queue_events: int
    concurrency: int
    retry_initial_delay_ms: int
    retry_max_delay_ms: int
    request_timeout_ms: int
    logger: Optional[logging.Logger]
    on_error: Optional[Callable[[Any], None]]
    enabled: bool


def _show(value: Any) -> str:
    if isinstance(value, str):
        return repr(value if len(value) <= 60 else value[:60] + "…")
    if callable(value):
        return "a function"
    if isinstance(value, Mapping):
        return "a mapping"
    if isinstance(value, (list, tuple)):
        return "a list"
    return repr(value)


def resolve_options(given: Mapping[str, Any]) -> Options:
    problems: List[ConfigProblem] = []

    def problem(option: str, message: str) -> None:
        problems.append(ConfigProblem(option, message))

    for key in given:
        if key not in _KNOWN:
            problem(key, _MISPLACED.get(key) or _MISPLACED.get(key.lower()) or "unknown option")

    batch_url = ""
    endpoint = given.get("endpoint")
    if not isinstance(endpoint, str) or not endpoint.strip():
        problem("endpoint", f"must be the http(s) URL of watchlog (got {_show(endpoint)})")
    else:
        parts = urlsplit(endpoint.strip())
        if parts.scheme not in ("http", "https") or not parts.hostname:
            problem("endpoint", f"must be an http or https URL (got {_show(endpoint)})")
        elif parts.username or parts.password:
            problem("endpoint", "must not contain credentials: the API key goes in api_key")
        elif parts.query or parts.fragment:
            problem("endpoint", f"must be the base URL, without a query or fragment (got {_show(endpoint)})")
        else:
            batch_url = f"{parts.scheme}://{parts.netloc}{parts.path.rstrip('/')}/v1/audit/batch"

    # The key itself is never echoed into an error message.
    api_key = given.get("api_key")
    if api_key is None:
        problem("api_key", "is required: the API key of the watchlog project")
    elif not isinstance(api_key, str) or not api_key:
        problem("api_key", "must be a non-empty string")
    elif not _API_KEY.match(api_key):
        problem("api_key", "must be printable ASCII without spaces (it is sent as a header), at most 1024 characters")

    service = given.get("service_name")
    if not isinstance(service, str) or not service.strip():
        problem("service_name", f"must be a non-empty string (got {_show(service)})")
    elif utf16_len(service) > LIMIT_SERVICE_NAME:
        problem("service_name", f"must be at most {LIMIT_SERVICE_NAME} characters (got {utf16_len(service)})")

    environment = given.get("environment")
    if environment not in ENVIRONMENTS:
        problem("environment", f"must be one of {', '.join(ENVIRONMENTS)} (got {_show(environment)})")

    capture_request = capture_response = False
    bodies = given.get("capture_bodies", False)
    if isinstance(bodies, bool):
        capture_request = capture_response = bodies
    elif isinstance(bodies, Mapping):
        for key, value in bodies.items():
            if key not in ("request", "response"):
                problem(f"capture_bodies.{key}", "unknown option (request and response are)")
            elif not isinstance(value, bool):
                problem(f"capture_bodies.{key}", f"must be a boolean (got {_show(value)})")
        capture_request = bodies.get("request") is True
        capture_response = bodies.get("response") is True
    else:
        problem("capture_bodies", f"must be a boolean or {{'request': bool, 'response': bool}} (got {_show(bodies)})")

    numbers: Dict[str, int] = {}
    for name, (default, low, high) in DEFAULTS.items():
        value = given.get(name, default)
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            problem(name, f"must be an integer from {low} to {high} (got {_show(value)})")
            value = default
        numbers[name] = value
    if "retry_max_delay_ms" in given and numbers["retry_max_delay_ms"] < numbers["retry_initial_delay_ms"]:
        problem("retry_max_delay_ms", f"must be at least retry_initial_delay_ms ({numbers['retry_initial_delay_ms']})")

    policy: MethodPolicy = given.get("unsupported_methods", "skip")
    if policy not in ("skip", "nearest") and not callable(policy):
        problem(
            "unsupported_methods",
            "must be 'skip', 'nearest' or a function mapping a method to GET, POST, PUT or DELETE "
            f"(got {_show(policy)})",
        )

    anonymous = given.get("anonymous_identifier", "anonymous")
    if not isinstance(anonymous, str) or not 1 <= utf16_len(anonymous) <= LIMIT_IDENTIFIER:
        problem("anonymous_identifier",
                f"must be a string of 1 to {LIMIT_IDENTIFIER} characters (got {_show(anonymous)})")

    for name in ("set_request_id_header", "enabled"):
        if name in given and not isinstance(given[name], bool):
            problem(name, f"must be a boolean (got {_show(given[name])})")
    logger = given.get("logger", logging.getLogger("watchlog"))
    if logger is not None and not all(callable(getattr(logger, m, None)) for m in ("warning", "error")):
        problem("logger", "must have warning() and error() methods (a logging.Logger does), or be None")
    on_error = given.get("on_error")
    if on_error is not None and not callable(on_error):
        problem("on_error", f"must be a function (got {_show(on_error)})")

    if problems:
        raise WatchlogConfigError(problems)
    event = EventOptions(
        service_name=str(service),
        environment=str(environment),
        capture_request_body=capture_request,
        capture_response_body=capture_response,
        max_body_bytes=numbers["max_body_bytes"],
        unsupported_methods=policy,
        anonymous_identifier=str(anonymous),
        set_request_id_header=given.get("set_request_id_header", True) is not False,
    )
    return Options(
        batch_url=batch_url,
        api_key=str(api_key),
        event=event,
        logger=logger,
        on_error=on_error,
        enabled=given.get("enabled", True) is not False,
        **numbers_without(numbers, "max_body_bytes"),
    )


def numbers_without(numbers: Dict[str, int], name: str) -> Dict[str, int]:
    return {key: value for key, value in numbers.items() if key != name}

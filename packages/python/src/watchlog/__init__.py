"""watchlog's Python SDK: one audit event per HTTP request, batched to ``POST /v1/audit/batch``,
masked before it leaves, delivered exactly once across outages."""

from .client import Watchlog
from .event import EventOptions, RequestInfo, ResponseInfo, build_event, nearest_method
from .masking import MASK, mask_value
from .options import DEFAULTS, WatchlogConfigError
from .report import WatchlogDeliveryError
from .retry import decide

__all__ = [
    "DEFAULTS",
    "MASK",
    "EventOptions",
    "RequestInfo",
    "ResponseInfo",
    "Watchlog",
    "WatchlogConfigError",
    "WatchlogDeliveryError",
    "build_event",
    "decide",
    "mask_value",
    "nearest_method",
    "request_id",
]


def request_id(request: object) -> "str | None":
    """The request id recorded for a request in flight: given an ASGI scope, a WSGI environ,
    or a Starlette, Flask or Django request."""
    for holder in (request, getattr(request, "scope", None), getattr(request, "environ", None),
                   getattr(request, "META", None)):
        if isinstance(holder, dict):
            found = holder.get("watchlog.request_id")
            if isinstance(found, str):
                return found
    return None

"""Bodies and parameter objects as they are sent: JSON objects only, masked, capped in size and
depth, replaced by a marker saying why when they cannot be sent as they are."""

from __future__ import annotations

import json
from typing import Any, Dict, Optional

from ._json import NotSerializable, stringify, utf8_len
from .masking import mask_value

__all__ = ["MAX_OBJECT_DEPTH", "OMITTED_KEY", "capture_object", "capture_params"]

OMITTED_KEY = "_watchlog_omitted"

#: The batch nests events one level inside its array and the server refuses a request nested
#: deeper than 32 levels as a whole: an object past this depth would take its batch down.
MAX_OBJECT_DEPTH = 20


def _deeper_than(value: Any, limit: int) -> bool:
    if isinstance(value, dict):
        children: Any = value.values()
    elif isinstance(value, list):
        children = value
    else:
        return False
    if limit == 0:
        return True
    return any(_deeper_than(child, limit - 1) for child in children)


def capture_object(value: Any, max_bytes: int) -> Optional[Dict[str, Any]]:
    """A masked, JSON-clean copy of ``value`` when it is a dict whose JSON fits ``max_bytes``; a
    marker when it is too large, too deep or not serialisable; None when it is not a dict."""
    if not isinstance(value, dict):
        return None
    try:
        text = stringify(value)
    except NotSerializable:
        return {OMITTED_KEY: "not_serializable"}
    size = utf8_len(text)
    if size > max_bytes:
        return {OMITTED_KEY: "too_large", "bytes": size, "limit": max_bytes}
    clean = json.loads(text)
    if _deeper_than(clean, MAX_OBJECT_DEPTH):
        return {OMITTED_KEY: "too_deep", "limit": MAX_OBJECT_DEPTH}
    masked: Dict[str, Any] = mask_value(clean)
    return masked


def _plain(value: Any) -> Any:
    # Routers convert parameters (Flask's <int:id>, Starlette's {id:int}); the event carries
    # the text the URL held, as the Node SDK's routers give it.
    if value is None or isinstance(value, (str, bool, dict, list)):
        return value
    return str(value)


def capture_params(value: Any, max_bytes: int) -> Optional[Dict[str, Any]]:
    """Query or path parameters: sent (masked) only when there is at least one."""
    if not isinstance(value, dict) or not value:
        return None
    return capture_object({str(k): _plain(v) for k, v in value.items()}, max_bytes)

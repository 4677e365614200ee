"""Bodies and parameter objects as they are sent: JSON objects only, masked, capped in size and
depth, replaced by a marker saying why when they cannot be sent as they are."""

from __future__ import annotations

import json
from json.encoder import encode_basestring as _string
from typing import Any, Dict, Mapping, Optional

from ._json import NotSerializable, stringify, utf8_len
from .masking import MASK, SECRET_KEYS, mask_card_numbers, mask_value, normalise_key

__all__ = ["MAX_OBJECT_DEPTH", "OMITTED_KEY", "capture_object", "capture_params", "params_json"]

# As the event's encoder (delivery.encode_event) writes a dict.
_ENCODE = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode

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


_SECRET: Dict[str, bool] = {}


def _is_secret(key: str) -> bool:
    """is_secret_key(), remembered for the first few thousand names (parameter names repeat)."""
    secret = _SECRET.get(key)
    if secret is None:
        secret = normalise_key(key) in SECRET_KEYS
        if len(_SECRET) < 4096:
            _SECRET[key] = secret
    return secret


def _flat_strings(value: Mapping[Any, Any], max_bytes: int) -> Optional[Dict[str, str]]:
    """What capture_params gives for a dict of strings (by string keys) whose JSON is surely
    within ``max_bytes``, without writing and reading that JSON (the usual parameters); None for
    any other. No character takes more than 6 bytes in the JSON (an escape such as ``\\u001f``
    or ``\\ud800``; UTF-8 takes at most 4), and a pair adds 6 (quotes, colon, comma)."""
    chars = 0
    for key, item in value.items():
        if type(item) is not str or type(key) is not str:
            return None
        chars += len(key) + len(item)
    if 2 + 6 * len(value) + 6 * chars > max_bytes:
        return None
    return {key: MASK if _is_secret(key) else mask_card_numbers(item) for key, item in value.items()}


def capture_params(value: Any, max_bytes: int) -> Optional[Dict[str, Any]]:
    """Query or path parameters: sent (masked) only when there is at least one."""
    if not isinstance(value, dict) or not value:
        return None
    flat = _flat_strings(value, max_bytes)
    if flat is not None:
        return flat
    return capture_object({str(k): _plain(v) for k, v in value.items()}, max_bytes)


_MASKED = _string(MASK)


def params_json(value: Any, max_bytes: int) -> Optional[str]:
    """``capture_params(value)`` as compact JSON (as the event's encoder writes it), None when
    it gives None; a dict of strings, the usual parameters, is written in one pass (as in
    _flat_strings)."""
    if not isinstance(value, dict) or not value:
        return None
    chars = 0
    for key, item in value.items():
        if type(item) is not str or type(key) is not str:
            break
        chars += len(key) + len(item)
    else:
        if 2 + 6 * len(value) + 6 * chars <= max_bytes:
            return "{" + ",".join([_string(key) + ":" + (_MASKED if _is_secret(key) else _string(
                item if len(item) < 13 else mask_card_numbers(item))) for key, item in value.items()]) + "}"
    captured = capture_object({str(k): _plain(v) for k, v in value.items()}, max_bytes)
    return None if captured is None else _ENCODE(captured)

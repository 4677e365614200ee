"""JSON written exactly as JavaScript's ``JSON.stringify`` writes it, and UTF-16 lengths.

Byte counts (the ``too_large`` marker, batch sizes) and length limits must agree with the Node
SDK and the server, which count in ``JSON.stringify`` bytes and UTF-16 code units: Python's own
``json.dumps`` differs on floats (``1.0``, ``1e-05``) and on lone surrogates.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

__all__ = ["stringify", "utf16_len", "truncate", "NotSerializable"]

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


class NotSerializable(ValueError):
    """A value JSON cannot carry (a cycle, a set, an object of a class of its own)."""


def _js_float(x: float) -> str:
    if math.isnan(x) or math.isinf(x):
        return "null"
    if x == 0:
        return "0"
    sign = "-" if x < 0 else ""
    text = repr(abs(x))
    mantissa, _, exp_text = text.partition("e")
    exponent = int(exp_text) if exp_text else 0
    whole, _, fraction = mantissa.partition(".")
    digits = (whole + fraction).lstrip("0")
    # Position of the decimal point relative to the first significant digit (ECMA-262's n).
    n = len(whole) + exponent - (len(whole + fraction) - len((whole + fraction).lstrip("0")))
    digits = digits.rstrip("0") or "0"
    k = len(digits)
    if k <= n <= 21:
        out = digits + "0" * (n - k)
    elif 0 < n <= 21:
        out = digits[:n] + "." + digits[n:]
    elif -6 < n <= 0:
        out = "0." + "0" * (-n) + digits
    else:
        e = n - 1
        mark = "+" if e >= 0 else "-"
        out = (digits[0] + ("." + digits[1:] if k > 1 else "")) + "e" + mark + str(abs(e))
    return sign + out


def _string(s: str) -> str:
    out = json.dumps(s, ensure_ascii=False)
    if _LONE_SURROGATE.search(out):
        out = _LONE_SURROGATE.sub(lambda m: "\\u%04x" % ord(m.group()), out)
    return out


def _write(value: Any, parts: list[str], seen: set[int]) -> None:
    if value is None:
        parts.append("null")
    elif value is True:
        parts.append("true")
    elif value is False:
        parts.append("false")
    elif isinstance(value, str):
        parts.append(_string(value))
    elif isinstance(value, int):
        # JavaScript numbers are doubles: a larger integer is written as its double would be.
        parts.append(str(value) if abs(value) < 2**53 else _js_float(float(value)))
    elif isinstance(value, float):
        parts.append(_js_float(value))
    elif isinstance(value, dict):
        if id(value) in seen:
            raise NotSerializable("a cycle")
        seen.add(id(value))
        parts.append("{")
        first = True
        for key, item in value.items():
            if not isinstance(key, str):
                raise NotSerializable(f"a key of type {type(key).__name__}")
            if not first:
                parts.append(",")
            first = False
            parts.append(_string(key))
            parts.append(":")
            _write(item, parts, seen)
        parts.append("}")
        seen.discard(id(value))
    elif isinstance(value, (list, tuple)):
        if id(value) in seen:
            raise NotSerializable("a cycle")
        seen.add(id(value))
        parts.append("[")
        for i, item in enumerate(value):
            if i:
                parts.append(",")
            _write(item, parts, seen)
        parts.append("]")
        seen.discard(id(value))
    else:
        raise NotSerializable(f"a value of type {type(value).__name__}")


def stringify(value: Any) -> str:
    """``JSON.stringify(value)`` for JSON-like Python values; NotSerializable otherwise."""
    parts: list[str] = []
    try:
        _write(value, parts, set())
    except RecursionError as error:
        raise NotSerializable("nested too deeply") from error
    return "".join(parts)


def utf8_len(text: str) -> int:
    """Bytes of ``text`` in UTF-8 (a lone surrogate counted as the 3 bytes Node would write)."""
    return len(text.encode("utf-8", "surrogatepass"))


def utf16_len(text: str) -> int:
    """``text.length`` in JavaScript: code points past U+FFFF count twice."""
    if text.isascii():
        return len(text)
    return len(text) + sum(1 for ch in text if ord(ch) > 0xFFFF)


def truncate(text: str, limit: int) -> str:
    """At most ``limit`` UTF-16 code units, never splitting a surrogate pair."""
    if len(text) <= limit and (text.isascii() or utf16_len(text) <= limit):
        return text
    units = 0
    for i, ch in enumerate(text):
        units += 2 if ord(ch) > 0xFFFF else 1
        if units > limit:
            return text[:i]
    return text

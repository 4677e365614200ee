"""watchlog's built-in masking rules, as the server and every SDK apply them.

- A value under a secret key becomes ``MASK``, whatever it was. Keys are compared lower-case
  without ``-`` and ``_``.
- In every string, each run of 13 to 19 ASCII digits (single spaces or dashes allowed between
  digits) keeps its last four digits; the other digits become ``*``.
- Keys keep their order; the input is never changed.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["MASK", "SECRET_KEYS", "is_secret_key", "mask_card_numbers", "mask_value", "normalise_key"]

MASK = "********"

#: SPEC 2.3's names and the common ones, as ``@watchlog/masking`` lists them.
_NAMES = (
    "password", "secret", "pwd", "token", "api_key", "access_token", "refresh_token", "authorization",
    "apikey", "api-key", "x-api-key", "client_secret", "private_key", "passwd", "cookie", "set-cookie",
    "cvv", "cvc", "pin", "ssn",
)


def normalise_key(key: str) -> str:
    return key.lower().replace("-", "").replace("_", "")


SECRET_KEYS = frozenset(normalise_key(name) for name in _NAMES)

# [0-9], not \d: other scripts' digits are not card digits.
_CARD_RUN = re.compile(r"(?<![0-9])[0-9](?:[ -]?[0-9]){12,18}(?![0-9])")
_THIRTEEN = re.compile(r"[0-9](?:[ -]?[0-9]){12}")


def is_secret_key(key: str) -> bool:
    return normalise_key(key) in SECRET_KEYS


def _mask_run(match: re.Match[str]) -> str:
    run = match.group()
    left = sum(1 for ch in run if "0" <= ch <= "9")
    out = []
    for ch in run:
        if "0" <= ch <= "9":
            out.append("*" if left > 4 else ch)
            left -= 1
        else:
            out.append(ch)
    return "".join(out)


def mask_card_numbers(text: str) -> str:
    # A run of 13 digits is at least 13 characters long.
    if len(text) < 13 or not _THIRTEEN.search(text):
        return text
    return _CARD_RUN.sub(_mask_run, text)


def mask_value(value: Any) -> Any:
    """A masked copy of a JSON-like value (dicts, lists, strings, numbers, booleans, None)."""
    if isinstance(value, str):
        return mask_card_numbers(value)
    if isinstance(value, dict):
        return {key: MASK if is_secret_key(str(key)) else mask_value(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [mask_value(item) for item in value]
    return value

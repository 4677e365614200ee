"""A small HTTP client for driving the host apps: one keep-alive connection per thread."""

from __future__ import annotations

import http.client
import json
import threading
from typing import Any, Dict, Optional, Tuple
from urllib.parse import urlsplit

_local = threading.local()


def request(url: str, method: str = "GET", body: Any = None,
            headers: Optional[Dict[str, str]] = None) -> Tuple[int, Dict[str, str], bytes]:
    parts = urlsplit(url)
    key = (parts.hostname, parts.port)
    conns = getattr(_local, "conns", None)
    if conns is None:
        conns = _local.conns = {}
    sent = dict(headers or {})
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        sent["content-type"] = "application/json"
    for attempt in range(2):
        conn = conns.get(key)
        if conn is None:
            conn = conns[key] = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
        try:
            conn.request(method, parts.path + ("?" + parts.query if parts.query else ""), body=data, headers=sent)
            response = conn.getresponse()
            payload = response.read()
            received = {name.lower(): value for name, value in response.getheaders()}
            if response.will_close:
                conn.close()
                del conns[key]
            return response.status, received, payload
        except (OSError, http.client.HTTPException):
            # A kept-alive connection the server closed meanwhile: one new one.
            conn.close()
            del conns[key]
            if attempt == 1:
                raise
    raise AssertionError("unreachable")

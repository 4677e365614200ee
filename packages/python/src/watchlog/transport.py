"""POSTs batches over http.client, one keep-alive connection per delivery thread. Every
attempt ends in an Answer or a NoAnswer, never an exception."""

from __future__ import annotations

import http.client
import socket
import ssl
import threading
from typing import Optional, Set, Union
from urllib.parse import urlsplit

from .retry import Answer, NoAnswer

__all__ = ["Transport"]

#: The answers are small (an id per event); anything larger is not read.
_MAX_ANSWER_BYTES = 4 * 1024 * 1024


class Transport:
    def __init__(self, url: str, api_key: str, timeout_s: float, user_agent: str) -> None:
        self._args = (url, api_key, timeout_s, user_agent)
        parts = urlsplit(url)
        self._secure = parts.scheme == "https"
        self._host = parts.hostname or "localhost"
        self._port = parts.port
        self._path = parts.path
        self._headers = {"content-type": "application/json", "x-api-key": api_key, "user-agent": user_agent}
        self._timeout = timeout_s
        self._local = threading.local()
        self._open: Set[http.client.HTTPConnection] = set()
        self._lock = threading.Lock()

    def fresh(self) -> "Transport":
        """The same transport without this one's connections (for a forked child)."""
        return Transport(*self._args)

    def _connection(self) -> http.client.HTTPConnection:
        conn: Optional[http.client.HTTPConnection] = getattr(self._local, "conn", None)
        if conn is None:
            if self._secure:
                conn = http.client.HTTPSConnection(
                    self._host, self._port, timeout=self._timeout, context=ssl.create_default_context()
                )
            else:
                conn = http.client.HTTPConnection(self._host, self._port, timeout=self._timeout)
            self._local.conn = conn
            with self._lock:
                self._open.add(conn)
        return conn

    def _drop(self, conn: http.client.HTTPConnection) -> None:
        self._local.conn = None
        with self._lock:
            self._open.discard(conn)
        try:
            conn.close()
        except Exception:
            pass

    def post(self, body: bytes) -> Union[Answer, NoAnswer]:
        conn = self._connection()
        try:
            conn.request("POST", self._path, body=body, headers=self._headers)
            response = conn.getresponse()
            data = response.read(_MAX_ANSWER_BYTES + 1)
            headers = {name.lower(): value for name, value in response.getheaders()}
            if response.will_close or len(data) > _MAX_ANSWER_BYTES:
                self._drop(conn)
            text = data.decode("utf-8", "replace") if len(data) <= _MAX_ANSWER_BYTES else ""
            return Answer(response.status, headers, text)
        except (OSError, http.client.HTTPException, ValueError) as error:
            # Cut off, refused, timed out: whether the events were stored is unknown, and the
            # retry's idempotency keys will tell.
            self._drop(conn)
            reason = type(error).__name__ + (f": {error}" if str(error) else "")
            return NoAnswer(reason)

    def abort_all(self) -> None:
        """Ends every attempt in flight now (each becomes a NoAnswer)."""
        with self._lock:
            conns = list(self._open)
        for conn in conns:
            sock = conn.sock
            if sock is not None:
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

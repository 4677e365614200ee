"""A real ``watchlog start`` for the tests: a subprocess of the repository's server on a data dir
and port of its own, stopped (or killed, and started again on the same data dir and port) by the
test; and the REST calls the tests need (login, a project and its API key, the stored events)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Tuple, TypeVar

REPO = Path(__file__).resolve().parents[3]
ADMIN_EMAIL = "admin@example.com"
ADMIN_PASSWORD = "correct horse battery"

T = TypeVar("T")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def eventually(check: Callable[[], Optional[T]], timeout: float, what: str) -> T:
    """Polls ``check`` until it gives something other than None; fails after ``timeout``."""
    deadline = time.monotonic() + timeout
    while True:
        found = check()
        if found is not None:
            return found
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(0.05)


def api(base: str, method: str, path: str, body: Any = None, token: Optional[str] = None) -> Tuple[int, Any]:
    headers = {"content-type": "application/json"} if body is not None else {}
    if token:
        headers["authorization"] = f"Bearer {token}"
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(base + path, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            status, text = response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        status, text = error.code, error.read().decode()
    try:
        return status, json.loads(text) if text else None
    except ValueError:
        return status, text


def _newest_source() -> float:
    return max(path.stat().st_mtime for folder in ("src", "projections") for path in (REPO / folder).rglob("*.ts"))


class WatchlogServer:
    def __init__(self, port: Optional[int] = None) -> None:
        self.data_dir = tempfile.mkdtemp(prefix="watchlog-pysdk-")
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.process: Optional[subprocess.Popen[bytes]] = None
        self.log = Path(self.data_dir + ".log")
        self._token: Optional[str] = None

    def command(self) -> List[str]:
        """The compiled server when it is newer than the sources (it starts in about half the
        time), else the sources through tsx."""
        built = REPO / "dist" / "src" / "main.js"
        if built.exists() and built.stat().st_mtime > _newest_source():
            return ["node", str(built), "start"]
        return ["node", "--import", "tsx", str(REPO / "src" / "main.ts"), "start"]

    def start(self, timeout: float = 90) -> "WatchlogServer":
        env = {
            "PATH": os.environ.get("PATH", ""),
            "HOME": os.environ.get("HOME", ""),
            "PORT": str(self.port),
            "WATCHLOG_DATA_DIR": self.data_dir,
            "WATCHLOG_ADMIN_EMAIL": ADMIN_EMAIL,
            "WATCHLOG_ADMIN_PASSWORD": ADMIN_PASSWORD,
            "WATCHLOG_LOG_LEVEL": "warn",
        }
        with open(self.log, "ab") as out:
            self.process = subprocess.Popen(self.command(), cwd=REPO, env=env, stdout=out, stderr=subprocess.STDOUT)
        eventually(self._ready, timeout, f"watchlog to be ready on {self.url} (log: {self.log})")
        return self

    def _ready(self) -> Optional[bool]:
        assert self.process is not None
        if self.process.poll() is not None:
            raise AssertionError(f"watchlog exited with {self.process.returncode}:\n{self.log.read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(self.url + "/readyz", timeout=2) as response:
                return True if response.status == 200 else None
        except (OSError, urllib.error.URLError):
            return None

    def kill(self) -> None:
        """SIGKILL: no drain at all, mid-request answers lost."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(30)

    def stop(self) -> None:
        self.kill()
        shutil.rmtree(self.data_dir, ignore_errors=True)
        self.log.unlink(missing_ok=True)

    def token(self) -> str:
        if self._token is None:
            # The admin is created just after the server starts listening: a 401 means not yet.
            def login() -> Optional[str]:
                credentials = {"email": ADMIN_EMAIL, "password": ADMIN_PASSWORD}
                status, body = api(self.url, "POST", "/v1/auth/login", credentials)
                if status == 200:
                    return str(body["token"])
                if status != 401:
                    raise AssertionError(f"login: {status} {body}")
                return None

            self._token = eventually(login, 45, "the admin to exist")
        return self._token

    def project_with_key(self, name: str) -> Tuple[str, str]:
        """A new project and an API key for it: (project id, key)."""
        status, project = api(self.url, "POST", "/v1/projects", {"name": name}, self.token())
        assert status == 201, (status, project)
        status, key = api(self.url, "POST", f"/v1/projects/{project['id']}/api-keys", {"name": "sdk"}, self.token())
        assert status == 201, (status, key)
        return str(project["id"]), str(key["key"])

    def events(self, project_id: str) -> List[Dict[str, Any]]:
        status, body = api(self.url, "GET", f"/v1/audit/export?format=json&project_id={project_id}", token=self.token())
        assert status == 200, (status, body)
        assert isinstance(body, list)
        return body

    def wait_for_events(self, project_id: str, count: int, timeout: float = 30) -> List[Dict[str, Any]]:
        """The project's stored events once there are at least ``count``."""
        def enough() -> Optional[List[Dict[str, Any]]]:
            found = self.events(project_id)
            return found if len(found) >= count else None

        return eventually(enough, timeout, f"{count} stored events")

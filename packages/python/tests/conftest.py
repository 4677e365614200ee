from __future__ import annotations

import logging
from typing import Iterator, List

import pytest

from watchlog_server import WatchlogServer


@pytest.fixture(scope="session")
def server() -> Iterator[WatchlogServer]:
    """One watchlog for the tests that do not stop it; each test makes its own project."""
    running = WatchlogServer().start()
    yield running
    running.stop()


class Captured(logging.Handler):
    def __init__(self, logger: logging.Logger) -> None:
        super().__init__()
        self.lines: List[str] = []
        self.logger = logger

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(f"{record.levelname} {record.getMessage()}")


@pytest.fixture
def log_lines() -> Iterator[Captured]:
    """A logger of its own for a client, whose lines the test reads."""
    logger = logging.getLogger(f"watchlog-test-{id(object())}")
    logger.propagate = False
    handler = Captured(logger)
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    yield handler
    logger.removeHandler(handler)

"""Where the shared conformance vectors are: the repository's packages/conformance, or
WATCHLOG_CONFORMANCE_DIR while they are being written elsewhere."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Dict, List

HERE = Path(__file__).resolve().parent
DEFAULT_DIR = HERE.parent.parent / "conformance"


def vectors(name: str) -> Dict[str, Any]:
    folder = Path(os.environ.get("WATCHLOG_CONFORMANCE_DIR") or DEFAULT_DIR)
    if not (folder / f"{name}.json").is_file():
        raise FileNotFoundError(f"no conformance vectors {folder / name}.json (WATCHLOG_CONFORMANCE_DIR reads them "
                                "from elsewhere)")
    with open(folder / f"{name}.json", encoding="utf-8") as handle:
        data: Dict[str, Any] = json.load(handle)
    return data


def cases(name: str) -> List[Dict[str, Any]]:
    found: List[Dict[str, Any]] = vectors(name)["cases"]
    names = [case["name"] for case in found]
    assert len(names) == len(set(names)), f"{name}.json: case names must be unique"
    return found

#!/usr/bin/env bash
# The Python SDK's suite: type-check, then pytest (conformance vectors, then the frameworks
# against a real `watchlog start`).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/venv.sh
.venv/bin/python -m mypy
exec .venv/bin/python -m pytest "$@"

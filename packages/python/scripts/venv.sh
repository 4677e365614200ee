#!/usr/bin/env bash
# Makes packages/python/.venv with the pinned test requirements and the benchmark's servers, when
# it is missing or the requirements changed since it was made; .ci/run calls it on a clean
# machine before npm test, and bench/sdk-hosts.ts before it measures the Python apps.
set -euo pipefail
cd "$(dirname "$0")/.."
python="${PYTHON:-python3}"
stamp=.venv/.requirements
requirements=(requirements-test.txt requirements-bench.txt)
if [ -x .venv/bin/python ] && [ -f "$stamp" ] && cat "${requirements[@]}" | cmp -s - "$stamp"; then
  exit 0
fi
if [ ! -x .venv/bin/python ]; then
  "$python" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --disable-pip-version-check "${requirements[@]/#/-r}"
cat "${requirements[@]}" >"$stamp"

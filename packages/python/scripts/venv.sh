#!/usr/bin/env bash
# Makes packages/python/.venv with the pinned test requirements, when it is missing or the
# requirements changed since it was made; .ci/run calls it on a clean machine before npm test.
set -euo pipefail
cd "$(dirname "$0")/.."
python="${PYTHON:-python3}"
stamp=.venv/.requirements
if [ -x .venv/bin/python ] && [ -f "$stamp" ] && cmp -s requirements-test.txt "$stamp"; then
  exit 0
fi
if [ ! -x .venv/bin/python ]; then
  "$python" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --disable-pip-version-check -r requirements-test.txt
cp requirements-test.txt "$stamp"

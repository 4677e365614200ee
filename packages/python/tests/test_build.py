"""The distribution builds as a wheel and an sdist, and the wheel carries the typed package."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1]


def test_wheel_and_sdist_build(tmp_path: Path) -> None:
    # Built from a copy, so the build's by-products stay out of the source tree; no isolation:
    # the pinned setuptools of the test environment, and no network.
    source = tmp_path / "source"
    shutil.copytree(PACKAGE / "src", source / "src", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(PACKAGE / name, source / name)
    subprocess.run([sys.executable, "-m", "build", "--no-isolation", "--outdir", str(tmp_path), str(source)],
                   check=True, capture_output=True)
    wheels = list(tmp_path.glob("watchlog-*.whl"))
    sdists = list(tmp_path.glob("watchlog-*.tar.gz"))
    assert len(wheels) == 1 and len(sdists) == 1
    names = set(zipfile.ZipFile(wheels[0]).namelist())
    for module in ("__init__", "asgi", "wsgi", "flask", "django", "masking", "event", "retry", "delivery"):
        assert f"watchlog/{module}.py" in names
    assert "watchlog/py.typed" in names
    metadata = next(n for n in names if n.endswith("METADATA"))
    text = zipfile.ZipFile(wheels[0]).read(metadata).decode()
    assert "Requires-Dist" not in text, "no runtime dependency"
    target = tmp_path / "installed"
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index", "--target",
                    str(target), str(wheels[0])], check=True)
    probe = (f"import sys; sys.path.insert(0, {str(target)!r}); import watchlog; print(watchlog.__file__); "
             "print(watchlog.mask_value({'token': 1})['token'])")
    out = subprocess.run([sys.executable, "-I", "-c", probe], check=True, capture_output=True, text=True)
    where, masked = out.stdout.splitlines()
    assert where.startswith(str(target)) and masked == "********"

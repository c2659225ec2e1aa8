"""The Python Workers route (README, "Python Workers"): the pure-Python package vendored into a
Cloudflare Python Worker's ``python_modules/``. Wrangler uploads the ``.py`` files and, silently,
nothing else unless a module rule names it, and bytepair's encodings live in
``bytepair/data/*.bpr``. Offline, this checks the rule the README gives against what it must keep:
the wheel `pip wheel .` builds is installed with ``--target`` (as vendoring does), the files Wrangler
would upload are copied out (``.py`` plus the rule's globs), and that copy must count as the full
install does; without the rule, the first encoding is a VocabFormatError naming the rule."""

from __future__ import annotations

import fnmatch
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.browser import ROOT

README_RULE = 'rules = [{ type = "Data", globs = ["**/*.bpr"], fallthrough = true }]'
PROBE = "import bytepair; e = bytepair.get_encoding('o200k_base'); print(e.encode('Hello, Workers! 🫠 <|endoftext|>', disallowed_special=()))"


@pytest.fixture(scope="module")
def vendored(tmp_path_factory) -> Path:
    """python_modules/ as vendoring leaves it: the wheel installed with --target, no dependencies."""
    root = tmp_path_factory.mktemp("python-worker")
    wheels = root / "wheels"
    env = {**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(wheels), str(ROOT)], check=True, env=env,
                   capture_output=True, timeout=300)
    (wheel,) = wheels.glob("bytepair-*.whl")
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-compile", "--target", str(root / "python_modules"),
                    str(wheel)], check=True, env=env, capture_output=True, timeout=300)
    return root / "python_modules"


def _uploaded(modules: Path, target: Path, globs: list[str]) -> Path:
    """The files Wrangler uploads from python_modules/: .py files, and those a Data rule's globs match."""
    for path in modules.rglob("*"):
        rel = path.relative_to(modules).as_posix()
        if path.is_file() and (rel.endswith(".py") or any(fnmatch.fnmatch(rel, g.removeprefix("**/")) or fnmatch.fnmatch(rel, g)
                                                          for g in globs)):
            (target / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, target / rel)
    return target


def _probe(folder: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"} | {"PYTHONPATH": str(folder), "PYTHONDONTWRITEBYTECODE": "1"}
    return subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, timeout=120,
                          cwd=folder)


def test_the_readme_rule_keeps_the_rank_data(vendored: Path, tmp_path: Path) -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert README_RULE in readme
    globs = ["**/*.bpr"]
    full = _probe(vendored)
    kept = _probe(_uploaded(vendored, tmp_path / "with-rule", globs))
    assert full.returncode == 0, full.stderr[-2000:]
    assert (kept.returncode, kept.stdout) == (0, full.stdout), kept.stderr[-2000:]
    assert sorted(p.name for p in (tmp_path / "with-rule" / "bytepair" / "data").glob("*.bpr")) == sorted(
        p.name for p in (vendored / "bytepair" / "data").glob("*.bpr")) != []


def test_without_the_rule_the_error_names_it(vendored: Path, tmp_path: Path) -> None:
    dropped = _probe(_uploaded(vendored, tmp_path / "py-only", []))
    assert dropped.returncode == 1
    last = dropped.stderr.strip().splitlines()[-1]
    assert last.startswith("bytepair.errors.VocabFormatError: bytepair/data/o200k_base.bpr is missing")
    assert 'globs = ["**/*.bpr"]' in last

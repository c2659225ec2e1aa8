"""Import a module of the benchmark package (bench/) for the tests that check what it assumes."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from types import ModuleType

REPO = Path(__file__).resolve().parents[2]


def import_bench(name: str) -> ModuleType:
    """``bench/NAME.py`` as ``bench.NAME`` (with the repository on ``sys.path``, as ``python -m bench``
    has it, if pytest did not put it there already)."""
    if str(REPO) not in sys.path:
        sys.path.append(str(REPO))
    return importlib.import_module(f"bench.{name}")

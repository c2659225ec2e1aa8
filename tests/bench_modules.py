"""Import a benchmark script from bench/ as a module, for the tests that check what it assumes."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from types import ModuleType

BENCH = Path(__file__).resolve().parent.parent / "bench"


def import_bench(name: str) -> ModuleType:
    """``bench/NAME.py``, imported with bench/ on ``sys.path`` only while it (and what it imports
    from bench/) loads."""
    sys.path.insert(0, str(BENCH))
    try:
        return importlib.import_module(name)
    finally:
        sys.path.remove(str(BENCH))

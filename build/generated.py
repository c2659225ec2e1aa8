"""The command line the generators of committed data share: write the file, or ``--check`` that the
committed one is what the generator makes now (``build/gen_*.py``)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path


def write_or_check(out: Path, render: Callable[[], str], description: str, script: str) -> int:
    """Write ``render()`` to ``out``; with ``--check``, fail (1) if ``out`` differs from it."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--check", action="store_true", help="fail if the committed file is stale")
    args = parser.parse_args()
    text = render()
    if args.check:
        if out.read_text(encoding="utf-8") != text:
            print(f"{out} is stale: run python {script}", file=sys.stderr)
            return 1
        print(f"{out} is up to date")
        return 0
    out.write_text(text, encoding="utf-8")
    print(f"wrote {out} ({len(text):,} characters)")
    return 0

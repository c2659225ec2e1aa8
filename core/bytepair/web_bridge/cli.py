"""``npx bytepair``: the npm package's command line is this very program, ``bytepair.cli``.

>>> run_cli(["list"])["stdout"].decode().split()[:2]
['gpt2', 'r50k_base']
"""

from __future__ import annotations

from typing import Any

from ..cli import main
from .values import to_py

__all__ = ["run_cli"]


def run_cli(argv: Any, cwd: str | None = None, tokenizers: str | None = None) -> dict[str, Any]:
    """Run the ``bytepair`` command line (``bytepair.cli``) with ``argv``: the npm package's
    ``npx bytepair`` is this very program, so its commands, flags, messages and exit codes are the
    Python CLI's. Answers ``{"code", "stdout" (bytes), "stderr" (str)}``; standard input is the
    interpreter's own. ``tokenizers``: the package's prepared tokenizer.json files as JSON
    (name -> {"path", "sha256"}), which ``--tokenizer NAME`` opens (``cli/counting.py``)."""
    import contextlib
    import io
    import os

    args = [str(a) for a in to_py(argv)]
    out = io.BytesIO()
    text_out = io.StringIO()  # --help and --version print text
    err = io.StringIO()
    if cwd is not None:
        os.chdir(cwd)
    if tokenizers:
        os.environ["BYTEPAIR_PREPARED_TOKENIZERS"] = tokenizers
    with contextlib.redirect_stdout(text_out), contextlib.redirect_stderr(err):
        try:
            code = main(args, stdout=out)
        except SystemExit as exc:  # argparse: usage errors (2), --help and --version (0)
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    return {"code": code, "stdout": text_out.getvalue().encode() + out.getvalue(), "stderr": err.getvalue()}

"""The runtime's start: what the bundle's snapshot holds ready (``prepare``), where rank files come
from, warming the engine up while the page waits, and what the bridge holds (leak checks).

>>> warm_up("r50k_base", WARM_UP_PARTS)
0
"""

from __future__ import annotations

import gc
import importlib
import os
import pkgutil
import random

from ..added_tokens.scan import SpecialTokenScanner
from ..data.openai import ENCODING_SPECS
from ..errors import InvalidInputError
from ..pipeline.engine import Engine
from ..pre_tokenizers.pattern import Pretokenizer
from ..pre_tokenizers.pattern.splitter import compile_cut_finders
from ..registry import use_data_dir
from . import faces, streams, tokens, training
from .faces import JsonFace, face_of

__all__ = ["WARM_UP_PARTS", "memory_stats", "prepare", "use_verified_data_dir", "warm_up"]


def prepare() -> None:
    """Import every module of the package and compile every bundled pattern and special-token matcher.

    The bundle's build calls this before taking Pyodide's memory snapshot, so a page that starts
    from the snapshot needs neither the package files nor any compiling (the rank data are loaded
    per encoding, on demand).
    """
    package = __name__.split(".")[0]
    package_path = [os.path.dirname(os.path.dirname(os.path.abspath(__file__)))]
    for module in pkgutil.walk_packages(package_path, package + "."):
        if module.name != package + ".__main__":  # that one runs the CLI when imported
            importlib.import_module(module.name)
    for spec in ENCODING_SPECS.values():
        Pretokenizer(spec.pattern, cuttable=True)
        SpecialTokenScanner(spec.special_tokens).find("", frozenset(spec.special_tokens))
    compile_cut_finders()


def use_verified_data_dir(directory: str) -> None:
    """Rank files come from ``directory``, where the runtime writes each one only after checking its
    size and sha256 against the bundle's manifest (so Python need not hash them again)."""
    use_data_dir(directory, verified=True)


def memory_stats() -> dict[str, int]:
    """What the bridge holds, for leak checks: open stream decoders, counters and trainings, loaded
    tokenizers, cached blocks and word counts, and the interpreter's live container objects (after a
    collection)."""
    gc.collect()
    return {
        **streams.held(),
        "loaded_tokenizers": len(faces.loaded),
        **training.held(),
        **tokens.held(),
        "python_objects": len(gc.get_objects()),
    }


WARM_UP_PARTS = 8
"""How many parts :func:`warm_up` has; the worker asks for one per task after its first ``open``, so
a request that arrives meanwhile waits for one part at most."""

_WARM_UP_SCRIPTS = (
    "abcdefghijklmnopqrstuvwxyz", "ABCDEFGHIJKLMNOPQRSTUVWXYZ", "àâäçéèêëîïôöùûüßñ",
    "абвгдежзийклмнопрстуфхцчшщыьэюя", "的一是不了人我在有他这中大来上国个到说们", "あいうえおかきくけこさしすせそ",
)


def warm_up(name: str, part: int) -> int:
    """Encode one part of a made-up text (new words in several scripts, digits, punctuation) through
    a throwaway engine over ``name``'s model and pre-tokenizer; the face's own piece cache is not
    touched. Returns how many tokens the part made: 0 past the last part (``WARM_UP_PARTS``).

    Why: a WebAssembly engine first runs Pyodide's interpreter, ``re`` and ``dict`` code in a quick
    baseline compilation and optimises what turns out hot only later. The first big text on a fresh
    page then paid for that: a 400 kB first pass in Chromium took 292 ms, and 239 ms once ~5 kB of new
    words had gone through first (median of 4 pages, o200k). The worker runs these parts while it
    waits for requests, right after the runtime started.

    >>> from bytepair import get_encoding
    >>> cache = get_encoding("r50k_base").engine.cache
    >>> before = len(cache)
    >>> warm_up("r50k_base", 0) > 0, warm_up("r50k_base", WARM_UP_PARTS), len(cache) == before
    (True, 0, True)
    """
    if not isinstance(part, int) or part < 0:
        raise InvalidInputError(f"warm_up part must be an integer from 0, not {part!r}")
    face = face_of(name)
    if part >= WARM_UP_PARTS:
        return 0
    engine = face.tok.engine if isinstance(face, JsonFace) else face.engine
    throwaway = Engine(engine.model, engine.pre_tokenizer)
    rng = random.Random(part)
    words = []
    for _ in range(150):
        letters = rng.choice(_WARM_UP_SCRIPTS)
        word = "".join(rng.choices(letters, k=rng.randint(2, 9)))
        words.append(word if rng.random() < 0.8 else f"{word}{rng.randint(0, 99_999)}{rng.choice(',.;:!?')}")
    return sum(map(len, throwaway.piece_ids(" ".join(words))))

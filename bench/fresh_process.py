"""Measurements that need a fresh interpreter, run by section ``native`` (``native_measure.py``) as
``python bench/fresh_process.py TASK ...``; it imports bytepair from the snapshot the section puts on
``PYTHONPATH``.

Why a separate script: import time, ``get_encoding`` time and a first encode with empty caches can
only be seen in a new process, and tiktoken's o200k_base panics (a Rust ``PanicException``) on
1 MB of spaces, which is safer to meet away from the benchmark's own process.

Only ``sys`` and ``time`` (both built in) are imported before the timed part, so an ``import`` is
not made cheaper by modules this script loaded first. Each task prints one JSON object on stdout.

Tasks:
    import-bytepair                      seconds to ``import bytepair``
    bytepair-get NAME                    ... plus seconds for ``bytepair.get_encoding(NAME)``
    bytepair-first NAME TEXT_FILE        ... plus one timed ``encode_ordinary`` of the file (empty caches)
    tokenizer-json-first JSON TEXT_FILE  ``import bytepair``, ``Tokenizer.from_file(JSON)``, then one timed
                                         ``encode(text, add_special_tokens=False).ids`` of the file
    tiktoken-get NAME                    seconds to ``import tiktoken`` and ``tiktoken.get_encoding(NAME)``
    tiktoken-worst NAME TEXT_FILE N      N timed ``encode_ordinary`` runs, or the panic message
    warm-bytecode                        import everything the tasks use, so its bytecode gets cached;
                                         reports where bytepair was imported from
"""

import sys
import time

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: importing typing would be billed to the timed imports
if TYPE_CHECKING:
    from collections.abc import Callable


def _digest(ids: list) -> str:
    """A short fingerprint of an id list, so the parent can compare ids without shipping them."""
    import hashlib
    from array import array

    return hashlib.sha256(array("I", ids).tobytes()).hexdigest()[:16]


def _emit(result: dict) -> None:
    import json

    print(json.dumps(result))


def _read(path: str) -> str:
    """The text as written: no newline translation (a lone "\\r" must stay one)."""
    with open(path, encoding="utf-8", newline="") as f:
        return f.read()


def import_bytepair() -> dict:
    start = time.perf_counter()
    import bytepair  # noqa: F401

    return {"import_s": time.perf_counter() - start}


def bytepair_get(name: str) -> dict:
    result = import_bytepair()
    import bytepair

    start = time.perf_counter()
    bytepair.get_encoding(name)
    result["get_encoding_s"] = time.perf_counter() - start
    return result


def bytepair_first(name: str, text_file: str) -> dict:
    result = bytepair_get(name)
    import bytepair

    enc = bytepair.get_encoding(name)
    text = _read(text_file)
    start = time.perf_counter()
    ids = enc.encode_ordinary(text)
    result["encode_s"] = time.perf_counter() - start
    result["n_tokens"] = len(ids)
    result["digest"] = _digest(ids)
    return result


def tokenizer_json_first(json_path: str, text_file: str) -> dict:
    result = import_bytepair()
    import bytepair

    start = time.perf_counter()
    tokenizer = bytepair.Tokenizer.from_file(json_path)
    result["load_s"] = time.perf_counter() - start
    text = _read(text_file)
    start = time.perf_counter()
    ids = tokenizer.encode(text, add_special_tokens=False).ids
    result["encode_s"] = time.perf_counter() - start
    result["n_tokens"] = len(ids)
    result["digest"] = _digest(ids)
    return result


def tiktoken_get(name: str) -> dict:
    start = time.perf_counter()
    import tiktoken

    imported = time.perf_counter()
    tiktoken.get_encoding(name)
    return {"import_s": imported - start, "get_encoding_s": time.perf_counter() - imported}


def tiktoken_worst(name: str, text_file: str, repeats: str) -> dict:
    import tiktoken

    enc = tiktoken.get_encoding(name)
    text = _read(text_file)
    enc.encode_ordinary("warm up")
    times = []
    ids: list = []
    for _ in range(int(repeats)):
        start = time.perf_counter()
        try:
            ids = enc.encode_ordinary(text)
        except BaseException as exc:  # pyo3's PanicException derives from BaseException
            if isinstance(exc, (KeyboardInterrupt, SystemExit)):
                raise
            return {"panic": f"{type(exc).__name__}: {str(exc)[:200]}"}
        times.append(time.perf_counter() - start)
    return {"times_s": times, "n_tokens": len(ids), "digest": _digest(ids)}


def warm_bytecode() -> dict:
    import bytepair
    import tiktoken

    bytepair.get_encoding("gpt2").encode("warm up")
    # The tokenizer.json path (its JSON reader, pre-tokenizers, the pair-rank BPE model).
    bytepair.Tokenizer.from_str(bytepair.Tokenizer.from_encoding("gpt2").to_str()).encode("warm up")
    tiktoken.get_encoding("gpt2").encode("warm up")  # GPT-2's loader (json, data-gym files)
    tiktoken.get_encoding("cl100k_base").encode("warm up")  # the .tiktoken loader
    _digest([1])
    return {"bytepair_file": bytepair.__file__}


TASKS: "dict[str, Callable[..., dict]]" = {
    "import-bytepair": import_bytepair,
    "bytepair-get": bytepair_get,
    "bytepair-first": bytepair_first,
    "tokenizer-json-first": tokenizer_json_first,
    "tiktoken-get": tiktoken_get,
    "tiktoken-worst": tiktoken_worst,
    "warm-bytecode": warm_bytecode,
}

if __name__ == "__main__":
    task, *args = sys.argv[1:]
    _emit(TASKS[task](*args))

"""The fresh processes of section ``tokenizer-json``: ``python bench/tokenizer_json_child.py TASK ...``.

Why a script of its own: the first pass, the stream and the load time of each library can only be
seen in a new process, and only ``sys`` and ``time`` (both built in) are imported before a task's
timed part, so no import is made cheaper by modules this script loaded first. Each task prints one
JSON object on stdout. ``tokenizer_json.py`` (the section) also takes the library calls from here
(``import_library``, ``load_tokenizer``, ``encode_ids``, ``digest``), so its in-process warm runs
call exactly what the children call.

Tasks (LIB is ``hf``, ``bytepair`` or ``tokie``):
    load LIB JSON                          import the library and load the file (an error is reported)
    first LIB JSON TEXT_FILE               ... then one timed encode of the file (empty caches)
    fields LIB JSON TEXT_FILE              ... the same, every field of the encoding read in the timed part
    stream LIB JSON ROUNDS TEXT_FILE...    ... then the files in turn, ROUNDS times, each call timed
    warm-bytecode                          import everything once (the private bytecode cache);
                                           reports where bytepair was imported from
"""

from __future__ import annotations

import sys
import time

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: importing typing would be billed to the timed imports
if TYPE_CHECKING:
    from typing import Any

LIBRARIES = ("hf", "bytepair", "tokie")


def import_library(lib: str) -> Any:
    """The library's module: HF ``tokenizers``, bytepair or tokie."""
    if lib == "hf":
        import tokenizers

        return tokenizers
    if lib == "bytepair":
        import bytepair

        return bytepair
    import tokie

    return tokie


def load_tokenizer(lib: str, module: Any, path: str) -> Any:
    """``Tokenizer`` from a tokenizer.json (tokie: also its own ``.tkz`` form)."""
    if lib == "tokie":
        return module.Tokenizer.from_file(path) if path.endswith(".tkz") else module.Tokenizer.from_json(path)
    return module.Tokenizer.from_file(path)


def encode_ids(tokenizer: Any, text: str) -> list[int]:
    """The call every library is timed on: HF's ``encode`` without special tokens, ids taken out."""
    return tokenizer.encode(text, add_special_tokens=False).ids


def _read(path: str) -> str:
    with open(path, encoding="utf-8") as f:
        return f.read()


def digest(ids: list[int]) -> str:
    """A short fingerprint of an id list, so processes can compare ids without shipping them."""
    import hashlib
    from array import array

    return hashlib.sha256(array("I", ids).tobytes()).hexdigest()[:16]


def _start(lib: str, model_path: str) -> tuple[Any, dict[str, float]]:
    """Import the library and load the file, timing both (wall and CPU seconds)."""
    wall, cpu = time.perf_counter(), time.process_time()
    module = import_library(lib)
    wall2, cpu2 = time.perf_counter(), time.process_time()
    tokenizer = load_tokenizer(lib, module, model_path)
    wall3, cpu3 = time.perf_counter(), time.process_time()
    return tokenizer, {"import_s": wall2 - wall, "load_s": wall3 - wall2, "load_cpu_s": cpu3 - cpu2,
                       "import_cpu_s": cpu2 - cpu}


def child_load(lib: str, model_path: str) -> dict[str, Any]:
    """Import and load only; an error (an unsupported file) is reported, not raised."""
    try:
        _, times = _start(lib, model_path)
    except Exception as exc:  # reported in the table: some libraries reject some files
        return {"error": f"{type(exc).__name__}: {str(exc)[:160]}"}
    return times


def child_first(lib: str, model_path: str, text_file: str) -> dict[str, Any]:
    """Import, load, then one timed encode of the file: empty caches, as a new process meets new text."""
    tokenizer, result = _start(lib, model_path)
    text = _read(text_file)
    wall, cpu = time.perf_counter(), time.process_time()
    ids = encode_ids(tokenizer, text)
    result["encode_s"] = time.perf_counter() - wall
    result["encode_cpu_s"] = time.process_time() - cpu
    result["n_tokens"] = len(ids)
    result["digest"] = digest(ids)
    return result


def read_fields(encoding: Any) -> int:
    """Reads every field of an HF-style ``Encoding`` (bytepair builds the fields beside the ids when
    first read, HF in ``encode``). The in-process sections read them with this too (``bench.common``)."""
    return (len(encoding.tokens) + len(encoding.offsets) + len(encoding.word_ids) + len(encoding.attention_mask)
            + len(encoding.special_tokens_mask) + len(encoding.type_ids))


def child_fields(lib: str, model_path: str, text_file: str) -> dict[str, Any]:
    """``child_first`` with every field read in the timed part (HF ``tokenizers`` and bytepair)."""
    tokenizer, result = _start(lib, model_path)
    text = _read(text_file)
    wall, cpu = time.perf_counter(), time.process_time()
    encoding = tokenizer.encode(text, add_special_tokens=False)
    read_fields(encoding)
    result["encode_s"] = time.perf_counter() - wall
    result["encode_cpu_s"] = time.process_time() - cpu
    result["n_tokens"] = len(encoding.ids)
    result["digest"] = digest(encoding.ids)
    result["offsets_digest"] = digest([at for span in encoding.offsets for at in span])
    return result


def child_stream(lib: str, model_path: str, rounds: str, *text_files: str) -> dict[str, Any]:
    """Import, load, then encode the files in turn, ``rounds`` times over, each call timed."""
    tokenizer, result = _start(lib, model_path)
    texts = [_read(path) for path in text_files]
    times: list[list[float]] = []
    cpu_times: list[list[float]] = []
    digests: list[list[str]] = []
    for _ in range(int(rounds)):
        round_times, round_cpu, round_digests = [], [], []
        for text in texts:
            wall, cpu = time.perf_counter(), time.process_time()
            ids = encode_ids(tokenizer, text)
            round_times.append(time.perf_counter() - wall)
            round_cpu.append(time.process_time() - cpu)
            round_digests.append(digest(ids))  # outside the timed call
        times.append(round_times)
        cpu_times.append(round_cpu)
        digests.append(round_digests)
    result.update(times_s=times, times_cpu_s=cpu_times, digests=digests)
    return result


def child_warm_bytecode() -> dict[str, Any]:
    """Import everything once so that the private bytecode cache holds it; say where bytepair came from."""
    import bytepair
    import tokenizers  # noqa: F401

    try:
        import tokie  # noqa: F401
    except ImportError:
        pass
    digest([1])
    return {"bytepair_file": bytepair.__file__}


CHILD_TASKS = {"load": child_load, "first": child_first, "fields": child_fields, "stream": child_stream, "warm-bytecode": child_warm_bytecode}


if __name__ == "__main__":
    task, *task_args = sys.argv[1:]
    _result = CHILD_TASKS[task](*task_args)
    import json

    print(json.dumps(_result))

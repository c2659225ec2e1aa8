"""Encoding registry: build bundled encodings on first use, look them up by name or model name.

Why lazy: loading o200k's ranks costs ~0.1 s natively (more in a browser), so nothing is loaded
until asked for, and encodings that share rank data (r50k/gpt2, o200k/o200k_harmony) share it.
"""

from __future__ import annotations

import copyreg
import os
from collections.abc import Callable
from functools import cache
from importlib import resources

from .encoding import Encoding
from .errors import EncodingRegistrationError, UnknownEncodingError, UnknownModelError, VocabFormatError
from .formats.packed_ranks import PackedRanks, read_packed_ranks
from .models.bpe.char_merge import unpack_fragments
from .data.openai import ENCODING_SPECS

__all__ = [
    "ENCODINGS",
    "MODEL_PREFIX_TO_ENCODING",
    "MODEL_TO_ENCODING",
    "encoding_for_model",
    "encoding_name_for_model",
    "get_encoding",
    "list_encoding_names",
    "register_encoding",
]

# Model name -> encoding name, as tiktoken 0.14 maps them (exact names first, then prefixes).
MODEL_PREFIX_TO_ENCODING: dict[str, str] = {
    "o1-": "o200k_base",
    "o3-": "o200k_base",
    "o4-mini-": "o200k_base",
    "gpt-5": "o200k_base",
    "gpt-4.5-": "o200k_base",
    "gpt-4.1-": "o200k_base",
    "chatgpt-4o-": "o200k_base",
    "gpt-4o-": "o200k_base",
    "gpt-4-": "cl100k_base",
    "gpt-3.5-turbo-": "cl100k_base",
    "gpt-35-turbo-": "cl100k_base",
    "gpt-oss-": "o200k_harmony",
    "ft:gpt-4o": "o200k_base",
    "ft:gpt-4": "cl100k_base",
    "ft:gpt-3.5-turbo": "cl100k_base",
    "ft:davinci-002": "cl100k_base",
    "ft:babbage-002": "cl100k_base",
}

MODEL_TO_ENCODING: dict[str, str] = {
    "o1": "o200k_base",
    "o3": "o200k_base",
    "o4-mini": "o200k_base",
    "gpt-5": "o200k_base",
    "gpt-4.1": "o200k_base",
    "gpt-4o": "o200k_base",
    "gpt-4": "cl100k_base",
    "gpt-3.5-turbo": "cl100k_base",
    "gpt-3.5": "cl100k_base",
    "gpt-35-turbo": "cl100k_base",
    "davinci-002": "cl100k_base",
    "babbage-002": "cl100k_base",
    "text-embedding-ada-002": "cl100k_base",
    "text-embedding-3-small": "cl100k_base",
    "text-embedding-3-large": "cl100k_base",
    "text-davinci-003": "p50k_base",
    "text-davinci-002": "p50k_base",
    "text-davinci-001": "r50k_base",
    "text-curie-001": "r50k_base",
    "text-babbage-001": "r50k_base",
    "text-ada-001": "r50k_base",
    "davinci": "r50k_base",
    "curie": "r50k_base",
    "babbage": "r50k_base",
    "ada": "r50k_base",
    "code-davinci-002": "p50k_base",
    "code-davinci-001": "p50k_base",
    "code-cushman-002": "p50k_base",
    "code-cushman-001": "p50k_base",
    "davinci-codex": "p50k_base",
    "cushman-codex": "p50k_base",
    "text-davinci-edit-001": "p50k_edit",
    "code-davinci-edit-001": "p50k_edit",
    "text-similarity-davinci-001": "r50k_base",
    "text-similarity-curie-001": "r50k_base",
    "text-similarity-babbage-001": "r50k_base",
    "text-similarity-ada-001": "r50k_base",
    "text-search-davinci-doc-001": "r50k_base",
    "text-search-curie-doc-001": "r50k_base",
    "text-search-babbage-doc-001": "r50k_base",
    "text-search-ada-doc-001": "r50k_base",
    "code-search-babbage-code-001": "r50k_base",
    "code-search-ada-code-001": "r50k_base",
    "gpt2": "gpt2",
    "gpt-2": "gpt2",
}


_ENCODINGS: dict[str, Encoding] = {}
ENCODINGS = _ENCODINGS
"""Encodings built so far, by name (tiktoken.registry's name for the same cache)."""
_CONSTRUCTORS: dict[str, Callable[[], Encoding]] = {}

DATA_DIR_ENV = "BYTEPAIR_DATA_DIR"
"""If set, packed rank files are read from this directory instead of the installed package."""

_data_dir: tuple[str, bool] | None = None  # (directory, verified), set by use_data_dir()


def use_data_dir(directory: str | None, *, verified: bool = False) -> None:
    """Read packed rank files from ``directory`` instead of the installed package (``None``: undo).

    Affects encodings not built yet. ``verified=True`` states that every file there was already
    checked against a trusted sha256 (the browser runtime checks each against its manifest before
    writing it), so the payload hash is not computed again: under Pyodide that hash alone is a
    fifth of the time o200k's ranks take to load.
    """
    global _data_dir
    _data_dir = None if directory is None else (directory, verified)


def list_encoding_names() -> list[str]:
    """Names of every encoding that ``get_encoding`` accepts."""
    return [*ENCODING_SPECS, *(n for n in _CONSTRUCTORS if n not in ENCODING_SPECS)]


@cache
def _packed(ranks_file: str) -> tuple[PackedRanks, dict[bytes, int]]:
    directory, verified = _data_dir or (os.environ.get(DATA_DIR_ENV), False)
    if directory:
        path = os.path.join(directory, f"{ranks_file}.bpr")
        try:
            with open(path, "rb") as f:
                data = f.read()
        except FileNotFoundError:  # npx bytepair without the optional package that has it
            raise VocabFormatError(f"{path} is missing: under npx bytepair, p50k_base and r50k_base come with the optional "
                                   "package bytepair-tokenizers (npm install bytepair-tokenizers)") from None
    else:
        path = f"bytepair/data/{ranks_file}.bpr"
        try:
            data = resources.files("bytepair").joinpath("data", f"{ranks_file}.bpr").read_bytes()
        except FileNotFoundError:  # a vendored copy that kept the .py files only
            raise VocabFormatError(
                f"{path} is missing: bytepair was copied without its rank data; reinstall it, or keep bytepair/data/*.bpr "
                'where it is vendored (Cloudflare Python Workers: rules = [{ type = "Data", globs = ["**/*.bpr"], fallthrough = true }])'
            ) from None
    packed = read_packed_ranks(data, origin=path, check_hash=not verified)
    return packed, packed.ranks()


def _build(name: str) -> Encoding:
    if name in _CONSTRUCTORS:
        return _CONSTRUCTORS[name]()
    spec = ENCODING_SPECS[name]
    packed, ranks = _packed(spec.ranks_file)
    return Encoding(
        spec.name,
        pat_str=spec.pattern,
        mergeable_ranks=ranks,
        special_tokens=spec.special_tokens,
        explicit_n_vocab=spec.explicit_n_vocab,
        _token_bytes=packed.tokens,
        _cuttable=True,
        _char_fragments=lambda: None if packed.char_fragments is None else unpack_fragments(packed.char_fragments),
        _merge_splits=packed.splits,
    )


def get_encoding(encoding_name: str) -> Encoding:
    """The encoding called ``encoding_name`` (built once, then shared).

    >>> get_encoding("o200k_base").name
    'o200k_base'
    """
    enc = _ENCODINGS.get(encoding_name)
    if enc is not None:
        return enc
    if not isinstance(encoding_name, str) or encoding_name not in list_encoding_names():
        raise UnknownEncodingError(
            f"unknown encoding {encoding_name!r}; known encodings: {', '.join(list_encoding_names())}. "
            "To use a model name, call encoding_for_model()."
        )
    enc = _ENCODINGS[encoding_name] = _build(encoding_name)
    return enc


def _model_lookup(model_name: str) -> str | None:
    """The encoding name for ``model_name`` (exact match, else the first matching prefix), or None."""
    if model_name in MODEL_TO_ENCODING:
        return MODEL_TO_ENCODING[model_name]
    for prefix, encoding_name in MODEL_PREFIX_TO_ENCODING.items():
        if model_name.startswith(prefix):
            return encoding_name
    return None


def encoding_name_for_model(model_name: str) -> str:
    """The encoding name used by ``model_name`` (exact name, else prefix such as ``gpt-4o-``)."""
    name = _model_lookup(model_name) if isinstance(model_name, str) else None
    if name is None:
        raise UnknownModelError(
            f"cannot map model {model_name!r} to an encoding. Known models include gpt-4o, gpt-4, "
            f"gpt-3.5-turbo, o1, gpt-oss-120b; or call get_encoding() with one of: {', '.join(list_encoding_names())}"
        )
    return name


def encoding_for_model(model_name: str) -> Encoding:
    """The encoding used by ``model_name``.

    >>> encoding_for_model("gpt-4o-mini").name
    'o200k_base'
    """
    return get_encoding(encoding_name_for_model(model_name))


def register_encoding(name: str, constructor: Callable[[], Encoding], *, replace: bool = False) -> None:
    """Make ``get_encoding(name)`` build an encoding with ``constructor`` (called once, on first use)."""
    if not isinstance(name, str) or not name.strip():
        raise EncodingRegistrationError(f"an encoding name must be a non-empty str, not {name!r}")
    if not callable(constructor):
        raise EncodingRegistrationError(
            f"register_encoding({name!r}, ...) needs a function that returns an Encoding, not {type(constructor).__name__}"
        )
    if not replace and (name in ENCODING_SPECS or name in _CONSTRUCTORS):
        raise EncodingRegistrationError(f"encoding {name!r} is already registered; pass replace=True to override it")
    _CONSTRUCTORS[name] = constructor
    _ENCODINGS.pop(name, None)


def is_registered(enc: Encoding) -> bool:
    """Whether ``enc`` is the shared instance ``get_encoding(enc.name)`` returns (pickled by name)."""
    return _ENCODINGS.get(enc.name) is enc


def _pickle(enc: Encoding) -> tuple[object, ...]:
    """A shared encoding pickles as its name (unpickling asks ``get_encoding`` for it, as tiktoken
    does); any other by value (``Encoding.__reduce__``). Registered here, so ``encoding.py`` needs
    no knowledge of the registry.

    >>> import pickle
    >>> pickle.loads(pickle.dumps(get_encoding("r50k_base"))) is get_encoding("r50k_base")
    True
    """
    return (get_encoding, (enc.name,)) if is_registered(enc) else enc.__reduce__()


copyreg.pickle(Encoding, _pickle)

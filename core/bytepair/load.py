"""tiktoken's ``tiktoken.load`` under bytepair: read vocabulary files named by path or URL.

Why: code written for tiktoken builds custom encodings with ``load_tiktoken_bpe(url_or_path)`` and
``data_gym_to_mergeable_bpe_ranks(vocab_bpe, encoder_json)``. bytepair never goes to the network (it
runs in browsers and sandboxes), so a URL is served only from tiktoken's own cache directory
(``TIKTOKEN_CACHE_DIR``, else ``DATA_GYM_CACHE_DIR``, else ``<tmp>/data-gym-cache``, file named by
the sha1 of the URL), which a machine that ran tiktoken already holds; otherwise it raises
:class:`NetworkUnavailableError` saying what to download. Parsing is bytepair's strict readers
(``formats/``), so a corrupt file fails loudly. The cache is read, never written. minbpe's
``.model`` file loads here too, as a whole :class:`~bytepair.Encoding` (``load_minbpe``).

>>> import os, tempfile
>>> path = os.path.join(tempfile.mkdtemp(), "tiny.tiktoken")
>>> dump_tiktoken_bpe({b"a": 0, b"b": 1, b"ab": 2}, path)
>>> load_tiktoken_bpe(path)
{b'a': 0, b'b': 1, b'ab': 2}
"""

from __future__ import annotations

import base64
import hashlib
import os
import tempfile
from operator import itemgetter
from urllib.parse import unquote, urlsplit

from .encoding import Encoding
from .errors import BytepairError, VocabFormatError
from .formats.atomic import settle
from .formats.gpt2_files import parse_gpt2_files
from .formats.minbpe_model import minbpe_paths, parse_minbpe
from .formats.tiktoken_file import check_sha256, parse_tiktoken_bpe

__all__ = [
    "NetworkUnavailableError",
    "check_hash",
    "data_gym_to_mergeable_bpe_ranks",
    "dump_tiktoken_bpe",
    "load_minbpe",
    "load_tiktoken_bpe",
    "read_file",
    "read_file_cached",
]

PathOrUrl = str | os.PathLike[str]


class NetworkUnavailableError(BytepairError, OSError):
    """A remote URL was given: bytepair does not download (download the file and pass its path)."""


def _local_path(blobpath: PathOrUrl) -> str | None:
    """The local file a path or ``file://`` URL names; None for any other URL."""
    path = os.fspath(blobpath)
    if "://" not in path:
        return path
    if path.startswith("file://"):
        return unquote(urlsplit(path).path)
    return None


def _no_network(blobpath: str, cache_path: str | None = None) -> NetworkUnavailableError:
    hint = f", or save it as {cache_path} (tiktoken's cache layout)" if cache_path else ""
    return NetworkUnavailableError(
        f"cannot read {blobpath}: bytepair does not download files. Download it yourself and pass "
        f"its local path{hint}."
    )


def read_file(blobpath: PathOrUrl) -> bytes:
    """The bytes of a local path or ``file://`` URL; any other URL raises :class:`NetworkUnavailableError`."""
    path = _local_path(blobpath)
    if path is None:
        raise _no_network(os.fspath(blobpath))
    with open(path, "rb") as f:
        return f.read()


def check_hash(data: bytes, expected_hash: str) -> bool:
    """Whether ``data``'s sha256 (hex) is ``expected_hash``."""
    return hashlib.sha256(data).hexdigest() == expected_hash.lower()


def _cache_dir() -> str:
    for variable in ("TIKTOKEN_CACHE_DIR", "DATA_GYM_CACHE_DIR"):
        if variable in os.environ:
            return os.environ[variable]
    return os.path.join(tempfile.gettempdir(), "data-gym-cache")


def read_file_cached(blobpath: PathOrUrl, expected_hash: str | None = None) -> bytes:
    """``read_file``, preferring a copy in tiktoken's cache (if its hash matches ``expected_hash``).

    Raises :class:`~bytepair.VocabHashMismatchError` (a ``ValueError``) if the data read does not
    match ``expected_hash``.
    """
    name = os.fspath(blobpath)
    cache_dir = _cache_dir()
    cache_path = os.path.join(cache_dir, hashlib.sha1(name.encode()).hexdigest()) if cache_dir else None
    if cache_path and os.path.isfile(cache_path):
        with open(cache_path, "rb") as f:
            data = f.read()
        if expected_hash is None or check_hash(data, expected_hash):
            return data
    if _local_path(name) is None:
        raise _no_network(name, cache_path)
    data = read_file(name)
    check_sha256(data, expected_hash, name)
    return data


def load_tiktoken_bpe(tiktoken_bpe_file: PathOrUrl, expected_hash: str | None = None) -> dict[bytes, int]:
    """Mergeable ranks from a ``.tiktoken`` file (``base64(token) rank`` per line), by path or cached URL."""
    data = read_file_cached(tiktoken_bpe_file, expected_hash)
    return parse_tiktoken_bpe(data, origin=os.fspath(tiktoken_bpe_file))


def data_gym_to_mergeable_bpe_ranks(
    vocab_bpe_file: PathOrUrl,
    encoder_json_file: PathOrUrl,
    vocab_bpe_hash: str | None = None,
    encoder_json_hash: str | None = None,
    clobber_one_byte_tokens: bool = False,
) -> dict[bytes, int]:
    """Mergeable ranks from GPT-2's ``vocab.bpe`` and ``encoder.json`` ("data gym" format).

    The two files must agree (ids of merged tokens follow the merge order), as tiktoken requires.
    ``clobber_one_byte_tokens`` (take single-byte ids from ``encoder.json``) is accepted; files that
    only agree after clobbering raise :class:`~bytepair.VocabFormatError`, since bytepair assumes
    the standard byte order.
    """
    merges = read_file_cached(vocab_bpe_file, vocab_bpe_hash)
    encoder = read_file_cached(encoder_json_file, encoder_json_hash)
    try:
        return parse_gpt2_files(encoder, merges)
    except VocabFormatError as exc:
        if not clobber_one_byte_tokens:
            raise
        raise VocabFormatError(
            f"{exc}. bytepair cannot clobber single-byte tokens: these files give single bytes other ids "
            "than GPT-2's byte order; convert them to a .tiktoken file with the ids you want instead"
        ) from None


def dump_tiktoken_bpe(bpe_ranks: dict[bytes, int], tiktoken_bpe_file: PathOrUrl) -> None:
    """Write ``bpe_ranks`` as a ``.tiktoken`` file (lines in rank order) to a local path."""
    path = _local_path(tiktoken_bpe_file)
    if path is None:
        raise _no_network(os.fspath(tiktoken_bpe_file))
    b64 = base64.b64encode
    lines = [b64(token) + b" %d\n" % rank for token, rank in sorted(bpe_ranks.items(), key=itemgetter(1))]
    with open(path, "wb") as f:
        f.write(b"".join(lines))


def load_minbpe(path: str | os.PathLike[str], *, name: str | None = None) -> Encoding:
    """A minbpe ``.model`` file as an :class:`~bytepair.Encoding` (named after the file unless
    ``name`` is given); its ids are minbpe's.

    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "toy.model")
    >>> with open(path, "wb") as f:
    ...     _ = f.write(b"minbpe v1\\n\\n0\\n104 105\\n")
    >>> enc = load_minbpe(path)
    >>> enc.name, enc.encode("hi hi"), enc.decode([256])
    ('toy', [256, 32, 256], 'hi')
    """
    model_path = minbpe_paths(path)[0]
    settle(model_path)
    try:
        with open(model_path, "rb") as f:
            data = f.read()
    except OSError as exc:
        raise VocabFormatError(f"cannot read {model_path!r}: {exc.strerror or exc}") from None
    pattern, ranks, special_tokens = parse_minbpe(data, origin=model_path)
    label = name if name is not None else os.path.basename(model_path)[: -len(".model")]
    return Encoding(label, pat_str=pattern, mergeable_ranks=ranks, special_tokens=special_tokens)

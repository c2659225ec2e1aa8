"""Where an ``Encoding`` goes besides ids: rank files (``.tiktoken``, minbpe), its manifest, a pickle.

Why a module of its own: ``encoding.py`` is tiktoken's API for text and ids; this is the files half,
as a base class ``Encoding`` inherits (the ``Tokenizer`` has the same split, ``tokenizer_files.py``).
The formats themselves are ``formats/``'s; reading them back is ``load.py``'s (``load_minbpe``) and
``formats``' (``load_tiktoken_bpe``).

>>> import pickle
>>> from bytepair import Encoding
>>> ranks = {bytes([i]): i for i in range(256)} | {b"hi": 256}
>>> enc = Encoding("toy", pat_str=r"\\S+|\\s+", mergeable_ranks=ranks, special_tokens={})
>>> pickle.loads(pickle.dumps(enc)).encode("hi hi")
[256, 32, 256]
"""

from __future__ import annotations

from os import PathLike
from typing import TYPE_CHECKING, Any

from .formats.atomic import write_file, write_files
from .formats.minbpe_model import dump_minbpe, minbpe_paths
from .formats.tiktoken_file import dump_tiktoken_bpe
from .pipeline.manifest import manifest
from .pipeline.view import TokenizerView

if TYPE_CHECKING:  # pragma: no cover
    from .encoding import Encoding

__all__ = ["EncodingFiles"]


class EncodingFiles:
    """Saving, manifest and pickling for :class:`~bytepair.Encoding` (see the module docstring)."""

    name: str
    _pat_str: str
    _mergeable_ranks: dict[bytes, int]
    _special_tokens: dict[str, int]

    def save_tiktoken(self, path: str | PathLike[str]) -> None:
        """The mergeable ranks as a ``.tiktoken`` file (``base64(token) rank`` lines), atomically;
        ``load_tiktoken_bpe`` (bytepair's or tiktoken's) reads it back. The pattern and the special
        tokens are not part of the format: pass them to the constructor again."""
        write_file(path, dump_tiktoken_bpe(self._mergeable_ranks))

    def save_minbpe(self, prefix: str | PathLike[str]) -> list[str]:
        """minbpe's ``prefix.model`` (read back by ``bytepair.load_minbpe`` and by minbpe) and the
        human-readable ``prefix.vocab``, atomically; returns both paths. Only for rank tables with
        byte ``b`` at id ``b`` and the merged tokens after it in order (minbpe's own layout): others
        raise :class:`~bytepair.errors.UnsavableError` saying why.

        >>> import os, tempfile
        >>> from bytepair import Encoding
        >>> ranks = {bytes([i]): i for i in range(256)} | {b"hi": 256}
        >>> enc = Encoding("toy", pat_str=r"\\S+|\\s+", mergeable_ranks=ranks, special_tokens={})
        >>> paths = enc.save_minbpe(os.path.join(tempfile.mkdtemp(), "toy"))
        >>> [os.path.basename(p) for p in paths]
        ['toy.model', 'toy.vocab']
        """
        model, vocab = dump_minbpe(self._pat_str, self._mergeable_ranks, self._special_tokens)
        model_path, vocab_path = minbpe_paths(prefix)
        return write_files({model_path: model, vocab_path: vocab})

    def manifest(self) -> dict[str, Any]:
        """What this encoding is, as JSON, with hashes of a canonical form of what decides its ids
        (see ``pipeline/manifest.py``; equal to ``Tokenizer.from_encoding(self).manifest()``'s).

        >>> from bytepair import get_encoding
        >>> m = get_encoding("cl100k_base").manifest()
        >>> m["kind"], m["vocab_size"], m["specials"]["<|endoftext|>"]
        ('encoding', 100261, 100257)
        """
        return manifest(TokenizerView.of(self))

    def __reduce__(self) -> tuple[object, ...]:
        # By value; the registry pickles the encodings it shares by name instead (``copyreg``).
        return _rebuild, (type(self), self.name, self._pat_str, self._mergeable_ranks, self._special_tokens)


def _rebuild(cls: type[Encoding], name: str, pat_str: str, ranks: dict[bytes, int], special: dict[str, int]) -> Encoding:
    return cls(name, pat_str=pat_str, mergeable_ranks=ranks, special_tokens=special)

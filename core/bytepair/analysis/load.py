"""Names and paths -> tokenizers, for every analysis function: ``"cl100k_base"``, a ``tokenizer.json``
file, a folder holding one, or a face (``Encoding`` / ``Tokenizer``) given as it is.

Why here: the view and the manifest (``pipeline/view.py``, ``pipeline/manifest.py``) work on faces
the caller already has, so the faces can offer ``manifest()`` themselves; resolving a name needs the
registry and the ``Tokenizer`` loader, which sit above them. The analysis, on top, takes any of
these specs.

>>> load("cl100k_base")
<Encoding 'cl100k_base'>
>>> load("no_such_thing")
Traceback (most recent call last):
...
bytepair.errors.UnknownEncodingError: 'no_such_thing' is neither an encoding name (see `bytepair list`) nor an existing tokenizer.json file or folder
>>> manifest("r50k_base")["vocab_size"], canonical_text("r50k_base").splitlines()[0]
(50257, 'bytepair-canonical 1')
"""

from __future__ import annotations

import os
from typing import Any

from ..encoding import Encoding
from ..errors import UnknownEncodingError
from ..pipeline import manifest as _manifest
from ..pipeline.view import TokenizerView
from ..registry import get_encoding, list_encoding_names
from ..tokenizer import Tokenizer

__all__ = ["Face", "Spec", "canonical_text", "load", "manifest", "view_of"]

Face = Encoding | Tokenizer
Spec = str | os.PathLike[str] | Face | TokenizerView
"""What every analysis function takes: a name, a path, a face or a view."""


def load(spec: str | os.PathLike[str] | Face) -> Face:
    """An ``Encoding`` or ``Tokenizer`` from an encoding name, a ``tokenizer.json`` path, a folder
    holding one, or the object itself."""
    if isinstance(spec, (Encoding, Tokenizer)):
        return spec
    text = os.fspath(spec)
    if isinstance(spec, str) and text in list_encoding_names():
        return get_encoding(text)
    if os.path.isdir(text):
        return Tokenizer.from_pretrained(text)
    if os.path.isfile(text):
        return Tokenizer.from_file(text)
    raise UnknownEncodingError(
        f"{text!r} is neither an encoding name (see `bytepair list`) nor an existing tokenizer.json file or folder"
    )


def view_of(spec: Spec) -> TokenizerView:
    """The view of a spec; a ``tokenizer.json`` given by its path is named by that path."""
    if isinstance(spec, TokenizerView):
        return spec
    view = TokenizerView.of(load(spec))
    if not isinstance(spec, (Encoding, Tokenizer)) and view.kind == "tokenizer.json":
        view.name = os.fspath(spec)  # the path the user gave names it best
    return view


def manifest(spec: Spec) -> dict[str, Any]:
    """The manifest of a tokenizer (see ``pipeline/manifest.py`` for its keys and the canonical form)."""
    return _manifest.manifest(view_of(spec))


def canonical_text(spec: Spec) -> str:
    """The whole canonical form of a tokenizer (name, path, face or view)."""
    return _manifest.canonical_text(view_of(spec))

"""tiktoken's ``tiktoken.model`` under bytepair: model names -> encodings.

Why a second module name: code written for tiktoken imports ``tiktoken.model.MODEL_TO_ENCODING``
and friends; with this module, ``bytepair.model`` answers to the same names. The tables themselves
live in ``registry.py`` (one source of truth); the lookups raise :class:`~bytepair.UnknownModelError`,
a ``KeyError`` as in tiktoken.

>>> from bytepair.model import MODEL_TO_ENCODING, encoding_name_for_model
>>> MODEL_TO_ENCODING["gpt-4o"], encoding_name_for_model("gpt-4o-2024-05-13")
('o200k_base', 'o200k_base')
"""

from __future__ import annotations

from .registry import MODEL_PREFIX_TO_ENCODING, MODEL_TO_ENCODING, encoding_for_model, encoding_name_for_model

__all__ = ["MODEL_PREFIX_TO_ENCODING", "MODEL_TO_ENCODING", "encoding_for_model", "encoding_name_for_model"]

"""Normalizers of ``tokenizer.json`` files: how text is rewritten before it is split (NFC, Replace ...).

Every normalizer returns the new text and, for offsets, where each of its characters came from
(``base.py``; ``edits.py`` keeps a per-character normalizer's as the few characters it changed); the
components are in ``unicode.py`` (NFC, NFD, NFKC, NFKD) and ``text.py`` (Strip, Replace, Prepend,
Lowercase, StripAccents, Nmt), under HF's names. Built by :func:`normalizer_from_json`,
the one factory of this stage.

>>> norm = normalizer_from_json({"type": "Sequence", "normalizers": [{"type": "Prepend", "prepend": "▁"},
...     {"type": "Replace", "pattern": {"String": " "}, "content": "▁"}]})
>>> norm.normalize("a b")
'▁a▁b'
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..errors import InvalidArgumentError
from ..formats.component_json import build
from ..formats.component_json import pattern as pattern_of
from .base import Normalizer, Sequence
from .bert import BertNormalizer
from .byte_level import ByteLevel
from .precompiled import Precompiled
from .text import Lowercase, Nmt, Prepend, Replace, Strip, StripAccents
from .unicode import NFC, NFD, NFKC, NFKD, UnicodeNormalizer

__all__ = ["BertNormalizer", "ByteLevel", "NFC", "NFD", "NFKC", "NFKD", "Lowercase", "Nmt", "Normalizer", "Precompiled", "Prepend", "Replace", "Sequence", "Strip",
           "StripAccents", "UnicodeNormalizer", "normalizer_from_json", "NORMALIZERS", "unicode_normalizer_from_str"]


def _replace(obj: dict[str, Any], where: str) -> Normalizer:
    pattern, is_regex = pattern_of(obj.get("pattern"), where + ".pattern")
    return Replace(pattern, str(obj.get("content", "")), is_regex=is_regex)


_FACTORIES: dict[str, Callable[[dict[str, Any], str], Normalizer]] = {
    "NFC": lambda o, w: NFC(),
    "NFD": lambda o, w: NFD(),
    "NFKC": lambda o, w: NFKC(),
    "NFKD": lambda o, w: NFKD(),
    "Lowercase": lambda o, w: Lowercase(),
    "StripAccents": lambda o, w: StripAccents(),
    "Nmt": lambda o, w: Nmt(),
    "Strip": lambda o, w: Strip(bool(o.get("strip_left", True)), bool(o.get("strip_right", True))),
    "Replace": _replace,
    "Prepend": lambda o, w: Prepend(str(o.get("prepend", ""))),
    "ByteLevel": lambda o, w: ByteLevel(),
    "BertNormalizer": lambda o, w: BertNormalizer(o.get("clean_text", True), o.get("handle_chinese_chars", True),
                                                  o.get("strip_accents"), o.get("lowercase", True)),
    "Sequence": lambda o, w: Sequence(
        [n for i, step in enumerate(o.get("normalizers", [])) if (n := normalizer_from_json(step, f"{w}.normalizers[{i}]"))]
    ),
    "Precompiled": lambda o, w: Precompiled(o.get("precompiled_charsmap") or ""),
}


NORMALIZERS: dict[str, type[Normalizer]] = {"nfc": NFC, "nfd": NFD, "nfkc": NFKC, "nfkd": NFKD}
"""HF's table of the Unicode normalization forms by name."""


def unicode_normalizer_from_str(normalizer: str) -> Normalizer:
    """The Unicode normalizer named ``normalizer`` ("nfc", "nfd", "nfkc" or "nfkd"), as HF's.

    >>> unicode_normalizer_from_str("nfkc").normalize("ﬁ")
    'fi'
    """
    if normalizer not in NORMALIZERS:
        raise InvalidArgumentError(f"{normalizer!r} is not a known unicode normalizer; the known ones are {', '.join(NORMALIZERS)}")
    return NORMALIZERS[normalizer]()


def normalizer_from_json(obj: dict[str, Any] | None, where: str = "normalizer") -> Normalizer | None:
    """The normalizer a ``tokenizer.json`` describes (None for ``null`` or an empty Sequence)."""
    made = build(obj, where, "normalizer", _FACTORIES)
    if isinstance(made, Sequence) and not made.steps:
        return None
    return made

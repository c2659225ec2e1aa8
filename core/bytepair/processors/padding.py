"""Padding after the post-processor, as Hugging Face ``tokenizers`` pads: to a fixed length or to the
batch's longest, rounded up to a multiple, on the right or the left.

Why a module of its own: the settings come from two places (``Tokenizer.enable_padding`` and a
``tokenizer.json``'s ``padding``) and are checked once, here; each result pads itself
(``Encoded.pad``), this module decides the length.

>>> settings = padding_settings("left", 0, 0, "[PAD]", None, 8)
>>> padding_json(settings)["strategy"], padded_length(settings, [3, 5])
('BatchLongest', 8)
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..errors import InvalidInputError
from ..text.checks import require_count

__all__ = ["padded_length", "padding_from_json", "padding_json", "padding_settings"]


def padding_settings(direction: str, pad_id: int, pad_type_id: int, pad_token: str, length: int | None,
                     pad_to_multiple_of: int | None) -> dict[str, Any]:
    """Checked settings (``Tokenizer.enable_padding``'s arguments)."""
    if direction not in ("right", "left"):
        raise InvalidInputError(f"padding direction must be 'right' or 'left', not {direction!r}")
    for option, value in (("pad_id", pad_id), ("pad_type_id", pad_type_id), ("length", length),
                          ("pad_to_multiple_of", pad_to_multiple_of)):
        if value is not None or option in ("pad_id", "pad_type_id"):
            require_count(value, option)
    if not isinstance(pad_token, str):
        raise InvalidInputError(f"pad_token must be a str, not {type(pad_token).__name__}")
    return {"direction": direction, "pad_id": pad_id, "pad_type_id": pad_type_id, "pad_token": pad_token,
            "length": length, "pad_to_multiple_of": pad_to_multiple_of}


def padding_json(settings: dict[str, Any] | None) -> dict[str, Any] | None:
    """The settings as a ``tokenizer.json``'s ``padding`` object."""
    if settings is None:
        return None
    strategy: Any = {"Fixed": settings["length"]} if settings["length"] is not None else "BatchLongest"
    return {"strategy": strategy, "direction": settings["direction"].capitalize(),
            "pad_to_multiple_of": settings["pad_to_multiple_of"], "pad_id": settings["pad_id"],
            "pad_type_id": settings["pad_type_id"], "pad_token": settings["pad_token"]}


def padding_from_json(obj: dict[str, Any]) -> tuple[str, int, int, str, int | None, int | None]:
    """``enable_padding``'s arguments from a ``tokenizer.json``'s ``padding`` object."""
    strategy = obj.get("strategy", "BatchLongest")
    length = strategy.get("Fixed") if isinstance(strategy, dict) else None
    return (str(obj.get("direction", "Right")).lower(), int(obj.get("pad_id", 0)), int(obj.get("pad_type_id", 0)),
            str(obj.get("pad_token", "[PAD]")), length, obj.get("pad_to_multiple_of"))


def padded_length(settings: dict[str, Any], lengths: Iterable[int]) -> int:
    """The length a batch of encodings this long is padded to."""
    length = settings["length"] if settings["length"] is not None else max(lengths, default=0)
    multiple = settings["pad_to_multiple_of"]
    if multiple and length % multiple:
        length += multiple - length % multiple
    return int(length)

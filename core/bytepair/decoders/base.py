"""What every decoder offers: ``decode_chain(tokens) -> tokens``, and a chain of them (``Sequence``).

As in HF, each decoder turns a list of token strings into a new list, so a :class:`Sequence` can run
Replace, ByteFallback, Fuse and Strip in turn; ``decode`` joins the last list.

>>> from bytepair.decoders import Fuse, Replace
>>> Sequence([Replace("▁", " "), Fuse()]).decode(["▁Hello", "▁world"])
' Hello world'
"""

from __future__ import annotations

from typing import Any

__all__ = ["Decoder", "Sequence"]


class Decoder:
    """Base: ``decode_chain(tokens) -> tokens``; ``decode`` joins the result."""

    def decode_chain(self, tokens: list[str]) -> list[str]:
        raise NotImplementedError

    def decode(self, tokens: list[str]) -> str:
        return "".join(self.decode_chain(tokens))

    def to_json(self) -> dict[str, Any]:
        raise NotImplementedError


class Sequence(Decoder):
    """Each decoder's chain in turn."""

    def __init__(self, decoders: list[Decoder]) -> None:
        self.steps = list(decoders)

    def decode_chain(self, tokens: list[str]) -> list[str]:
        for step in self.steps:
            tokens = step.decode_chain(tokens)
        return tokens

    def to_json(self) -> dict[str, Any]:
        return {"type": "Sequence", "decoders": [step.to_json() for step in self.steps]}

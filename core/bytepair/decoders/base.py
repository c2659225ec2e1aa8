"""What every decoder offers: ``decode_chain(tokens) -> tokens``, and a chain of them (``Sequence``).

As in HF, each decoder turns a list of token strings into a new list, so a :class:`Sequence` can run
Replace, ByteFallback, Fuse and Strip in turn; ``decode`` joins the last list.

>>> from bytepair.decoders import Fuse, Replace
>>> Sequence([Replace("▁", " "), Fuse()]).decode(["▁Hello", "▁world"])
' Hello world'
"""

from __future__ import annotations

from typing import Any

from ..errors import InvalidInputError, UnsavableError, stage_without_json

__all__ = ["CustomDecoder", "Decoder", "Sequence"]


class Decoder:
    """Base: ``decode_chain(tokens) -> tokens``; ``decode`` joins the result."""

    savable = True
    """Whether ``to_json`` can write it (a :meth:`custom` decoder cannot)."""

    @staticmethod
    def custom(decoder: Any) -> Decoder:
        """HF's ``Decoder.custom``: your own decoder, any object with ``decode_chain(tokens) -> tokens``
        (a list of str in, a list of str out). It decodes, also inside a :class:`Sequence`, but cannot
        be saved in a ``tokenizer.json`` (as in HF: saving raises ``UnsavableError``).

        >>> class Upper:
        ...     def decode_chain(self, tokens):
        ...         return [t.upper() for t in tokens]
        >>> Decoder.custom(Upper()).decode(["a", "b"])
        'AB'
        """
        return CustomDecoder(decoder)

    def decode_chain(self, tokens: list[str]) -> list[str]:
        raise NotImplementedError

    def decode(self, tokens: list[str]) -> str:
        return "".join(self.decode_chain(tokens))

    def to_json(self) -> dict[str, Any]:
        raise stage_without_json("decoder", self)


class Sequence(Decoder):
    """Each decoder's chain in turn."""

    def __init__(self, decoders: list[Decoder]) -> None:
        self.steps = list(decoders)

    @property  # type: ignore[override]
    def savable(self) -> bool:
        return all(step.savable for step in self.steps)

    def decode_chain(self, tokens: list[str]) -> list[str]:
        for step in self.steps:
            tokens = step.decode_chain(tokens)
        return tokens

    def to_json(self) -> dict[str, Any]:
        return {"type": "Sequence", "decoders": [step.to_json() for step in self.steps]}


class CustomDecoder(Decoder):
    """A decoder of the user's own (:meth:`Decoder.custom`)."""

    savable = False

    def __init__(self, decoder: Any) -> None:
        self.decoder = decoder

    def decode_chain(self, tokens: list[str]) -> list[str]:
        chain = getattr(self.decoder, "decode_chain", None)
        if not callable(chain):
            raise InvalidInputError(f"a custom decoder needs a decode_chain(tokens) method; {type(self.decoder).__name__} has none")
        out = chain(list(tokens))
        if isinstance(out, str) or not isinstance(out, (list, tuple)) or not all(isinstance(t, str) for t in out):
            raise InvalidInputError(f"{type(self.decoder).__name__}.decode_chain must return a list of str, not {out!r:.80}")
        return list(out)

    def to_json(self) -> dict[str, Any]:
        raise UnsavableError("a custom decoder (Decoder.custom) cannot be written to a tokenizer.json, as in HF; "
                             "set a decoder of bytepair.decoders before saving or pickling")

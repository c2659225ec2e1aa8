"""Decoders of ``tokenizer.json`` files: how token strings become text again (ByteLevel, Metaspace ...).

Why a chain: as in HF, each decoder turns a list of token strings into a new list
(``decode_chain``), so a :class:`Sequence` can run Replace, ByteFallback, Fuse and Strip in turn;
``decode`` joins the last list. Built by :func:`decoder_from_json`, the one factory of this stage.

>>> decoder_from_json({"type": "ByteLevel"}).decode(["Hello", "Ġw", "Ã¶", "rld"])
'Hello wörld'
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..text.byte_unicode import UNICODE_TO_BYTE
from ..formats.component_json import build
from ..errors import UnsupportedTokenizerError

__all__ = ["Decoder", "decoder_from_json"]


class Decoder:
    """Base: ``decode_chain(tokens) -> tokens``; ``decode`` joins the result."""

    def decode_chain(self, tokens: list[str]) -> list[str]:
        raise NotImplementedError

    def decode(self, tokens: list[str]) -> str:
        return "".join(self.decode_chain(tokens))

    def to_json(self) -> dict[str, Any]:
        raise NotImplementedError


class ByteLevel(Decoder):
    """GPT-2's visible characters back to bytes, then UTF-8 (bad bytes become U+FFFD). A token with
    a character outside the byte map (an added token such as DeepSeek's) counts as its own UTF-8."""

    def decode_chain(self, tokens: list[str]) -> list[str]:
        data = bytearray()
        get = UNICODE_TO_BYTE.get
        for token in tokens:
            mapped = bytes(b for b in map(get, token) if b is not None)
            data += mapped if len(mapped) == len(token) else token.encode("utf-8", "surrogatepass")
        return [data.decode("utf-8", "replace")]

    def to_json(self) -> dict[str, Any]:
        return {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True}


class Metaspace(Decoder):
    """"▁" back to spaces; the first token loses the marker that was put in front (unless the
    prepend scheme is "never")."""

    def __init__(self, replacement: str = "\u2581", prepend_scheme: str = "always", split: bool = True) -> None:
        self.replacement, self.prepend_scheme, self.split = replacement, prepend_scheme, split

    def decode_chain(self, tokens: list[str]) -> list[str]:
        out = []
        for i, token in enumerate(tokens):
            text = token.replace(self.replacement, " ")
            if i == 0 and self.prepend_scheme != "never" and text.startswith(" "):
                text = text[1:]
            out.append(text)
        return out

    def to_json(self) -> dict[str, Any]:
        return {"type": "Metaspace", "replacement": self.replacement, "prepend_scheme": self.prepend_scheme, "split": self.split}


class ByteFallback(Decoder):
    """Runs of ``<0xNN>`` tokens back to the text their bytes spell (each byte of a run that is not
    valid UTF-8 becomes U+FFFD)."""

    def decode_chain(self, tokens: list[str]) -> list[str]:
        out: list[str] = []
        pending = bytearray()

        def flush() -> None:
            if pending:
                try:
                    out.append(pending.decode("utf-8"))
                except UnicodeDecodeError:
                    out.extend("\ufffd" * len(pending))
                pending.clear()

        for token in tokens:
            if len(token) == 6 and token.startswith("<0x") and token.endswith(">"):
                try:
                    pending.append(int(token[3:5], 16))
                    continue
                except ValueError:
                    pass
            flush()
            out.append(token)
        flush()
        return out

    def to_json(self) -> dict[str, Any]:
        return {"type": "ByteFallback"}


class Fuse(Decoder):
    """All tokens joined into one."""

    def decode_chain(self, tokens: list[str]) -> list[str]:
        return ["".join(tokens)]

    def to_json(self) -> dict[str, Any]:
        return {"type": "Fuse"}


class Strip(Decoder):
    """Up to ``start`` copies of ``content`` removed from the front of each token, ``stop`` from its end."""

    def __init__(self, content: str = " ", start: int = 0, stop: int = 0) -> None:
        self.content, self.start, self.stop = content, start, stop

    def decode_chain(self, tokens: list[str]) -> list[str]:
        out = []
        for token in tokens:
            chars = list(token)
            head = 0
            while head < self.start and head < len(chars) and chars[head] == self.content:
                head += 1
            tail = len(chars)
            while len(chars) - tail < self.stop and tail > head and chars[tail - 1] == self.content:
                tail -= 1
            out.append("".join(chars[head:tail]))
        return out

    def to_json(self) -> dict[str, Any]:
        return {"type": "Strip", "content": self.content, "start": self.start, "stop": self.stop}


class Replace(Decoder):
    """``pattern`` replaced by ``content`` in each token."""

    def __init__(self, pattern: str, content: str) -> None:
        self.pattern, self.content = pattern, content

    def decode_chain(self, tokens: list[str]) -> list[str]:
        return [token.replace(self.pattern, self.content) for token in tokens]

    def to_json(self) -> dict[str, Any]:
        return {"type": "Replace", "pattern": {"String": self.pattern}, "content": self.content}


class BPEDecoder(Decoder):
    """Classic BPE's end-of-word ``suffix`` (``</w>``) becomes a space, except after the last token."""

    def __init__(self, suffix: str = "</w>") -> None:
        self.suffix = suffix

    def decode_chain(self, tokens: list[str]) -> list[str]:
        last = len(tokens) - 1
        return [token.replace(self.suffix, "" if i == last else " ") for i, token in enumerate(tokens)]

    def to_json(self) -> dict[str, Any]:
        return {"type": "BPEDecoder", "suffix": self.suffix}


class Sequence(Decoder):
    """Each decoder's chain in turn."""

    def __init__(self, steps: list[Decoder]) -> None:
        self.steps = steps

    def decode_chain(self, tokens: list[str]) -> list[str]:
        for step in self.steps:
            tokens = step.decode_chain(tokens)
        return tokens

    def to_json(self) -> dict[str, Any]:
        return {"type": "Sequence", "decoders": [step.to_json() for step in self.steps]}


def _replace(obj: dict[str, Any], where: str) -> Decoder:
    pattern = obj.get("pattern")
    if not (isinstance(pattern, dict) and isinstance(pattern.get("String"), str)):
        raise UnsupportedTokenizerError(f"{where}.pattern: only a {{\"String\": ...}} pattern is supported in a Replace decoder")
    return Replace(pattern["String"], str(obj.get("content", "")))


_FACTORIES: dict[str, Callable[[dict[str, Any], str], Decoder]] = {
    "ByteLevel": lambda o, w: ByteLevel(),
    "Metaspace": lambda o, w: Metaspace(
        o.get("replacement", "\u2581"),
        o.get("prepend_scheme", "always" if o.get("add_prefix_space", True) else "never"),
        o.get("split", True),
    ),
    "ByteFallback": lambda o, w: ByteFallback(),
    "Fuse": lambda o, w: Fuse(),
    "Strip": lambda o, w: Strip(str(o.get("content", " ")), int(o.get("start", 0)), int(o.get("stop", 0))),
    "Replace": _replace,
    "BPEDecoder": lambda o, w: BPEDecoder(str(o.get("suffix", "</w>"))),
    "Sequence": lambda o, w: Sequence(
        [d for i, step in enumerate(o.get("decoders", [])) if (d := decoder_from_json(step, f"{w}.decoders[{i}]"))]
    ),
}


def decoder_from_json(obj: dict[str, Any] | None, where: str = "decoder") -> Decoder | None:
    """The decoder a ``tokenizer.json`` describes (None for ``null``)."""
    return build(obj, where, "decoder", _FACTORIES)

"""SentencePiece's own normalization (``normalizer.cc``), as ``SentencePieceProcessor`` applies it.

Why apart from HF's ``Precompiled``: sentencepiece walks the UTF-8 bytes and takes the *longest*
rule of the compiled map at each position (HF looks graphemes up and takes the shortest), keeps
user-defined symbols untouched, drops leading spaces and collapses runs of them
(``remove_extra_whitespaces``), puts one space in front (``add_dummy_prefix``) and writes spaces as
``▁`` (``escape_whitespaces``). A malformed byte becomes U+FFFD (a Python ``str`` only has those as
lone surrogates).

>>> from ..formats.sentencepiece_model import NormalizerSpec
>>> SentencePieceNormalizer(NormalizerSpec()).normalize("  Hello   world ")
'▁Hello▁world'
"""

from __future__ import annotations

import re

from ..formats.charsmap import CharsMap
from ..formats.sentencepiece_model import NormalizerSpec

__all__ = ["SPACE", "SentencePieceNormalizer"]

SPACE = "\u2581"
"""``▁``, how sentencepiece writes a space inside pieces."""


class SentencePieceNormalizer:
    """``normalize(text) -> str`` by a model's ``NormalizerSpec`` and user-defined symbols."""

    def __init__(self, spec: NormalizerSpec, user_defined: list[str] = (), *,  # type: ignore[assignment]
                 treat_whitespace_as_suffix: bool = False) -> None:
        self.spec = spec
        self.charsmap = CharsMap(spec.precompiled_charsmap) if spec.precompiled_charsmap else None
        self.user_defined = {s.encode("utf-8") for s in user_defined if s}
        self._longest_symbol = max(map(len, self.user_defined), default=0)
        self.treat_whitespace_as_suffix = treat_whitespace_as_suffix
        self._begins: dict[str, bool] = {}
        self._patterns: dict[str, re.Pattern[bytes]] = {}
        self._fixed: dict[int, tuple[bytes, int] | None] = {}

    def symbol_at(self, data: bytes, pos: int) -> int:
        """Length of the longest user-defined symbol at ``pos`` (0: none)."""
        for n in range(min(self._longest_symbol, len(data) - pos), 0, -1):
            if data[pos:pos + n] in self.user_defined:
                return n
        return 0

    def _special(self, text: str) -> re.Pattern[bytes]:
        """A pattern of the places in the UTF-8 of ``text`` that need ``_prefix``: a space, the
        beginning of a rule or of a user-defined symbol (the rest passes through unchanged). An ASCII
        character with no rule of its own that only begins longer rules (a letter before a combining
        accent) needs it only where one of those rules can follow."""
        memo = self._begins
        parts = []
        for ch in set(text):
            part = memo.get(ch)
            if part is None:
                part = memo[ch] = self._begins_here(ch)
            if part:
                parts.append(part)
        key = b"|".join(sorted(parts, key=lambda part: (-len(part), part)))
        pattern = self._patterns.get(key)
        if pattern is None:
            if len(self._patterns) > 256:
                self._patterns.clear()
            pattern = self._patterns[key] = re.compile(key if parts else b"(?!)")
        return pattern

    def _begins_here(self, ch: str) -> bytes:
        """The pattern piece for ``ch`` (``b""``: it always passes through unchanged)."""
        data = ch.encode("utf-8", "replace")
        if ch == " " or ch != data.decode("utf-8") or any(s.startswith(data) for s in self.user_defined):
            return re.escape(data)
        if self.charsmap is None or not self.charsmap.starts_key(data):
            return b""
        if len(data) == 1 and not self.charsmap.prefix_matches(data, 0):
            follow = bytes(b for b in range(1, 256) if self.charsmap.starts_key(data + bytes([b])))
            if follow:
                return re.escape(data) + b"(?=[" + b"".join(re.escape(bytes([b])) for b in follow) + b"])"
        return re.escape(data)

    def _prefix(self, data: bytes, pos: int) -> tuple[bytes, int]:
        """What the text at ``pos`` becomes, and how many bytes it consumes (``NormalizePrefix``)."""
        if self.user_defined:
            n = self.symbol_at(data, pos)
            if n:
                return data[pos:pos + n], n
        if self.charsmap is not None:
            matches = self.charsmap.prefix_matches(data, pos)
            if matches:
                length, value = matches[-1]  # the longest
                return self.charsmap.rewrite(value).encode("utf-8"), length
        lead = data[pos]
        n = 1 if lead < 0x80 else 2 if lead >> 5 == 6 else 3 if lead >> 4 == 14 else 4 if lead >> 3 == 30 else 0
        if n == 0 or pos + n > len(data):
            return "\ufffd".encode(), 1
        return data[pos:pos + n], n

    def _fixed_prefix(self, lead: int) -> tuple[bytes, int] | None:
        """``_prefix`` at an ASCII byte ``lead`` where it does not depend on what follows (no rule
        or user-defined symbol longer than it begins with it: a space, mostly), else None."""
        if lead >= 0x80:
            return None
        data = bytes([lead])
        if any(symbol.startswith(data) for symbol in self.user_defined):
            return None
        if self.charsmap is not None and any(self.charsmap.starts_key(data + bytes([b])) for b in range(256)):
            return None
        return self._prefix(data, 0)

    def normalize(self, text: str) -> str:
        data = text.encode("utf-8", "replace")
        spec = self.spec
        pos, end = 0, len(data)
        if spec.remove_extra_whitespaces:
            while pos < end:
                out, n = self._prefix(data, pos)
                if out != b" ":
                    break
                pos += n
        if pos >= end:
            return ""
        space = SPACE.encode() if spec.escape_whitespaces else b" "
        result = bytearray()
        if not self.treat_whitespace_as_suffix and spec.add_dummy_prefix:
            result += space
        is_prev_space = spec.remove_extra_whitespaces
        special = self._special(text)
        fixed = self._fixed
        while pos < end:
            # Characters no rule or symbol begins, and not spaces, come out as they are.
            found = special.search(data, pos)
            stop = found.start() if found is not None else end
            if stop > pos:
                result += data[pos:stop]
                is_prev_space = False
                pos = stop
                if pos >= end:
                    break
            lead = data[pos]
            known = fixed.get(lead, self)
            if known is self:
                known = fixed[lead] = self._fixed_prefix(lead)
            out, n = known if known is not None else self._prefix(data, pos)  # type: ignore[misc]
            if is_prev_space:
                out = out.lstrip(b" ")
            if out:
                result += out.replace(b" ", space) if spec.escape_whitespaces else out
                is_prev_space = out.endswith(b" ")
            pos += n
            if not spec.remove_extra_whitespaces:
                is_prev_space = False
        if spec.remove_extra_whitespaces:
            while result.endswith(space):
                del result[-len(space):]
        if self.treat_whitespace_as_suffix and spec.add_dummy_prefix:
            result += space
        return result.decode("utf-8", "replace")

"""minbpe's two-file format: a ``.model`` file that is the truth and a ``.vocab`` file for eyes only.

Why: minbpe (Karpathy's teaching BPE) is where many people train their first tokenizer; reading and
writing its files lets a bytepair vocabulary go there and come back with the same ids.

The ``.model`` file is text, one item a line::

    minbpe v1
    <split pattern>                       (empty for minbpe's BasicTokenizer: no split)
    <number of special tokens>
    <special token> <id>                  (that many lines)
    <left id> <right id>                  (one merge a line: the tokens 256, 257, ... in order)

Byte ``b`` is token ``b``; merge line *i* makes token ``256 + i`` from two earlier tokens. minbpe
encodes by merging the listed pair of lowest id first, which on such a table gives tiktoken's ids,
so the ``.model`` file loads as an :class:`~bytepair.Encoding` (ids = ranks; ``bytepair.load_minbpe``). The ``.vocab``
file shows each token as ``[left][right] -> [token] id`` (undecodable bytes as U+FFFD, control
characters escaped); it is never read back, because that rendering loses bytes.

>>> model, vocab = dump_minbpe("x+", {bytes([i]): i for i in range(256)} | {b"ab": 256}, {"<|end|>": 257})
>>> model.decode().splitlines()
['minbpe v1', 'x+', '1', '<|end|> 257', '97 98']
>>> vocab.decode().splitlines()[-2:]
['[a][b] -> [ab] 256', '[<|end|>] 257']
>>> parse_minbpe(model)[1][b"ab"], parse_minbpe(model)[2]
(256, {'<|end|>': 257})
"""

from __future__ import annotations

import os
import unicodedata

from ..errors import UnsavableError, VocabFormatError
from .rank_table import minbpe_merges

__all__ = ["BASIC_PATTERN", "MAGIC", "dump_minbpe", "minbpe_paths", "parse_minbpe"]

MAGIC = "minbpe v1"

BASIC_PATTERN = r"[\s\S]+"
"""The pattern an empty minbpe pattern stands for: the whole text is one piece."""


def dump_minbpe(pattern: str, ranks: dict[bytes, int], special_tokens: dict[str, int]) -> tuple[bytes, bytes]:
    """The ``.model`` and ``.vocab`` contents for a rank table (byte ``b`` = id ``b``, merges after);
    :class:`UnsavableError` when the table, the pattern or a special token cannot be written."""
    if pattern != pattern.strip() or "\n" in pattern or "\r" in pattern:
        raise UnsavableError("minbpe's .model keeps the pattern on one line, stripped; this pattern has a line break or "
                             "leading/trailing whitespace; save as tokenizer.json or .tiktoken instead")
    for text in special_tokens:
        if not text or text != "".join(text.split()):
            raise UnsavableError(f"special token {text!r} holds whitespace, which minbpe's 'token id' lines cannot hold")
    pairs = minbpe_merges(ranks)
    lines = [MAGIC, pattern, str(len(special_tokens))]
    lines += [f"{text} {token_id}" for text, token_id in special_tokens.items()]
    lines += [f"{left} {right}" for left, right in pairs]
    model = ("\n".join(lines) + "\n").encode("utf-8")

    tokens = {rank: token for token, rank in ranks.items()}
    shown = [f"[{_render(tokens[b])}] {b}" for b in range(256)]
    shown += [f"[{_render(tokens[left])}][{_render(tokens[right])}] -> [{_render(tokens[i])}] {i}"
              for i, (left, right) in enumerate(pairs, 256)]
    shown += [f"[{_render(text.encode('utf-8'))}] {token_id}" for text, token_id in special_tokens.items()]
    return model, ("\n".join(shown) + "\n").encode("utf-8")


def parse_minbpe(data: bytes, *, origin: str = "minbpe model") -> tuple[str, dict[bytes, int], dict[str, int]]:
    """``(pattern, ranks, special tokens)`` of a ``.model`` file's bytes; an empty pattern (minbpe's
    BasicTokenizer) becomes :data:`BASIC_PATTERN`."""
    try:
        lines = data.decode("utf-8").split("\n")
    except UnicodeDecodeError as exc:
        raise VocabFormatError(f"{origin}: not UTF-8 text (bad byte at offset {exc.start}); is it a minbpe .model file?") from None
    if not lines or lines[0].strip() != MAGIC:
        raise VocabFormatError(f"{origin}: the first line is not {MAGIC!r}; is it a minbpe .model file (not the .vocab)?")
    if len(lines) < 3:
        raise VocabFormatError(f"{origin}: the file ends before the special-token count; it is truncated")
    pattern = lines[1].strip() or BASIC_PATTERN
    try:
        n_special = int(lines[2])
        specials = [lines[3 + i].split() for i in range(n_special)]
        special_tokens = {text: int(token_id) for text, token_id in specials}
    except (ValueError, IndexError):
        raise VocabFormatError(f"{origin}: the special tokens (lines 3 on) are not a count and that many 'token id' lines") from None
    tokens = [bytes((b,)) for b in range(256)]
    ranks = {token: b for b, token in enumerate(tokens)}
    for lineno, line in enumerate(lines[3 + n_special :], 4 + n_special):
        if not line.strip():
            continue
        fields = line.split()
        if len(fields) != 2 or not all(f.isascii() and f.isdigit() and int(f) < len(tokens) for f in fields):
            raise VocabFormatError(f"{origin}, line {lineno}: {line[:80]!r} is not two ids of earlier tokens")
        token = tokens[int(fields[0])] + tokens[int(fields[1])]
        if token in ranks:
            raise VocabFormatError(f"{origin}, line {lineno}: makes {token!r} a second time (already token {ranks[token]}); "
                                   "a rank table holds each token once")
        ranks[token] = len(tokens)
        tokens.append(token)
    clash = sorted(i for i in special_tokens.values() if i < len(tokens))
    if clash:
        raise VocabFormatError(f"{origin}: special token id(s) {clash[:5]} are also merge ids")
    return pattern, ranks, special_tokens


def minbpe_paths(prefix: str | os.PathLike[str]) -> tuple[str, str]:
    """``prefix.model`` and ``prefix.vocab`` (a prefix already ending in ``.model`` is taken as the model path)."""
    base = os.fspath(prefix)
    base = base[: -len(".model")] if base.endswith(".model") else base
    return base + ".model", base + ".vocab"


def _render(token: bytes) -> str:
    """A token for the eyes: decoded with U+FFFD for broken UTF-8, control characters as ``\\uXXXX``."""
    text = token.decode("utf-8", errors="replace")
    return "".join(f"\\u{ord(ch):04x}" if unicodedata.category(ch).startswith("C") else ch for ch in text)

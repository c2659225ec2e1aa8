"""Between the two BPE rules: a rank table (tiktoken, minbpe) and a merge list (``tokenizer.json``).

Why: tiktoken ranks the *merged token* (rank = id); a ``tokenizer.json`` ranks the *pair*. Saving
to another format means converting, and a conversion is only worth writing if the ids stay the same:

* rank table -> merge list (:func:`merges_from_ranks`): every split of a token into two tokens is
  listed, ordered by the merged token's rank, so any two adjacent tokens that tiktoken would join
  the pair rule joins too, in the same order; with ``ignore_merges`` (a piece that is a token is
  that token) the rules then agree.
* merge list -> rank table (:func:`ranks_from_merges`): refused unless the merges are consistent
  with id order (merge *i* makes a token whose id is not below that of merge *i - 1*) and every token
  but the 256 bytes is made by some merge; otherwise the rank rule would merge differently and the
  error says which merge or token is at fault.
* rank table -> minbpe's pairs of ids (:func:`minbpe_merges`): minbpe stores exactly one pair per
  token, the two tokens that merging the token's bytes with lower ranks only ends in.

Patterns: a tiktoken pattern is written for Oniguruma (HF's regex engine) by :func:`onig_pattern`.

>>> ranks = {b"a": 0, b"b": 1, b"c": 2, b"ab": 3, b"abc": 4}
>>> merges_from_ranks(ranks)
[(b'a', b'b'), (b'ab', b'c')]
>>> minbpe_merges({bytes([i]): i for i in range(256)} | {b"ab": 256, b"abc": 257})
[(97, 98), (256, 99)]
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from ..text.byte_unicode import visible_to_bytes
from ..errors import UnsavableError

__all__ = ["check_reads_alike", "merge_below", "merges_from_ranks", "minbpe_merges", "onig_pattern", "ranks_from_merges"]

_FORMATS = "save it as tokenizer.json (Tokenizer.save) instead, which holds any BPE tokenizer"


def merges_from_ranks(ranks: Mapping[bytes, int]) -> list[tuple[bytes, bytes]]:
    """Every ``(left, right)`` whose concatenation is a token, both parts tokens, ordered by the
    merged token's rank, then by the parts' ranks."""
    get = ranks.get
    merges: list[tuple[int, int, int, bytes, bytes]] = []
    for token, rank in ranks.items():
        for cut in range(1, len(token)):
            left, right = token[:cut], token[cut:]
            lr, rr = get(left), get(right)
            if lr is not None and rr is not None:
                merges.append((rank, lr, rr, left, right))
    merges.sort()
    return [(left, right) for _, _, _, left, right in merges]


def ranks_from_merges(vocab: Mapping[str, int], merges: Sequence[Sequence[str]], *, what: str = "this tokenizer") -> dict[bytes, int]:
    """Token bytes -> id of a byte-level vocabulary (GPT-2's visible characters), when its merges
    are consistent with id order (see the module docstring); else :class:`UnsavableError`."""
    ranks: dict[bytes, int] = {}
    for token, token_id in vocab.items():
        try:
            data = visible_to_bytes(token)
        except KeyError:
            raise UnsavableError(
                f"{what}: token {token!r} (id {token_id}) is not written in GPT-2's byte alphabet, so it is "
                f"not a byte-level vocabulary; {_FORMATS}"
            ) from None
        if data in ranks:
            raise UnsavableError(f"{what}: tokens {token_id} and {ranks[data]} stand for the same bytes {data!r}; {_FORMATS}")
        ranks[data] = token_id
    missing = [b for b in range(256) if bytes((b,)) not in ranks]
    if missing:
        raise UnsavableError(f"{what}: {len(missing)} of the 256 single bytes have no token (first: byte {missing[0]}); {_FORMATS}")
    made: set[int] = set()
    last, last_index = -1, -1
    for index, (left, right) in enumerate(merges):
        merged = vocab.get(left + right)
        if merged is None:
            raise UnsavableError(f"{what}: merge {index} ({left!r} + {right!r}) makes no vocabulary token; {_FORMATS}")
        if merged < last:
            raise UnsavableError(
                f"{what}: merge {index} ({left!r} + {right!r}) makes id {merged}, but merge {last_index} made id {last}: "
                "the merge order differs from the id order, so ranking tokens by id (tiktoken's rule) would merge "
                f"differently; {_FORMATS}"
            )
        if merged != last:
            last, last_index = merged, index
        made.add(merged)
    unmade = sorted(i for data, i in ranks.items() if len(data) > 1 and i not in made)
    if unmade:
        raise UnsavableError(
            f"{what}: {len(unmade)} token(s) are made by no merge (first: id {unmade[0]}); tiktoken's rule would "
            f"merge into them, the merge list never does; {_FORMATS}"
        )
    return ranks


def minbpe_merges(ranks: Mapping[bytes, int]) -> list[tuple[int, int]]:
    """minbpe's merges: for ids 256, 257, ... in order, the pair of ids that makes each token.

    Needs the tiktoken-style table minbpe uses: byte ``b`` has id ``b``, the other tokens ids 256 and
    up without gaps, each reachable by merging its bytes with lower-ranked tokens only."""
    if any(ranks.get(bytes((b,))) != b for b in range(256)):
        raise UnsavableError(
            "minbpe's .model format needs byte b to be token b (0..255); this vocabulary orders the bytes "
            "otherwise (as GPT-2 and tiktoken's encodings do), so its ids cannot be kept; save it as a "
            ".tiktoken file or tokenizer.json instead"
        )
    by_rank = sorted((rank, token) for token, rank in ranks.items() if len(token) > 1)
    pairs: list[tuple[int, int]] = []
    for expected, (rank, token) in enumerate(by_rank, 256):
        if rank != expected:
            raise UnsavableError(f"minbpe's .model format numbers merges 256, 257, ... without gaps; this vocabulary has no id {expected}")
        parts = merge_below(token, ranks, rank)
        if len(parts) != 2:
            raise UnsavableError(
                f"token {rank} ({token!r}) is not the merge of two lower-ranked tokens, which is all minbpe's "
                ".model format can say; save it as a .tiktoken file or tokenizer.json instead"
            )
        pairs.append((ranks[parts[0]], ranks[parts[1]]))
    return pairs


def merge_below(token: bytes, ranks: Mapping[bytes, int], limit: int) -> list[bytes]:
    """``token``'s bytes merged by tiktoken's rule with tokens of rank below ``limit`` only: the
    parts the token's own merge joins (minbpe's export, the analysis's derived merges).

    >>> merge_below(b"abb", {b"a": 0, b"b": 1, b"ab": 2, b"abb": 3}, 3)
    [b'ab', b'b']
    """
    parts = [bytes((b,)) for b in token]
    while len(parts) > 1:
        best, at = limit, -1
        for i in range(len(parts) - 1):
            rank = ranks.get(parts[i] + parts[i + 1], limit)
            if rank < best:
                best, at = rank, i
        if at < 0:
            break
        parts[at : at + 2] = [parts[at] + parts[at + 1]]
    return parts


_POSSESSIVE_INTERVAL = re.compile(r"\{\d+(?:,\d*)?\}\+")


def onig_pattern(pattern: str) -> str:
    """A tiktoken pattern written so that Oniguruma (HF's engine) reads it the same way.

    Two readings differ (see ``pre_tokenizers/pattern/translate.py``): ``$`` is the end of the text for tiktoken
    and the end of a line for Oniguruma, so it becomes ``\\z``; ``{n,m}+`` is possessive for tiktoken
    and a repetition for Oniguruma, so where it ends a top-level alternative (where possessive and
    greedy match alike) the ``+`` is dropped. Anything else of that kind raises.

    >>> onig_pattern(r"\\p{N}{1,3}+|\\s++$|\\s")
    '\\\\p{N}{1,3}|\\\\s++\\\\z|\\\\s'
    """
    out: list[str] = []
    depth, i, in_class = 0, 0, False
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\":
            out.append(pattern[i : i + 2])
            i += 2
            continue
        if in_class:
            in_class = ch != "]"
        elif ch == "[":
            in_class = True
            if pattern[i + 1 : i + 2] == "]":  # a leading "]" is literal in a class
                out.append("[]")
                i += 2
                continue
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "$":
            out.append(r"\z")
            i += 1
            continue
        elif ch in "{^":
            found = _POSSESSIVE_INTERVAL.match(pattern, i)
            if ch == "{" and found:
                end = found.end()
                if depth == 0 and (end == len(pattern) or pattern[end] == "|"):
                    out.append(found.group()[:-1])
                    i = end
                    continue
                raise UnsavableError(f"the pattern's possessive {found.group()!r} inside a group cannot be written for Oniguruma")
            if ch == "^":
                raise UnsavableError("the pattern's '^' means start of text for tiktoken but start of line for Oniguruma")
        out.append(ch)
        i += 1
    return "".join(out)


_ONIG_ONLY = re.compile(r"\{\d+(?:,\d*)?\}\+|\{\d+\}\?|\\Z")


def check_reads_alike(pattern: str) -> str:
    """``pattern`` (an Oniguruma pattern from a ``tokenizer.json``) if tiktoken's engine reads it the
    same way, else :class:`UnsavableError` naming the construct (``{n,m}+``, ``{n}?``, ``\\Z``,
    ``^``, ``$`` read differently; see ``pre_tokenizers/pattern/translate.py``)."""
    outside = re.sub(r"\\.|\[(?:\\.|[^\]\\])*\]", lambda m: m.group() if m.group() == "\\Z" else "_", pattern)
    found = _ONIG_ONLY.search(outside) or re.search(r"[$^]", outside)
    if found:
        raise UnsavableError(
            f"the split pattern's {found.group()!r} means one thing to Oniguruma (HF) and another to tiktoken, "
            "so a .tiktoken file with this pattern would split text differently; save as tokenizer.json instead"
        )
    return pattern
